import type { z } from 'zod';
import type { CustomerResponse, InvoiceResponse, LifecycleResponse } from '@renew/billing-service/api-types';
import { ApiError } from '@renew/billing-service/http';
import type { CompletedCheckout } from '../../checkout-contract.js';
import type { BillingForShopper, Exchange, ProxyContext } from '../proxy-context.js';
import { notFound } from '../proxy-errors.js';
import { PROXY_ROUTES, type ProxyFile } from '../proxy-routes.js';

/**
 * Step 8: activate, but only once the first payment covers the first invoice: a
 * shopper who changed the collection amount in the browser gets nothing for free. The billing
 * API checks it under the customer's lock (requireFullPayment), so nothing added meanwhile slips through.
 */
export async function activate(ctx: ProxyContext, exchange: Exchange): Promise<CompletedCheckout> {
  const api = ctx.billingFor(exchange);
  const { customerId } = exchange.params as { customerId: number };
  ctx.requireSession(exchange, customerId);
  const customer = await api.call<CustomerResponse>('GET', `/v1/customers/${customerId}`);
  if (customer.status !== 'Draft') return completed(ctx, api, customerId, customer.status);
  const activated = await api
    .call<LifecycleResponse>('POST', '/v1/customeractivation?view=sideeffects', {
      customerId,
      activateAllSubscriptions: true,
      activateAllDraftPurchases: true,
      temporarilyDisableAutoPost: false,
      requireFullPayment: true,
    })
    .catch((error: unknown) => {
      if (error instanceof ApiError && error.statusCode === 402) {
        const reason = error.errors[0];
        throw new ApiError(402, [
          {
            Key: 'payment',
            Value: `the payment received does not cover the first invoice: ${reason?.Value ?? ''}`,
            Code: reason?.Code ?? 'state_conflict',
          },
        ]);
      }
      throw error;
    });
  return toCompleted(ctx, customerId, activated.status, activated.invoices?.[0]);
}

/** After step 8: the invoice as a PDF, only if it is this customer's; another customer's is "not found" alike. */
export async function invoicePdf(ctx: ProxyContext, exchange: Exchange): Promise<ProxyFile> {
  const api = ctx.billingFor(exchange);
  const { customerId, invoiceId } = exchange.params as z.infer<typeof PROXY_ROUTES.invoicePdf.params>;
  ctx.requireSession(exchange, customerId);
  const invoice = await api.call<InvoiceResponse>('GET', `/v1/Invoices/${invoiceId}`);
  if (invoice.customerId !== customerId) throw notFound('invoice', invoiceId);
  const bytes = await api.file(`/v1/Invoices/pdf/${invoiceId}`, PROXY_ROUTES.invoicePdf.binary);
  return { bytes, filename: `invoice-${invoice.invoiceNumber}.pdf` };
}

/** A repeated activation (a second click, a retried request) answers like the first. */
async function completed(ctx: ProxyContext, api: BillingForShopper, customerId: number, status: string): Promise<CompletedCheckout> {
  const invoices = await api.call<InvoiceResponse[]>(
    'GET',
    `/v1/Customers/${customerId}/Invoices?sortExpression=Id&sortOrder=Ascending&pageSize=1`,
  );
  return toCompleted(ctx, customerId, status, invoices[0]);
}

function toCompleted(
  { amount }: ProxyContext,
  customerId: number,
  status: string,
  invoice: InvoiceResponse | undefined,
): CompletedCheckout {
  return {
    customerId,
    status,
    invoice: invoice
      ? {
          id: invoice.id,
          number: invoice.invoiceNumber,
          total: amount(invoice.invoiceAmount),
          amountPaid: amount(invoice.totalPayments),
          outstandingBalance: amount(invoice.outstandingBalance),
          status: invoice.status,
        }
      : null,
  };
}
