import { NO_CONTENT_AFTER_COMMIT, readBack } from '../http/idempotency.js';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CustomerIdParams, CustomerResponse } from '../customers/schemas.js';
import { getCustomer } from '../customers/service.js';
import { activateCustomer, activationAnswer } from './activation.js';
import { cancelCustomer, uncancelCustomer } from './cancellation.js';
import { holdCustomer } from './hold.js';
import { SubscriptionIdParams } from '../subscriptions/schemas.js';
import { changeSubscriptionPlan } from './plan-change.js';
import {
  ActivationBody,
  ActivationQuery,
  CancellationBody,
  LifecycleResponse,
  PlanChangeBody,
  PlanChangeResponse,
  UnholdBody,
} from './schemas.js';
import { unholdCustomer } from './unhold.js';

const tags = ['Customer lifecycle'];

export async function lifecycleRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post('/v1/customeractivation', {
    schema: {
      tags,
      summary: 'Activate a Draft customer (preview=true: compute the first invoice only)',
      querystring: ActivationQuery,
      body: ActivationBody,
      response: { 200: LifecycleResponse },
    },
    config: {
      idempotency: readBack<unknown, { customerId: number }>((r, created) =>
        activationAnswer(
          app.ctx,
          r.caller,
          r.body.customerId,
          created.Invoice ?? [],
          (r as unknown as { query: { view?: string } }).query.view !== undefined,
        ),
      ),
    },
    handler: async (request) =>
      activateCustomer(app.ctx, request.caller, request.body, {
        preview: request.query.preview ?? false,
        showZeroDollarCharges: request.query.showZeroDollarCharges,
        sideEffects: request.query.view !== undefined,
      }),
  });

  app.post('/v1/customerhold/:customerId', {
    schema: { tags, summary: 'Put an Active customer on hold', params: CustomerIdParams, response: { 200: CustomerResponse } },
    config: { idempotency: readBack<{ customerId: number }>((r) => getCustomer(app.ctx, r.caller, r.params.customerId)) },
    handler: async (request) => holdCustomer(app.ctx, request.caller, request.params.customerId),
  });

  app.post('/v1/customers/unhold', {
    schema: { tags, summary: 'Return a customer on hold to Active', body: UnholdBody, response: { 200: LifecycleResponse } },
    config: { idempotency: readBack<unknown, { customerId: number }>((r) => getCustomer(app.ctx, r.caller, r.body.customerId)) },
    handler: async (request) => unholdCustomer(app.ctx, request.caller, request.body),
  });

  app.post('/v1/customercancellation', {
    schema: { tags, summary: 'Cancel a customer and its subscriptions', body: CancellationBody, response: { 204: z.null() } },
    config: { idempotency: NO_CONTENT_AFTER_COMMIT },
    handler: async (request, reply) => {
      await cancelCustomer(app.ctx, request.caller, request.body);
      return reply.code(204).send(null);
    },
  });

  app.post('/v1/subscriptions/:subscriptionId/changes', {
    schema: {
      tags: ['Subscriptions'],
      summary:
        'Change the plan frequency or quantities of an Active subscription, prorated (an extension; Idempotency-Key: a retry posts once)',
      params: SubscriptionIdParams,
      body: PlanChangeBody,
      headers: z.object({ 'idempotency-key': z.string().min(1).max(255).optional() }),
      response: { 200: PlanChangeResponse },
    },
    handler: async (request) => changeSubscriptionPlan(app.ctx, request.caller, request.params.subscriptionId, request.body),
  });

  app.post('/v1/customers/uncancel/:customerId', {
    schema: { tags, summary: 'Return a cancelled customer to Active', params: CustomerIdParams, response: { 200: CustomerResponse } },
    config: { idempotency: readBack<{ customerId: number }>((r) => getCustomer(app.ctx, r.caller, r.params.customerId)) },
    handler: async (request) => uncancelCustomer(app.ctx, request.caller, request.params.customerId),
  });
}
