import type { Queryable } from '../db/database.js';
import type { InvoiceRow } from '../invoices/repository.js';
import { money, sumMoney, toJsonAmount, type Money } from '../money/money.js';
import type { UriBuilder } from '../uri-builder.js';
import type { creditNoteTotals } from './amounts.js';
import type { PricedCredit } from './credited-lines.js';
import { type CreditNoteRow, findCreditNoteLines, findRefundPlans } from './repository.js';
import type { CreateCreditNoteInput, CreditNoteResponse } from './schemas.js';

/** A refund a credit note asked for: its amount, the refund once made, and whether it succeeded. */
interface RefundView {
  amount: Money;
  refundId: number | null;
  succeeded: boolean;
}

/** The stored credit notes as the API returns them (lines and refunds read in two statements for all of them). */
export async function toCreditNoteResponses(db: Queryable, uris: UriBuilder, rows: CreditNoteRow[]): Promise<CreditNoteResponse[]> {
  const ids = rows.map((r) => r.id);
  const [lines, refunds] = await Promise.all([findCreditNoteLines(db, ids), findRefundPlans(db, ids)]);
  return rows.map((row) => {
    const ofNote = lines.filter((l) => l.creditNoteId === row.id);
    const refundViews = refunds
      .filter((r) => r.creditNoteId === row.id)
      .map((r) => ({ amount: money(r.amount), refundId: r.refundId, succeeded: r.refundStatus === 'Succeeded' }));
    return respond(
      {
        id: row.id,
        number: row.number,
        customerId: row.customerId,
        invoiceId: row.invoiceId,
        invoiceNumber: row.invoiceNumber,
        currency: row.currency,
        reason: row.reason,
        lines: ofNote.map((l) => ({
          invoiceLineId: l.invoiceChargeId,
          description: l.description,
          quantity: l.quantity === null ? null : money(l.quantity),
          amount: money(l.amount),
          taxAmount: money(l.taxAmount),
        })),
        subtotal: money(row.subtotal),
        taxTotal: money(row.taxTotal),
        total: money(row.total),
        appliedToInvoice: money(row.appliedToInvoice),
        refunds: refundViews,
        createdAt: row.createdAt,
      },
      uris,
    );
  });
}

/** A credit note not written (a preview): the refunds it would ask for counted as made. */
export function toCreditNoteResponse(
  built: {
    invoice: InvoiceRow;
    input: CreateCreditNoteInput;
    priced: PricedCredit[];
    totals: ReturnType<typeof creditNoteTotals>;
    refunds: RefundView[];
  },
  _row: null,
  uris: UriBuilder,
): CreditNoteResponse {
  const { invoice, input, priced, totals } = built;
  return respond(
    {
      id: null,
      number: null,
      customerId: invoice.customerId,
      invoiceId: invoice.id,
      invoiceNumber: invoice.invoiceNumber,
      currency: invoice.currency,
      reason: input.reason,
      lines: priced.map((p) => ({ invoiceLineId: p.chargeId, description: p.description, quantity: p.quantity, ...p.credit })),
      subtotal: totals.subtotal,
      taxTotal: totals.taxTotal,
      total: totals.total,
      appliedToInvoice: totals.appliedToInvoice,
      refunds: built.refunds,
      createdAt: null,
    },
    uris,
  );
}

interface CreditNoteView {
  id: number | null;
  number: number | null;
  customerId: number;
  invoiceId: number;
  invoiceNumber: number;
  currency: string;
  reason: string;
  lines: Array<{ invoiceLineId: number; description: string; quantity: Money | null; amount: Money; taxAmount: Money }>;
  subtotal: Money;
  taxTotal: Money;
  total: Money;
  appliedToInvoice: Money;
  refunds: RefundView[];
  createdAt: Date | null;
}

function respond(view: CreditNoteView, uris: UriBuilder): CreditNoteResponse {
  const refunded = sumMoney(view.refunds.filter((r) => r.succeeded).map((r) => r.amount));
  return {
    id: view.id,
    number: view.number,
    customerId: view.customerId,
    invoiceId: view.invoiceId,
    invoiceNumber: view.invoiceNumber,
    currency: view.currency,
    reason: view.reason,
    status: view.id === null ? 'Preview' : 'Issued',
    lines: view.lines.map((l) => ({
      invoiceLineId: l.invoiceLineId,
      description: l.description,
      quantity: l.quantity === null ? null : toJsonAmount(l.quantity),
      amount: toJsonAmount(l.amount),
      taxAmount: toJsonAmount(l.taxAmount),
      total: toJsonAmount(l.amount.plus(l.taxAmount)),
    })),
    subtotal: toJsonAmount(view.subtotal),
    taxTotal: toJsonAmount(view.taxTotal),
    total: toJsonAmount(view.total),
    appliedToInvoice: toJsonAmount(view.appliedToInvoice),
    creditedToCustomer: toJsonAmount(view.total.minus(view.appliedToInvoice).minus(refunded)),
    refunded: toJsonAmount(refunded),
    refundIds: view.refunds.flatMap((r) => (r.refundId === null ? [] : [r.refundId])),
    createdTimestamp: view.createdAt?.toISOString() ?? null,
    uri: view.id === null ? null : uris.resource('creditNotes', view.id),
    pdfUri: view.id === null ? null : uris.resource('creditNotes/pdf', view.id),
  };
}
