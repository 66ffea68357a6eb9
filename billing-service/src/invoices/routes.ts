import { Refusal } from '../refusals/refusal.js';
import { PDF_ROUTE_SCHEMA, sendPdf } from './pdf/pdf-reply.js';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import { customerChildListRoute } from '../customers/child-list.js';
import { readBack } from '../http/idempotency.js';
import type { ListField } from '../http/lists/index.js';
import { invoicePdf } from './pdf/invoice-pdf.js';
import { selectInvoices } from './repository.js';
import { InvoiceIdParams, InvoiceResponse, STORED_INVOICE_STATUSES } from './schemas.js';
import { getInvoice, postDraftInvoice, toInvoiceResponses } from './service.js';

const tags = ['Invoices'];
const invoiceListFields: ListField[] = [
  { name: 'InvoiceNumber', type: 'integer', expression: sql.ref('invoices.invoiceNumber') },
  { name: 'Status', type: 'enum', values: [...STORED_INVOICE_STATUSES], expression: sql.ref('invoices.status') },
  { name: 'PostedTimestamp', type: 'date', expression: sql.ref('invoices.postedAt') },
  { name: 'EffectiveTimestamp', type: 'date', expression: sql.ref('invoices.effectiveAt') },
  { name: 'DueTimestamp', type: 'date', expression: sql.ref('invoices.dueAt') },
  { name: 'PoNumber', type: 'string', expression: sql.ref('invoices.poNumber') },
  { name: 'Id', type: 'integer', expression: sql.ref('invoices.id') },
];

export async function invoiceRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get('/v1/Invoices/:invoiceId', {
    schema: { tags, summary: 'Read one invoice', params: InvoiceIdParams, response: { 200: InvoiceResponse } },
    handler: async (request) => getInvoice(app.ctx, request.caller, request.params.invoiceId),
  });

  app.post('/v1/Invoices/:invoiceId/post', {
    schema: {
      tags,
      summary:
        'Post a Draft invoice with its own dates, applying the money the customer holds (an extension; Idempotency-Key: a retry gets the first answer)',
      description:
        'A Draft invoice (activation or unhold with temporarilyDisableAutoPost, renewals without autoPostDraftInvoice) is not owed until posted: ' +
        'the overview counts it in pendingCharges, not arBalance. Posting keeps its effective and due dates and service periods, writes it to the ledger, ' +
        'emits invoice.posted and the InvoicePost e-mail, and applies unallocated payments and credits. 409 (key invoiceId) for an invoice that is not a Draft.',
      params: InvoiceIdParams,
      headers: z.object({ 'idempotency-key': z.string().min(1).max(255).optional() }),
      response: { 200: InvoiceResponse },
    },
    // Posted once: a run again after a lost answer is a 409 (not a Draft), so the invoice is read back.
    config: { idempotency: readBack<{ invoiceId: number }>((r) => getInvoice(app.ctx, r.caller, r.params.invoiceId)) },
    handler: async (request) => postDraftInvoice(app.ctx, request.caller, request.params.invoiceId),
  });

  app.get('/v1/Invoices/pdf/:invoiceId', {
    schema: {
      tags,
      summary: 'The invoice as a PDF (application/pdf)',
      params: InvoiceIdParams,
      ...PDF_ROUTE_SCHEMA,
    },
    handler: async (request, reply) => {
      const file = await invoicePdf(app.ctx, request.caller.accountId, request.params.invoiceId);
      if (!file) throw Refusal.notFound('invoice', request.params.invoiceId);
      return sendPdf(reply, file);
    },
  });

  customerChildListRoute(app, {
    path: '/v1/Customers/:customerId/Invoices',
    tags,
    summary: "List a customer's invoices",
    item: InvoiceResponse,
    fields: invoiceListFields,
    table: 'invoices',
    select: (ctx, accountId) => selectInvoices(ctx.db, accountId),
    toResponses: (ctx, rows) => toInvoiceResponses(ctx.db, ctx.uris, rows),
  });
}
