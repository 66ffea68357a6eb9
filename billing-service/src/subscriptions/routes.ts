import { readBack } from '../http/idempotency.js';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { customerChildListRoute } from '../customers/child-list.js';
import type { ListField } from '../http/lists/index.js';
import { selectSubscriptions } from './repository.js';
import {
  CreateSubscriptionBody,
  SubscriptionIdParams,
  SubscriptionProductParams,
  SubscriptionProductResponse,
  SubscriptionResponse,
  SUBSCRIPTION_STATUSES,
  UpdateSubscriptionBody,
} from './schemas.js';
import { createSubscription, getSubscription, getSubscriptionProduct, updateSubscription, withdrawPendingChange } from './service.js';
import { toSubscriptionResponses } from './subscription-response.js';

const tags = ['Subscriptions'];
const subscriptionListFields: ListField[] = [
  { name: 'Status', type: 'enum', values: SUBSCRIPTION_STATUSES, expression: sql.ref('subscriptions.status') },
  { name: 'PlanCode', type: 'string', expression: sql.ref('plans.code') },
  { name: 'PlanName', type: 'string', expression: sql.ref('plans.name') },
  { name: 'Name', type: 'string', expression: sql.ref('subscriptions.name') },
  { name: 'Reference', type: 'string', expression: sql.ref('subscriptions.reference') },
  { name: 'CreatedTimestamp', type: 'date', expression: sql.ref('subscriptions.createdAt') },
  { name: 'ActivatedTimestamp', type: 'date', expression: sql.ref('subscriptions.activatedAt') },
  { name: 'Id', type: 'integer', expression: sql.ref('subscriptions.id') },
];

export async function subscriptionRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post('/v1/subscriptions', {
    schema: {
      tags,
      summary: 'Create a Draft subscription of a plan frequency',
      body: CreateSubscriptionBody,
      response: { 200: SubscriptionResponse },
    },
    config: { idempotency: readBack((r, created) => getSubscription(app.ctx, r.caller, created.Subscription?.[0] ?? 0)) },
    handler: async (request) => createSubscription(app.ctx, request.caller, request.body),
  });

  app.get('/v1/subscriptions/:subscriptionId', {
    schema: { tags, summary: 'Read one subscription', params: SubscriptionIdParams, response: { 200: SubscriptionResponse } },
    handler: async (request) => getSubscription(app.ctx, request.caller, request.params.subscriptionId),
  });

  app.delete('/v1/subscriptions/:subscriptionId/changes/pending', {
    schema: {
      tags,
      summary: 'Withdraw the plan change scheduled for the period end (an extension; 404 keyed id when none is pending)',
      params: SubscriptionIdParams,
      response: { 200: SubscriptionResponse },
    },
    config: { idempotency: readBack<{ subscriptionId: number }>((r) => getSubscription(app.ctx, r.caller, r.params.subscriptionId)) },
    handler: async (request) => withdrawPendingChange(app.ctx, request.caller, request.params.subscriptionId),
  });

  app.get('/v1/subscriptions/:subscriptionId/subscriptionProducts/:subscriptionProductId', {
    schema: {
      tags,
      summary: 'Read one product of a subscription',
      params: SubscriptionProductParams,
      response: { 200: SubscriptionProductResponse },
    },
    handler: async (request) =>
      getSubscriptionProduct(app.ctx, request.caller, request.params.subscriptionId, request.params.subscriptionProductId),
  });

  app.put('/v1/subscriptions', {
    schema: {
      tags,
      summary: "Replace a subscription's customisation (read, modify, send back)",
      body: UpdateSubscriptionBody,
      response: { 200: SubscriptionResponse },
    },
    config: { idempotency: readBack<unknown, { id: number }>((r) => getSubscription(app.ctx, r.caller, r.body.id)) },
    handler: async (request) => updateSubscription(app.ctx, request.caller, request.body),
  });

  customerChildListRoute(app, {
    path: '/v1/customers/:customerId/subscriptions',
    tags,
    summary: "List a customer's subscriptions",
    item: SubscriptionResponse,
    fields: subscriptionListFields,
    table: 'subscriptions',
    select: (ctx, accountId) => selectSubscriptions(ctx.db, accountId),
    toResponses: (ctx, rows) => toSubscriptionResponses(ctx.db, ctx.catalog, ctx.uris, rows),
  });
}
