import type { FastifyInstance } from 'fastify';
import { PDF_ROUTE_SCHEMA, sendPdf } from '../invoices/pdf/pdf-reply.js';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { customerChildListRoute } from '../customers/child-list.js';
import { readBack } from '../http/idempotency.js';
import { Refusal } from '../refusals/refusal.js';
import { creditNotePdf } from './pdf.js';
import type { ListField } from '../http/lists/index.js';
import { selectCreditNotes } from './repository.js';
import { toCreditNoteResponses } from './responses.js';
import { refundCreditNote } from './refunds.js';
import { CreateCreditNoteBody, CreditNoteIdParams, CreditNoteResponse } from './schemas.js';
import { createCreditNote, getCreditNote, previewCreditNote } from './service.js';

const tags = ['Credit notes'];
const creditNoteListFields: ListField[] = [
  { name: 'Number', type: 'integer', expression: sql.ref('creditNotes.number') },
  { name: 'InvoiceId', type: 'integer', expression: sql.ref('creditNotes.invoiceId') },
  { name: 'CreatedTimestamp', type: 'date', expression: sql.ref('creditNotes.createdAt') },
  { name: 'Id', type: 'integer', expression: sql.ref('creditNotes.id') },
];
const REFUSALS =
  '404 for an unknown invoice; 409 with a Code (key invoiceId): invoice_not_posted (a Draft), invoice_closed (Void or WrittenOff), ' +
  'payment_in_progress; 400 on lines[i].invoiceLineId (not a line of the invoice, or one that billed nothing), lines[i].amount ' +
  "(more decimals than the currency has; neither or both of amount and quantity), lines[i].quantity (above the line's); " +
  '409 credit_exceeds_line on lines[i].amount or .quantity (more than is left to credit on the line with its tax)';

/** Credit notes (issue 40, an extension of the spec): corrections of posted invoices, in part or in full. */
export async function creditNoteRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post('/v1/creditNotes', {
    schema: {
      tags,
      summary: 'Credit part or all of a posted invoice (an extension; Idempotency-Key: a retry gets the first answer)',
      description:
        'Each line credits a line of the invoice by its net amount or a quantity of it, with the tax in proportion (rounded once to ' +
        "the currency's minor unit). The total first pays what the invoice owes; the excess pays the customer's other open invoices " +
        "(their credit), or with refund: true is refunded on the invoice's payments, newest first, once each. Emits creditNote.created. " +
        REFUSALS,
      body: CreateCreditNoteBody,
      response: { 200: CreditNoteResponse },
    },
    config: {
      // committed once: a retry finishes the refunds the first run may not have made, then reads the note back
      idempotency: readBack(async (r, created) => {
        const id = created.CreditNote?.[0] ?? 0;
        await refundCreditNote(app.ctx, r.caller, id, await app.ctx.clock.now(r.caller.accountId));
        return getCreditNote(app.ctx, r.caller, id);
      }),
    },
    handler: async (request) => createCreditNote(app.ctx, request.caller, request.body),
  });

  app.post('/v1/creditNotes/preview', {
    schema: {
      tags,
      summary: 'What a credit note would be, nothing written (the same checks and figures)',
      body: CreateCreditNoteBody,
      response: { 200: CreditNoteResponse },
    },
    config: { idempotency: { afterCommit: 'runAgain' } },
    handler: async (request) => previewCreditNote(app.ctx, request.caller, request.body),
  });

  app.get('/v1/creditNotes/:creditNoteId', {
    schema: { tags, summary: 'Read one credit note', params: CreditNoteIdParams, response: { 200: CreditNoteResponse } },
    handler: async (request) => getCreditNote(app.ctx, request.caller, request.params.creditNoteId),
  });

  app.get('/v1/creditNotes/pdf/:creditNoteId', {
    schema: {
      tags,
      summary: "The credit note as a PDF (application/pdf), in its invoice's layout and the customer's language",
      params: CreditNoteIdParams,
      ...PDF_ROUTE_SCHEMA,
    },
    handler: async (request, reply) => {
      const file = await creditNotePdf(app.ctx, request.caller.accountId, request.params.creditNoteId);
      if (!file) throw Refusal.notFound('credit note', request.params.creditNoteId);
      return sendPdf(reply, file);
    },
  });

  customerChildListRoute(app, {
    path: '/v1/customers/:customerId/creditNotes',
    tags,
    summary: "List a customer's credit notes",
    item: CreditNoteResponse,
    fields: creditNoteListFields,
    table: 'creditNotes',
    select: (ctx, accountId) => selectCreditNotes(ctx.db, accountId),
    toResponses: (ctx, rows) => toCreditNoteResponses(ctx.db, ctx.uris, rows),
  });
}
