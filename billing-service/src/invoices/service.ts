import { Refusal } from '../refusals/refusal.js';
import { recordChange } from '../audit/audit-log.js';
import { lockCustomer } from '../customers/repository.js';
import { transactionWithRetry } from '../db/conflict-retry.js';
import type { Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import type { UriBuilder } from '../uri-builder.js';
import { addLedgerEntry } from '../ledger/entries.js';
import { money, toJsonAmount } from '../money/money.js';
import { announcePostedInvoice, applyHeldFunds, utcDate } from './billing-run.js';
import type { DraftInvoice, PlanChangeCharge } from './engine/index.js';
import { findInvoice, findInvoiceLines, markDraftPosted, type InvoiceChargeRow, type InvoiceRow } from './repository.js';
import type { ChangeInvoicePreviewResponse, InvoicePreviewResponse, InvoiceResponse } from './schemas.js';

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
    chargeType: c.kind as 'Recurring' | 'SetupFee' | 'Credit' | 'Purchase' | 'Usage',
    id: c.id,
  };
}

export async function toInvoiceResponses(db: Queryable, uris: UriBuilder, invoices: InvoiceRow[]): Promise<InvoiceResponse[]> {
  const { charges, taxes } = await findInvoiceLines(
    db,
    invoices.map((i) => i.id),
  );
  return invoices.map((invoice) => ({
    invoiceNumber: invoice.invoiceNumber,
    postedTimestamp: invoice.postedAt?.toISOString() ?? null,
    effectiveTimestamp: invoice.effectiveAt.toISOString(),
    dueTimestamp: invoice.dueAt.toISOString(),
    charges: charges.filter((c) => c.invoiceId === invoice.id).map(chargeResponse),
    subtotal: toJsonAmount(invoice.subtotal),
    totalDiscount: toJsonAmount(invoice.totalDiscount),
    taxes: taxes
      .filter((t) => t.invoiceId === invoice.id)
      .map((t) => ({ name: t.name, rate: toJsonAmount(t.rate), amount: toJsonAmount(t.amount) })),
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
  if (!row) throw Refusal.notFound('invoice', id);
  const [response] = await toInvoiceResponses(ctx.db, ctx.uris, [row]);
  if (!response) throw new Error('toInvoiceResponses answers one response per row');
  return response;
}

/**
 * POST /v1/Invoices/{id}/post (an extension): a Draft invoice (activation or unhold with
 * temporarilyDisableAutoPost, renewals without autoPostDraftInvoice) is posted as any posting is:
 * with its own effective and due dates and service periods, a ledger entry (from now on it is owed),
 * invoice.posted and the InvoicePost e-mail, then the money the customer holds applied to its open
 * invoices. Anything but a Draft is a 409, so a second post (a retry, two at once) changes nothing.
 */
export async function postDraftInvoice(ctx: AppContext, caller: Caller, id: number): Promise<InvoiceResponse> {
  const now = await ctx.clock.now(caller.accountId);
  await transactionWithRetry(ctx.db, async (trx) => {
    const found = await findInvoice(trx, caller.accountId, id);
    if (!found) throw Refusal.notFound('invoice', id);
    // the customer's lock first, as every change to its ledger takes it (lock order: README, Architecture)
    const customer = await lockCustomer(trx, caller.accountId, found.customerId);
    if (!customer) throw new Error(`customer ${found.customerId} of invoice ${id} is gone (customers are never deleted)`);
    const posted = await markDraftPosted(trx, caller.accountId, id, now);
    if (!posted) {
      // read again: another post may have won since `found` was read (invoices are never deleted)
      const current = await findInvoice(trx, caller.accountId, id);
      if (!current) throw new Error(`invoice ${id} is gone`);
      throw Refusal.conflict(
        `invoice ${id} is ${invoiceStatus(current)}: only a Draft invoice can be posted`,
        'invoiceId',
        'state_conflict',
      );
    }
    const total = money(posted.total);
    await addLedgerEntry(trx, {
      accountId: caller.accountId,
      customerId: customer.id,
      entryType: 'invoice',
      amount: total,
      invoiceId: id,
      dueAt: posted.dueAt,
      effectiveAt: posted.effectiveAt,
      // owed from now: a draft posted after its due date is overdue (PoorStanding) from its posting
      openedAt: now,
    });
    await recordChange(trx, caller, {
      entityType: 'Invoice',
      entityId: id,
      action: 'update',
      changes: { status: ['Draft', 'Posted'], postedTimestamp: [null, now.toISOString()] },
    });
    await announcePostedInvoice(
      trx,
      customer,
      { id, invoiceNumber: posted.invoiceNumber, total, dueDate: utcDate(posted.dueAt) },
      { now, notifier: ctx.notifier, webhooks: ctx.webhooks },
    );
    await applyHeldFunds(trx, customer, { now, webhooks: ctx.webhooks });
  });
  return getInvoice(ctx, caller, id);
}

type ComputedInvoice = Pick<
  DraftInvoice,
  'subtotal' | 'totalDiscount' | 'taxes' | 'totalTaxes' | 'total' | 'currency' | 'effectiveDate' | 'dueDate'
> & { charges: PlanChangeCharge[] };

/** A computed (not stored) invoice as the activation and unhold previews show it. */
export function toInvoicePreview(draft: DraftInvoice): InvoicePreviewResponse {
  return toChangeInvoicePreview(draft) as InvoicePreviewResponse;
}

/** A plan change's computed invoice as its preview shows it: the activation preview's shape, with Credit lines. */
export function toChangeInvoicePreview(draft: ComputedInvoice): ChangeInvoicePreviewResponse {
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
