import type { z } from 'zod';
import type { PlanChangeResponse, SubscriptionResponse } from '@renew/billing-service/api-types';
import { minorUnits, money, roundToCurrency } from '@renew/billing-service/money';
import type { ChangedSubscription, PlanChange } from '../../checkout-contract.js';
import type { Exchange, ProxyContext } from '../proxy-context.js';
import type { PROXY_ROUTES } from '../proxy-routes.js';

type ServiceDates = { startServiceDate: string; endServiceDate: string };
type ChangeInvoice = NonNullable<PlanChangeResponse['invoice']>;

/** A plan change of the signed-in customer's subscription: the billing API computes, checks and applies it. */
export async function planChange(ctx: ProxyContext, exchange: Exchange): Promise<PlanChange> {
  const api = ctx.billingFor(exchange);
  const { id } = await ctx.signedInSubscription(exchange, api);
  const body = exchange.body as z.infer<typeof PROXY_ROUTES.planChange.body>;
  const answer = await api.call<PlanChangeResponse>('POST', `/v1/subscriptions/${id}/changes`, body);
  return toPlanChange(answer, body.preview === true);
}

export async function withdrawPlanChange(ctx: ProxyContext, exchange: Exchange): Promise<ChangedSubscription> {
  const api = ctx.billingFor(exchange);
  const { id } = await ctx.signedInSubscription(exchange, api);
  return toChangedSubscription(await api.call<SubscriptionResponse>('DELETE', `/v1/subscriptions/${id}/changes/pending`));
}

/** An amount in a currency's minor unit, as a decimal string. */
const amountIn = (value: number, currency: string) => roundToCurrency(money(value), currency).toFixed(minorUnits(currency));

function toChangedSubscription(s: SubscriptionResponse): ChangedSubscription {
  return {
    subscriptionId: s.id,
    status: s.status,
    planFrequencyId: s.planFrequency.id,
    planCode: s.planCode,
    planName: s.planName,
    interval: s.planFrequency.interval,
    numberOfIntervals: s.planFrequency.numberOfIntervals,
    currency: s.currency,
    quantities: s.subscriptionProducts.map((p) => ({ code: p.productCode, name: p.productName, quantity: p.quantity })),
    amount: amountIn(s.amount, s.currency),
    nextPeriodStartDate: s.nextPeriodStartDate?.slice(0, 10) ?? null,
    pendingChange: s.pendingChange
      ? {
          planFrequencyId: s.pendingChange.planFrequencyId,
          quantities: s.pendingChange.quantities,
          effectiveDate: s.pendingChange.effectiveDate.slice(0, 10),
        }
      : null,
  };
}

/** The billing API's answer in the proxy's terms: the posted invoice's shape or the preview's, as one shape. */
function toPlanChange(answer: PlanChangeResponse, preview: boolean): PlanChange {
  const subscription = toChangedSubscription(answer.subscription);
  const currency = answer.invoice?.currency ?? subscription.currency;
  const price = (value: number) => amountIn(value, currency);
  return {
    preview,
    timing: answer.invoice ? 'now' : 'periodEnd',
    subscription,
    invoice: answer.invoice ? toChangeInvoice(answer.invoice, price) : null,
    nextRenewal: { date: answer.nextRenewal.date.slice(0, 10), amount: price(answer.nextRenewal.amount) },
  };
}

/** The plan change's invoice: a preview's draft (no id, number or balance yet) or the posted one. */
function toChangeInvoice(invoice: ChangeInvoice, price: (value: number) => string): PlanChange['invoice'] {
  const line = (
    c: {
      name: string;
      chargeType: 'Recurring' | 'SetupFee' | 'Credit' | 'Purchase' | 'Usage';
      quantity: number;
      amount: number;
    } & ServiceDates,
  ) => ({
    name: c.name,
    kind: c.chargeType,
    quantity: c.quantity,
    amount: price(c.amount),
    startServiceDate: c.startServiceDate.slice(0, 10),
    endServiceDate: c.endServiceDate.slice(0, 10),
  });
  if ('draftCharges' in invoice) {
    return {
      id: null,
      number: null,
      lines: invoice.draftCharges.map(line),
      subtotal: price(invoice.subtotal),
      totalDiscount: price(invoice.totalDiscount),
      taxes: invoice.draftTaxes.map((t) => ({ name: t.name, amount: price(t.amount) })),
      totalTaxes: price(invoice.totalTaxes),
      total: price(invoice.total),
      outstandingBalance: null,
      status: null,
    };
  }
  return {
    id: invoice.id,
    number: invoice.invoiceNumber,
    lines: invoice.charges.map(line),
    subtotal: price(invoice.subtotal),
    totalDiscount: price(invoice.totalDiscount),
    taxes: invoice.taxes.map((t) => ({ name: t.name, amount: price(t.amount) })),
    totalTaxes: price(invoice.totalTaxes),
    total: price(invoice.invoiceAmount),
    outstandingBalance: price(invoice.outstandingBalance),
    status: invoice.status,
  };
}
