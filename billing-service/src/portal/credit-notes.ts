import type { AppContext } from '../app-context.js';
import { creditNotePdf } from '../credit-notes/pdf.js';
import { selectCreditNotes } from '../credit-notes/repository.js';
import { toCreditNoteResponses } from '../credit-notes/responses.js';
import type { CreditNoteResponse } from '../credit-notes/schemas.js';
import type { InvoicePdfFile } from '../invoices/pdf/invoice-pdf.js';
import { Refusal } from '../refusals/refusal.js';
import type { PortalSession } from './links.js';

/** The invoices page's credit notes (issue 40): the session's customer's, newest first, as the API shows them. */
export async function listPortalCreditNotes(ctx: AppContext, session: PortalSession): Promise<CreditNoteResponse[]> {
  const rows = await selectCreditNotes(ctx.db, session.accountId)
    .where('creditNotes.customerId', '=', session.customerId)
    .orderBy('creditNotes.id', 'desc')
    .limit(200)
    .execute();
  return toCreditNoteResponses(ctx.db, ctx.uris, rows);
}

/** One of the customer's credit notes as a PDF; another customer's is not found. */
export async function portalCreditNotePdf(ctx: AppContext, session: PortalSession, id: number): Promise<InvoicePdfFile> {
  const owned = await selectCreditNotes(ctx.db, session.accountId)
    .where('creditNotes.id', '=', id)
    .where('creditNotes.customerId', '=', session.customerId)
    .executeTakeFirst();
  const file = owned ? await creditNotePdf(ctx, session.accountId, id) : undefined;
  if (!file) throw Refusal.notFound('credit note', id);
  return file;
}
