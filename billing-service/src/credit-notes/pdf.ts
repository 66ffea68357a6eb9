import type { AppContext } from '../app-context.js';
import { findInvoiceLines } from '../invoices/repository.js';
import { invoicePdfView, type InvoicePdfFile } from '../invoices/pdf/invoice-pdf.js';
import type { InvoicePdfView } from '../invoices/pdf/invoice-pdf-layout.js';
import { PdfCache } from '../invoices/pdf/pdf-cache.js';
import { pdfRenderPool } from '../invoices/pdf/pdf-render-pool.js';
import { PDF_WORDS } from '../invoices/pdf/pdf-words.js';
import { money } from '../money/money.js';
import { findCreditNote } from './repository.js';
import { toCreditNoteResponses } from './responses.js';

/** Rendered credit notes (a credit note never changes but for its refunds' outcome, which the version covers). */
const cache = new PdfCache(16 * 1024 * 1024);

/**
 * GET /v1/creditNotes/pdf/{id} (issue 40): the credit note in its invoice's layout and the customer's language (the
 * seller, the customer and the address as the invoice's PDF prints them), rendered on the PDF threads; undefined when
 * the account has no such credit note.
 */
export async function creditNotePdf(
  ctx: Pick<AppContext, 'db' | 'catalog' | 'uris'>,
  accountId: number,
  id: number,
): Promise<InvoicePdfFile | undefined> {
  const row = await findCreditNote(ctx.db, accountId, id);
  if (!row) return undefined;
  const [[note], invoiceView, { charges }] = await Promise.all([
    toCreditNoteResponses(ctx.db, ctx.uris, [row]),
    invoicePdfView(ctx.db, ctx.catalog, accountId, row.invoiceId),
    findInvoiceLines(ctx.db, [row.invoiceId]),
  ]);
  if (!note || !invoiceView) throw new Error(`credit note ${id} or its invoice ${row.invoiceId} is gone`);
  const fixed = (amount: number) => money(amount).toFixed(invoiceView.decimals);
  const view: InvoicePdfView = {
    ...invoiceView,
    effectiveDate: row.createdAt.toISOString().slice(0, 10),
    lines: note.lines.map((line) => {
      const charge = charges.find((c) => c.id === line.invoiceLineId);
      return {
        name: line.description,
        description: null,
        startServiceDate: charge?.startServiceDate ?? invoiceView.effectiveDate,
        endServiceDate: charge?.endServiceDate ?? invoiceView.effectiveDate,
        quantity: line.quantity === null ? '' : String(line.quantity),
        unitPrice: line.quantity === null || !charge ? '' : charge.unitPrice,
        amount: fixed(line.amount),
        discounts: [],
      };
    }),
    subtotal: fixed(note.subtotal),
    totalDiscount: '0',
    taxes: note.taxTotal === 0 ? [] : [{ name: PDF_WORDS[invoiceView.language].creditNote.tax, rate: '', amount: fixed(note.taxTotal) }],
    totalTaxes: fixed(note.taxTotal),
    total: fixed(note.total),
    creditNote: {
      number: row.number,
      invoiceNumber: row.invoiceNumber,
      reason: row.reason,
      applied: fixed(note.appliedToInvoice),
      credited: fixed(note.creditedToCustomer),
      refunded: fixed(note.refunded),
    },
  };
  const filename = `credit-note-${row.number}.pdf`;
  const version = PdfCache.version(view);
  const cached = cache.get(id, version);
  if (cached) return { filename, content: cached };
  const content = await pdfRenderPool.render(accountId, view);
  cache.set(id, version, content);
  return { filename, content };
}
