import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { readBack } from '../http/idempotency.js';
import { InvoiceIdParams, InvoiceResponse } from '../invoices/schemas.js';
import { getInvoice } from '../invoices/service.js';
import { voidInvoice, writeOffInvoice } from './service.js';

const tags = ['Invoices'];
const MAX_REASON = 500;
const reason = z.string().trim().min(1, 'must not be empty').max(MAX_REASON, `must be at most ${MAX_REASON} characters`);
const headers = z.object({ 'idempotency-key': z.string().min(1).max(255).optional() });
const REFUSALS =
  '409 with a Code (key invoiceId): invoice_not_posted (a Draft), invoice_closed (already Void or WrittenOff), ' +
  'payment_in_progress (a card payment of it is at the processor now)';

/** Void and write-off of posted invoices (issue 40, extensions): the invoice as it stands after. */
export async function invoiceClosureRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  // Closed once: a run again after a lost answer is a 409 (invoice_closed), so the invoice is read back.
  const idempotency = readBack<{ invoiceId: number }>((r) => getInvoice(app.ctx, r.caller, r.params.invoiceId));

  app.post('/v1/Invoices/:invoiceId/void', {
    schema: {
      tags,
      summary: 'Void a posted invoice nothing was paid on (an extension; Idempotency-Key: a retry gets the first answer)',
      description:
        'The invoice becomes Void: its balance leaves AR (a `void` ledger entry closes it), dunning and automatic collection skip it, ' +
        'no payment can be allocated to it, and the period it billed counts as not billed (a later uncancel bills it again); ' +
        'emits invoice.voided. A Suspended customer left with nothing overdue is reactivated. ' +
        `${REFUSALS}, invoice_has_payments (payments or credits are allocated to it). The body is optional.`,
      params: InvoiceIdParams,
      headers,
      body: z.object({ reason: reason.optional() }).optional(),
      response: { 200: InvoiceResponse },
    },
    config: { idempotency },
    handler: async (request) => voidInvoice(app.ctx, request.caller, request.params.invoiceId, request.body?.reason ?? null),
  });

  app.post('/v1/Invoices/:invoiceId/writeOff', {
    schema: {
      tags,
      summary: "Write off a posted invoice's open balance as a bad debt (an extension; Idempotency-Key: a retry gets the first answer)",
      description:
        'What the invoice still owes is written off (a `write_off` ledger entry, not a payment): the invoice becomes WrittenOff ' +
        '(totalPayments keeps what was paid, outstandingBalance 0), AR falls, dunning stops; emits invoice.writtenOff. ' +
        'A Suspended customer left with nothing overdue is reactivated, as when a payment clears the overdue debt. ' +
        `reason: required, up to ${MAX_REASON} characters. ${REFUSALS}, invoice_nothing_owed (it is paid).`,
      params: InvoiceIdParams,
      headers,
      body: z.object({ reason }),
      response: { 200: InvoiceResponse },
    },
    config: { idempotency },
    handler: async (request) => writeOffInvoice(app.ctx, request.caller, request.params.invoiceId, request.body.reason),
  });
}
