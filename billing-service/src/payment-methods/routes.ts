import { NO_CONTENT_AFTER_COMMIT, readBack } from '../http/idempotency.js';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import { customerChildListRoute } from '../customers/child-list.js';
import type { ListField } from '../http/lists/index.js';
import { selectPaymentMethods } from './repository.js';
import { CreateCreditCardBody, CreditCardResponse, PaymentMethodIdParams, UpdateCreditCardBody } from './schemas.js';
import { addCreditCard, getCreditCard, removeCreditCard, toCreditCardResponse, updateCreditCard } from './service.js';

const tags = ['Payment methods'];
const paymentMethodListFields: ListField[] = [
  { name: 'CardType', type: 'string', expression: sql.ref('paymentMethods.cardBrand') },
  { name: 'IsDefault', type: 'enum', values: ['true', 'false'], expression: sql`(payment_methods.is_default::text)` },
  { name: 'ModifiedDate', type: 'date', expression: sql.ref('paymentMethods.modifiedAt') },
  { name: 'Id', type: 'integer', expression: sql.ref('paymentMethods.id') },
];

export async function paymentMethodRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post('/v1/paymentmethods/creditcard', {
    schema: {
      tags,
      summary: 'Validate a card with the gateway and store it (only token, brand, last four and expiry are kept)',
      body: CreateCreditCardBody,
      headers: z.object({ 'idempotency-key': z.string().min(1).max(255).optional() }),
      response: { 200: CreditCardResponse },
    },
    config: { idempotency: readBack((r, created) => getCreditCard(app.ctx, r.caller, created.PaymentMethod?.[0] ?? 0)) },
    handler: async (request) => addCreditCard(app.ctx, request.caller, request.body),
  });

  customerChildListRoute(app, {
    path: '/v1/customers/:customerId/paymentMethods/creditCard',
    tags,
    summary: "List a customer's cards",
    item: CreditCardResponse,
    fields: paymentMethodListFields,
    table: 'paymentMethods',
    select: (ctx, accountId) => selectPaymentMethods(ctx.db, accountId),
    toResponses: (ctx, rows) => rows.map((row) => toCreditCardResponse(row, ctx.uris)),
  });

  app.get('/v1/paymentMethods/:paymentMethodId/creditCard', {
    schema: { tags, summary: 'Read one card', params: PaymentMethodIdParams, response: { 200: CreditCardResponse } },
    handler: async (request) => getCreditCard(app.ctx, request.caller, request.params.paymentMethodId),
  });

  app.put('/v1/paymentMethods/creditCard', {
    schema: {
      tags,
      summary: "Change a card's name, address, expiry or default",
      body: UpdateCreditCardBody,
      response: { 200: CreditCardResponse },
    },
    config: { idempotency: readBack<unknown, { id: number }>((r) => getCreditCard(app.ctx, r.caller, r.body.id)) },
    handler: async (request) => updateCreditCard(app.ctx, request.caller, request.body),
  });

  app.delete('/v1/paymentMethods/:paymentMethodId/creditCard', {
    schema: { tags, summary: 'Clear a card from its customer', params: PaymentMethodIdParams, response: { 204: z.null() } },
    config: { idempotency: NO_CONTENT_AFTER_COMMIT },
    handler: async (request, reply) => {
      await removeCreditCard(app.ctx, request.caller, request.params.paymentMethodId);
      return reply.code(204).send(null);
    },
  });
}
