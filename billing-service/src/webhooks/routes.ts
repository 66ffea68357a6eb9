import { NO_CONTENT_AFTER_COMMIT, readBack } from '../http/idempotency.js';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import { listRoute, ListQuerystring } from '../http/list-route.js';
import type { ListField } from '../http/lists/index.js';
import { selectAttempts, selectEndpoints } from '../outbox/webhook-repository.js';
import {
  CreateWebhookEndpointBody,
  UpdateWebhookEndpointBody,
  WebhookAttemptResponse,
  WebhookDeliveryIdParams,
  WebhookDeliveryResponse,
  WebhookEndpointIdParams,
  WebhookEndpointResponse,
} from './schemas.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookDelivery,
  getWebhookEndpoint,
  requireWebhookEndpoint,
  retryWebhookDelivery,
  rotateWebhookSecret,
  toAttemptResponse,
  toEndpointResponse,
  updateWebhookEndpoint,
} from './service.js';

const tags = ['Webhooks'];

const endpointListFields: ListField[] = [
  { name: 'Id', type: 'integer', expression: sql.ref('webhookEndpoints.id') },
  { name: 'Url', type: 'string', expression: sql.ref('webhookEndpoints.url') },
  { name: 'Description', type: 'string', expression: sql.ref('webhookEndpoints.description') },
  { name: 'Status', type: 'enum', values: ['Enabled', 'Disabled'], expression: sql.ref('webhookEndpoints.status') },
  { name: 'CreatedTimestamp', type: 'date', expression: sql.ref('webhookEndpoints.createdAt') },
  { name: 'ModifiedTimestamp', type: 'date', expression: sql.ref('webhookEndpoints.modifiedAt') },
];

const attemptListFields: ListField[] = [
  { name: 'Id', type: 'integer', expression: sql.ref('webhookDeliveryAttempts.id') },
  { name: 'DeliveryId', type: 'integer', expression: sql.ref('webhookDeliveryAttempts.deliveryId') },
  { name: 'DeliveryStatus', type: 'enum', values: ['Pending', 'Succeeded', 'Failed'], expression: sql.ref('webhookDeliveries.status') },
  { name: 'EventId', type: 'string', expression: sql.ref('webhookEvents.publicId') },
  { name: 'EventType', type: 'string', expression: sql.ref('webhookEvents.eventType') },
  { name: 'AttemptedTimestamp', type: 'date', expression: sql.ref('webhookDeliveryAttempts.attemptedAt') },
  { name: 'HttpStatus', type: 'integer', expression: sql.ref('webhookDeliveryAttempts.httpStatus') },
];

/** Webhook endpoints (private key), their deliveries, and retrying a Failed one. */
export async function webhookRoutes(fastify: FastifyInstance) {
  endpointRoutes(fastify);
  endpointChangeRoutes(fastify);
  deliveryRoutes(fastify);
}

/** Creating, listing, reading and deleting endpoints. */
function endpointRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post('/v1/webhookEndpoints', {
    schema: {
      tags,
      summary: 'Create a webhook endpoint (its secret is shown in this response only)',
      body: CreateWebhookEndpointBody,
      response: { 200: WebhookEndpointResponse },
    },
    config: { idempotency: readBack((r, created) => getWebhookEndpoint(app.ctx, r.caller, created.WebhookEndpoint?.[0] ?? 0)) },
    handler: async (request) => createWebhookEndpoint(app.ctx, request.caller, request.body),
  });

  app.get('/v1/webhookEndpoints', {
    schema: { tags, summary: 'List webhook endpoints', querystring: ListQuerystring, response: { 200: z.array(WebhookEndpointResponse) } },
    handler: async (request, reply) =>
      listRoute(request, reply, {
        fields: endpointListFields,
        defaultSort: { field: 'Id', order: 'Ascending' },
        baseQuery: selectEndpoints(app.ctx.db, request.caller.accountId),
        idColumn: 'webhookEndpoints.id',
        toResponses: (rows) => rows.map((row) => toEndpointResponse(row, app.ctx.uris)),
      }),
  });

  app.get('/v1/webhookEndpoints/:webhookEndpointId', {
    schema: { tags, summary: 'Read a webhook endpoint', params: WebhookEndpointIdParams, response: { 200: WebhookEndpointResponse } },
    handler: async (request) => getWebhookEndpoint(app.ctx, request.caller, request.params.webhookEndpointId),
  });

  app.delete('/v1/webhookEndpoints/:webhookEndpointId', {
    schema: {
      tags,
      summary: 'Delete a webhook endpoint (its waiting deliveries are given up)',
      params: WebhookEndpointIdParams,
      response: { 204: z.null() },
    },
    config: { idempotency: NO_CONTENT_AFTER_COMMIT },
    handler: async (request, reply) => {
      await deleteWebhookEndpoint(app.ctx, request.caller, request.params.webhookEndpointId);
      return reply.code(204).send(null);
    },
  });
}

