import { Refusal } from '../refusals/refusal.js';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import { customerChildListRoute } from '../customers/child-list.js';
import { ListQuerystring, listRoute } from '../http/list-route.js';
import type { ListField } from '../http/lists/index.js';
import { findPayment } from '../payments/repository.js';
import { PaymentIdParams, PAYMENT_METHOD_TYPES } from '../payments/schemas.js';
import { selectRefunds } from './repository.js';
import { CreateRefundBody, RefundIdParams, RefundResponse, REFUND_STATUSES } from './schemas.js';
import { createRefund, getRefund, toRefundResponses } from './service.js';

const tags = ['Refunds'];
const refundListFields: ListField[] = [
  { name: 'Status', type: 'enum', values: REFUND_STATUSES, expression: sql.ref('refunds.status') },
  { name: 'Method', type: 'enum', values: PAYMENT_METHOD_TYPES, expression: sql.ref('refunds.method') },
  { name: 'Reference', type: 'string', expression: sql.ref('refunds.reference') },
  { name: 'EffectiveTimestamp', type: 'date', expression: sql.ref('refunds.effectiveAt') },
  { name: 'OriginalPaymentId', type: 'integer', expression: sql.ref('refunds.paymentId') },
  { name: 'Id', type: 'integer', expression: sql.ref('refunds.id') },
];

export async function refundRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post('/v1/refunds', {
    schema: {
      tags,
      summary: 'Refund all or part of a succeeded payment (Idempotency-Key: a retry never refunds twice)',
      body: CreateRefundBody,
      headers: z.object({ 'idempotency-key': z.string().min(1).max(255).optional() }),
      response: { 200: RefundResponse },
    },
    // The refund committed under the key is found by it: running again answers it.
    config: { idempotency: { afterCommit: 'runAgain' } },
    handler: async (request) => {
      const key = request.headers['idempotency-key'];
      // The gateway sees the client's key too (namespaced by account): a retry after a gateway timeout refunds the card once.
      const idempotencyKey = typeof key === 'string' && key ? key : undefined;
      return createRefund(app.ctx, request.caller, request.body, undefined, { ...(idempotencyKey ? { idempotencyKey } : {}) });
    },
  });

  app.get('/v1/refunds/:refundId', {
    schema: { tags, summary: 'Read one refund', params: RefundIdParams, response: { 200: RefundResponse } },
    handler: async (request) => getRefund(app.ctx, request.caller, request.params.refundId),
  });

  app.get('/v1/payments/:paymentId/refunds', {
    schema: {
      tags,
      summary: "List a payment's refunds",
      params: PaymentIdParams,
      querystring: ListQuerystring,
      response: { 200: z.array(RefundResponse) },
    },
    handler: async (request, reply) => {
      const { paymentId } = request.params;
      if (!(await findPayment(app.ctx.db, request.caller.accountId, paymentId))) throw Refusal.notFound('payment', paymentId);
      return listRoute(request, reply, {
        fields: refundListFields,
        defaultSort: { field: 'Id', order: 'Ascending' },
        baseQuery: selectRefunds(app.ctx.db, request.caller.accountId).where('refunds.paymentId', '=', paymentId),
        idColumn: 'refunds.id',
        toResponses: (rows) => toRefundResponses(app.ctx.db, app.ctx.uris, rows),
      });
    },
  });

  customerChildListRoute(app, {
    path: '/v1/customers/:customerId/refunds',
    tags,
    summary: "List a customer's refunds",
    item: RefundResponse,
    fields: refundListFields,
    table: 'refunds',
    select: (ctx, accountId) => selectRefunds(ctx.db, accountId),
    toResponses: (ctx, rows) => toRefundResponses(ctx.db, ctx.uris, rows),
  });
}
