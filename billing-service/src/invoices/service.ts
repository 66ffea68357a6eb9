import type { Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import { ApiError } from '../http/errors.js';
import type { UriBuilder } from '../http/uri.js';
import { money, toJsonAmount } from '../money/money.js';
import type { DraftInvoice } from './engine/index.js';
import { findInvoice, findInvoiceLines, type InvoiceChargeRow, type InvoiceRow } from './repository.js';
import type { InvoicePreviewResponse, InvoiceResponse } from './schemas.js';

/** Paid and partly paid are not stored: they follow from what the ledger has allocated. */
export function invoiceStatus(row: Pick<InvoiceRow, 'status' | 'total' | 'outstandingBalance'>): InvoiceResponse['status'] {
  if (row.status !== 'Posted') return row.status;
  const outstanding = money(row.outstandingBalance);
  if (outstanding.isZero()) return 'Paid';
  return outstanding.lessThan(row.total) ? 'PartiallyPaid' : 'Posted';
}

function chargeResponse(c: InvoiceChargeRow) {
  return {
    name: c.name,
    description: c.description,
    quantity: toJsonAmount(c.quantity),
    unitPrice: toJsonAmount(c.unitPrice),
    proratedUnitPrice: toJsonAmount(money(c.proratedUnitPrice).toDecimalPlaces(6)),
    amount: toJsonAmount(c.amount),
    taxableAmount: toJsonAmount(c.taxableAmount),
    startServiceDate: c.startServiceDate,
    endServiceDate: c.endServiceDate,
    draftDiscounts: c.discounts.map((d) => ({ name: d.name, amount: toJsonAmount(d.amount) })),
    subscriptionId: c.subscriptionId,
    productCode: c.productCode,
    chargeType: c.kind as 'Recurring' | 'SetupFee',
    id: c.id,
  };
}

export async function toInvoiceResponses(db: Queryable, uris: UriBuilder, invoices: InvoiceRow[]): Promise<InvoiceResponse[]> {
  const { charges, taxes } = await findInvoiceLines(db, invoices.map((i) => i.id));
  return invoices.map((invoice) => ({
    invoiceNumber: invoice.invoiceNumber,
    postedTimestamp: invoice.postedAt?.toISOString() ?? null,
    effectiveTimestamp: invoice.effectiveAt.toISOString(),
    dueTimestamp: invoice.dueAt.toISOString(),
    charges: charges.filter((c) => c.invoiceId === invoice.id).map(chargeResponse),
    subtotal: toJsonAmount(invoice.subtotal),
    totalDiscount: toJsonAmount(invoice.totalDiscount),
    taxes: taxes.filter((t) => t.invoiceId === invoice.id).map((t) => ({ name: t.name, rate: toJsonAmount(t.rate), amount: toJsonAmount(t.amount) })),
    totalTaxes: toJsonAmount(invoice.totalTaxes),
    invoiceAmount: toJsonAmount(invoice.total),
    totalPayments: toJsonAmount(invoice.totalPayments),
    outstandingBalance: toJsonAmount(invoice.outstandingBalance),
    terms: invoice.terms,
    poNumber: invoice.poNumber,
    currency: invoice.currency,
    customerId: invoice.customerId,
    status: invoiceStatus(invoice),
    id: invoice.id,
    uri: uris.resource('Invoices', invoice.id),
  }));
}

export async function getInvoice(ctx: AppContext, caller: Caller, id: number): Promise<InvoiceResponse> {
  const row = await findInvoice(ctx.db, caller.accountId, id);
  if (!row) throw ApiError.notFound('invoice', id);
  const [response] = await toInvoiceResponses(ctx.db, ctx.uris, [row]);
  return response!;
}

/** A computed (not stored) invoice as the activation and unhold previews show it. */
export function toInvoicePreview(draft: DraftInvoice): InvoicePreviewResponse {
  return {
    draftCharges: draft.charges.map((c) => ({
      name: c.name,
      description: c.description,
      quantity: toJsonAmount(c.quantity),
      unitPrice: toJsonAmount(c.unitPrice),
      proratedUnitPrice: toJsonAmount(c.proratedUnitPrice.toDecimalPlaces(6)),
      amount: toJsonAmount(c.amount),
      taxableAmount: toJsonAmount(c.taxableAmount),
      startServiceDate: c.startServiceDate,
      endServiceDate: c.endServiceDate,
      draftDiscounts: c.discounts.map((d) => ({ name: d.name, amount: toJsonAmount(d.amount) })),
      subscriptionId: c.subscriptionId,
      productCode: c.productCode,
      chargeType: c.kind,
    })),
    subtotal: toJsonAmount(draft.subtotal),
    totalDiscount: toJsonAmount(draft.totalDiscount),
    draftTaxes: draft.taxes.map((t) => ({ name: t.name, rate: toJsonAmount(t.rate), amount: toJsonAmount(t.amount) })),
    totalTaxes: toJsonAmount(draft.totalTaxes),
    total: toJsonAmount(draft.total),
    currency: draft.currency,
    effectiveTimestamp: `${draft.effectiveDate}T00:00:00.000Z`,
    dueTimestamp: `${draft.dueDate}T00:00:00.000Z`,
  };
}
