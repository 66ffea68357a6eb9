import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import { customerChildListRoute } from '../customers/child-list.js';
import { NO_CONTENT_AFTER_COMMIT, readBack } from '../http/idempotency.js';
import type { ListField } from '../http/lists/index.js';
import { selectPurchases } from './repository.js';
import { CreatePurchaseBody, PurchaseIdParams, PurchaseResponse } from './schemas.js';
import { createPurchase, deletePurchase, getPurchase, toPurchaseResponse, type PurchaseInvoicing } from './service.js';

const tags = ['Purchases'];
const purchaseListFields: ListField[] = [
  { name: 'Status', type: 'string', expression: sql.ref('purchases.status') },
  { name: 'ProductCode', type: 'string', expression: sql.ref('purchases.productCode') },
  { name: 'Name', type: 'string', expression: sql.ref('purchases.name') },
  { name: 'CreatedTimestamp', type: 'date', expression: sql.ref('purchases.createdAt') },
  { name: 'Id', type: 'integer', expression: sql.ref('purchases.id') },
];

/** Purchases (issue 40, an extension of the spec). `invoicing`: lifecycle's, handed in by the wiring (app.ts). */
export async function purchaseRoutes(fastify: FastifyInstance, options: { invoicing: PurchaseInvoicing }) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post('/v1/purchases', {
    schema: {
      tags,
      summary: 'Sell a one-time charge to a customer (an extension)',
      body: CreatePurchaseBody,
      response: { 200: PurchaseResponse },
    },
    config: { idempotency: readBack((r, created) => getPurchase(app.ctx, r.caller, created.Purchase?.[0] ?? 0)) },
    handler: async (request) => createPurchase(app.ctx, request.caller, request.body, options.invoicing),
  });

  app.get('/v1/purchases/:purchaseId', {
    schema: { tags, summary: 'Read one purchase', params: PurchaseIdParams, response: { 200: PurchaseResponse } },
    handler: async (request) => getPurchase(app.ctx, request.caller, request.params.purchaseId),
  });

  app.delete('/v1/purchases/:purchaseId', {
    schema: { tags, summary: 'Delete a Draft purchase', params: PurchaseIdParams, response: { 204: z.null() } },
    config: { idempotency: NO_CONTENT_AFTER_COMMIT },
    handler: async (request, reply) => {
      await deletePurchase(app.ctx, request.caller, request.params.purchaseId);
      return reply.code(204).send(null);
    },
  });

  customerChildListRoute(app, {
    path: '/v1/customers/:customerId/purchases',
    tags,
    summary: "List a customer's purchases",
    item: PurchaseResponse,
    fields: purchaseListFields,
    table: 'purchases',
    select: (ctx, accountId) => selectPurchases(ctx.db, accountId),
    toResponses: (ctx, rows) => rows.map((row) => toPurchaseResponse(row, ctx.uris)),
  });
}
