import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import { customerChildListRoute } from '../customers/child-list.js';
import type { ListField } from '../http/lists/index.js';
import { selectPayments } from './repository.js';
import { CollectPaymentBody, PaymentIdParams, PaymentResponse, PAYMENT_METHOD_TYPES, PAYMENT_SOURCES } from './schemas.js';
import { getPayment, toPaymentResponses } from './payment-responses.js';
import { collectPayment } from './record-payment.js';

const tags = ['Payments'];
const paymentListFields: ListField[] = [
  { name: 'Status', type: 'enum', values: ['Succeeded', 'Failed', 'RequiresAction'], expression: sql.ref('payments.status') },
  { name: 'PaymentMethod', type: 'enum', values: PAYMENT_METHOD_TYPES, expression: sql.ref('payments.paymentMethodType') },
  { name: 'Source', type: 'enum', values: PAYMENT_SOURCES, expression: sql.ref('payments.source') },
  { name: 'Reference', type: 'string', expression: sql.ref('payments.reference') },
  { name: 'EffectiveTimestamp', type: 'date', expression: sql.ref('payments.effectiveAt') },
  { name: 'Id', type: 'integer', expression: sql.ref('payments.id') },
];

export async function paymentRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post('/v1/payments', {
    schema: {
      tags,
      summary: 'Collect a payment (Idempotency-Key: a retry never charges twice)',
      body: CollectPaymentBody,
      headers: z.object({ 'idempotency-key': z.string().min(1).max(255).optional() }),
      response: { 200: PaymentResponse },
    },
    // The payment committed under the key is found by it: running again answers it.
    config: { idempotency: { afterCommit: 'runAgain' } },
    handler: async (request) => {
      // The gateway sees the client's key too (collectPayment namespaces it): a retry that reaches the gateway again charges once.
      const key = request.headers['idempotency-key'];
      const idempotencyKey = typeof key === 'string' && key ? key : undefined;
      return collectPayment(app.ctx, request.caller, request.body, undefined, { ...(idempotencyKey ? { idempotencyKey } : {}) });
    },
  });

  app.get('/v1/payments/:paymentId', {
    schema: { tags, summary: 'Read one payment', params: PaymentIdParams, response: { 200: PaymentResponse } },
    handler: async (request) => getPayment(app.ctx, request.caller, request.params.paymentId),
  });

  customerChildListRoute(app, {
    path: '/v1/customers/:customerId/payments',
    tags,
    summary: "List a customer's payments",
    item: PaymentResponse,
    fields: paymentListFields,
    table: 'payments',
    select: (ctx, accountId) => selectPayments(ctx.db, accountId),
    toResponses: (ctx, rows) => toPaymentResponses(ctx.db, ctx.uris, rows),
  });
}
