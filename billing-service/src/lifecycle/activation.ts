import { Refusal } from '../refusals/refusal.js';
import { getCustomer } from '../customers/service.js';
import type { Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import { customerBalances } from '../ledger/balances.js';
import { minorUnits, sumMoney, type Money } from '../money/money.js';
import {
  computeCustomerInvoices,
  loadBillingRun,
  saveInvoices,
  utcDate,
  withPurchases,
  type PeriodToBill,
} from '../invoices/billing-run.js';
import { purchasesInStatus } from '../purchases/repository.js';
import { findInvoice } from '../invoices/repository.js';
import { toInvoicePreview, toInvoiceResponses } from '../invoices/service.js';
import { lockCustomerFor, TRANSITIONS, transitionCustomer } from './transitions.js';
import type { ActivationInput, LifecycleResponse } from './schemas.js';
import { transactionWithRetry } from '../db/conflict-retry.js';

export interface ActivationOptions {
  preview: boolean;
  showZeroDollarCharges?: boolean;
  sideEffects: boolean;
  now?: Date;
}

/**
 * Draft → Active. With preview nothing changes and the first invoice is only
 * computed (its total is what a checkout collects). Otherwise, in one
 * transaction: the customer and (activateAllSubscriptions) its Draft
 * subscriptions become Active, (activateAllDraftPurchases) its Draft purchases are billed on it, the first invoice is created and posted unless
 * temporarilyDisableAutoPost, and available funds are allocated to it.
 */
export async function activateCustomer(
  ctx: AppContext,
  caller: Caller,
  input: ActivationInput,
  options: ActivationOptions,
): Promise<LifecycleResponse> {
  if (!options.preview) {
    const missing = (['activateAllSubscriptions', 'activateAllDraftPurchases', 'temporarilyDisableAutoPost'] as const).filter(
      (f) => input[f] == null,
    );
    if (missing.length > 0)
      throw new Refusal(
        'invalid',
        missing.map((f) => ({ Key: f, Value: 'required unless preview is true', Code: 'value_required' as const })),
      );
  }
  const now = options.now ?? (await ctx.clock.now(caller.accountId));
  const today = utcDate(now);
  const activateSubscriptions = input.activateAllSubscriptions ?? true;

  // A preview changes nothing: it needs no transaction (and no lock held to its end).
  const run = <T>(work: (db: Queryable) => Promise<T>): Promise<T> => (options.preview ? work(ctx.db) : transactionWithRetry(ctx.db, work));
  const result = await run(async (trx) => {
    // the lock first, the rest after it: a statement that waited for the lock reads with the snapshot it began with
    const customer = await lockCustomerFor(trx, caller, input.customerId, 'activate');
    // the billing context, the Draft subscriptions with their products and coupons, and whether the customer holds funds: one read
    const { context, subscriptions, lines, holdsFunds } = await loadBillingRun(
      trx,
      ctx.catalog,
      customer,
      activateSubscriptions ? TRANSITIONS.activate.subscriptions.from : [],
    );
    const periods: PeriodToBill[] = subscriptions.map((s) => ({
      subscription: s,
      periodStart: today,
      isFirstInvoice: true,
      anchorDay: now.getUTCDate(),
    }));
    const computed = await computeCustomerInvoices(trx, ctx.catalog, context, periods, {
      effectiveDate: today,
      showZeroDollarCharges: options.showZeroDollarCharges,
      lines,
    });
    // the Draft purchases go on the first invoice (the preview's too), or on one of their own
    const purchases = (input.activateAllDraftPurchases ?? true) ? await purchasesInStatus(trx, customer.id, 'Draft') : [];
    const invoices = withPurchases(context, computed, purchases, today);
    if (options.preview) return { invoices, invoiceIds: [] as number[] };
    if (input.requireFullPayment) await checkFullyPaid(trx, customer, invoices);

    await transitionCustomer(
      ctx,
      trx,
      caller,
      customer,
      'activate',
      now,
      { activateAllSubscriptions: activateSubscriptions },
      { withSubscriptions: activateSubscriptions },
    );
    await ctx.notifier?.enqueue(trx, customer, { type: 'CustomerActivation' });
    const post = !input.temporarilyDisableAutoPost && context.settings.autoPostDraftInvoice;
    const invoiceIds = await saveInvoices(trx, context, invoices, {
      post,
      now,
      notifier: ctx.notifier,
      webhooks: ctx.webhooks,
      holdsFunds,
    });
    return { invoices, invoiceIds };
  });

  if (options.preview) {
    const customer = await getCustomer(ctx, caller, input.customerId);
    const [first, ...rest] = result.invoices.map(toInvoicePreview);
    return { ...customer, invoicePreview: first ?? null, additionalInvoicesForPreview: rest };
  }
  return activationAnswer(ctx, caller, input.customerId, result.invoiceIds, options.sideEffects);
}

/** An activation's answer: the customer as it is now, with the invoices it made when asked (`view`); also a keyed retry's after a lost answer. */
export async function activationAnswer(
  ctx: AppContext,
  caller: Caller,
  customerId: number,
  invoiceIds: readonly number[],
  withInvoices: boolean,
): Promise<LifecycleResponse> {
  const customer = await getCustomer(ctx, caller, customerId);
  if (!withInvoices) return customer;
  const rows = await Promise.all(invoiceIds.map((id) => findInvoice(ctx.db, caller.accountId, id)));
  return {
    ...customer,
    invoices: await toInvoiceResponses(
      ctx.db,
      ctx.uris,
      rows.filter((r) => r !== undefined),
    ),
  };
}

/**
 * requireFullPayment: the money the customer already holds (unallocated payments and credits) must
 * cover what activation posts. Checked under the customer's lock, in the activation's transaction,
 * so a subscription added or a payment moved meanwhile cannot slip an unpaid activation through.
 */
async function checkFullyPaid(trx: Queryable, customer: { id: number; currency: string }, invoices: Array<{ total: Money }>) {
  const due = sumMoney(invoices.map((i) => i.total));
  const { unallocatedPayments, unallocatedCredits } = await customerBalances(trx, customer.id);
  const held = unallocatedPayments.plus(unallocatedCredits);
  if (held.lessThan(due)) {
    const places = minorUnits(customer.currency);
    throw new Refusal('declined', [
      {
        Key: 'requireFullPayment',
        Value: `the customer holds ${held.toFixed(places)}, less than the ${due.toFixed(places)} activation would post`,
        Code: 'state_conflict',
      },
    ]);
  }
}