/** Replacing an endpoint (the id in the path or in the body) and rotating its secret. */
function endpointChangeRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.put('/v1/webhookEndpoints', {
    schema: {
      tags,
      summary: 'Replace a webhook endpoint (id in the body)',
      body: UpdateWebhookEndpointBody,
      response: { 200: WebhookEndpointResponse },
    },
    config: { idempotency: readBack<unknown, { id: number }>((r) => getWebhookEndpoint(app.ctx, r.caller, r.body.id)) },
    handler: async (request) => updateWebhookEndpoint(app.ctx, request.caller, undefined, request.body),
  });

  app.put('/v1/webhookEndpoints/:webhookEndpointId', {
    schema: {
      tags,
      summary: 'Replace a webhook endpoint',
      params: WebhookEndpointIdParams,
      body: UpdateWebhookEndpointBody,
      response: { 200: WebhookEndpointResponse },
    },
    config: {
      idempotency: readBack<{ webhookEndpointId: number }>((r) => getWebhookEndpoint(app.ctx, r.caller, r.params.webhookEndpointId)),
    },
    handler: async (request) => updateWebhookEndpoint(app.ctx, request.caller, request.params.webhookEndpointId, request.body),
  });

  app.post('/v1/webhookEndpoints/:webhookEndpointId/rotateSecret', {
    schema: {
      tags,
      summary: 'Give a webhook endpoint a new secret (shown in this response only)',
      params: WebhookEndpointIdParams,
      response: { 200: WebhookEndpointResponse },
    },
    // A lost answer's secret never reached the client: rotating again gives it one it knows.
    config: { idempotency: { afterCommit: 'runAgain' } },
    handler: async (request) => rotateWebhookSecret(app.ctx, request.caller, request.params.webhookEndpointId),
  });
}

/** What was sent to an endpoint, and sending a Failed delivery again. */
function deliveryRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get('/v1/webhookEndpoints/:webhookEndpointId/deliveries', {
    schema: {
      tags,
      summary: "List a webhook endpoint's delivery attempts",
      params: WebhookEndpointIdParams,
      querystring: ListQuerystring,
      response: { 200: z.array(WebhookAttemptResponse) },
    },
    handler: async (request, reply) => {
      await requireWebhookEndpoint(app.ctx, request.caller, request.params.webhookEndpointId);
      return listRoute(request, reply, {
        fields: attemptListFields,
        defaultSort: { field: 'Id', order: 'Descending' },
        baseQuery: selectAttempts(app.ctx.db, request.caller.accountId, request.params.webhookEndpointId),
        idColumn: 'webhookDeliveryAttempts.id',
        toResponses: (rows) => rows.map((row) => toAttemptResponse(row, app.ctx.uris)),
      });
    },
  });

  app.get('/v1/webhookDeliveries/:webhookDeliveryId', {
    schema: { tags, summary: 'Read a webhook delivery', params: WebhookDeliveryIdParams, response: { 200: WebhookDeliveryResponse } },
    handler: async (request) => getWebhookDelivery(app.ctx, request.caller, request.params.webhookDeliveryId),
  });

  app.post('/v1/webhookDeliveries/:webhookDeliveryId/retry', {
    schema: {
      tags,
      summary: 'Send a Failed webhook delivery again, now',
      params: WebhookDeliveryIdParams,
      response: { 200: WebhookDeliveryResponse },
    },
    config: {
      idempotency: readBack<{ webhookDeliveryId: number }>((r) => getWebhookDelivery(app.ctx, r.caller, r.params.webhookDeliveryId)),
    },
    handler: async (request) => retryWebhookDelivery(app.ctx, request.caller, request.params.webhookDeliveryId),
  });
}
