import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AuditResponse,
  BulkJobsQuery,
  BulkJobsResponse,
  CustomerEventsResponse,
  CustomerParams,
  DeliveriesQuery,
  DeliveriesResponse,
  DeliveryParams,
  DunningQuery,
  DunningResponse,
  EmailsQuery,
  EmailsResponse,
  PageQuery,
  PaymentsQuery,
  PaymentsResponse,
  ResendResponse,
  RevenueQuery,
  RevenueResponse,
} from './schemas.js';
import {
  bulkJobs,
  customerAudit,
  customerWebhookEvents,
  dunning,
  emails,
  payments,
  resendDelivery,
  revenue,
  webhookDeliveries,
} from './service.js';
import { WEBHOOK_EVENT_TYPES } from '../../outbox/webhook-events.js';
import { sendTestWebhookEvent } from '../../webhooks/test-event.js';
import { callerOf } from '../operator.js';
import { searchAndExportRoutes } from './export-routes.js';

const tags = ['Console'];
// No API key: the console's session plugin authenticates these routes (cookie) and checks the role.
const viewer = { public: true, consolePermission: 'console:read' } as const;
const owner = { public: true, consolePermission: 'webhooks:write' } as const;

/** The console's reads (README "Merchant console"); `request.operator` is set by the console's session plugin. */
export async function consoleReadRoutes(fastify: FastifyInstance) {
  moneyRoutes(fastify);
  activityRoutes(fastify);
  webhookRoutes(fastify);
  outboxRoutes(fastify);
  searchAndExportRoutes(fastify);
}

/** Revenue, payments and dunning. */
function moneyRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const ctx = () => app.ctx;

  app.get('/console/api/revenue', {
    config: viewer,
    schema: {
      tags,
      summary: 'MRR by month and currency, its movements, subscribers and churn',
      querystring: RevenueQuery,
      response: { 200: RevenueResponse },
    },
    handler: async (request) => revenue(ctx(), request.operator, request.query.months),
  });

  app.get('/console/api/payments', {
    config: viewer,
    schema: { tags, summary: 'Payments, failures first, newest first', querystring: PaymentsQuery, response: { 200: PaymentsResponse } },
    handler: async (request) => payments(ctx(), request.operator, request.query),
  });

  app.get('/console/api/dunning', {
    config: viewer,
    schema: {
      tags,
      summary: 'Customers in Collection or PoorStanding, with days to suspension',
      querystring: DunningQuery,
      response: { 200: DunningResponse },
    },
    handler: async (request) => dunning(ctx(), request.operator, request.query.limit),
  });
}

/** A customer's audit trail and webhook events. */
function activityRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const ctx = () => app.ctx;

  app.get('/console/api/customers/:id/audit', {
    config: viewer,
    schema: {
      tags,
      summary: "A customer's audit trail and its rows', newest first",
      params: CustomerParams,
      querystring: PageQuery,
      response: { 200: AuditResponse },
    },
    handler: async (request) => customerAudit(ctx(), request.operator, request.params.id, request.query),
  });

  app.get('/console/api/customers/:id/webhook-events', {
    config: viewer,
    schema: {
      tags,
      summary: "A customer's webhook events and their deliveries, newest first",
      params: CustomerParams,
      querystring: PageQuery,
      response: { 200: CustomerEventsResponse },
    },
    handler: async (request) => customerWebhookEvents(ctx(), request.operator, request.params.id, request.query),
  });
}

/** Webhook deliveries, event types and the test event. */
function webhookRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const ctx = () => app.ctx;

  app.get('/console/api/webhook-deliveries', {
    config: viewer,
    schema: { tags, summary: 'Webhook deliveries, newest first', querystring: DeliveriesQuery, response: { 200: DeliveriesResponse } },
    handler: async (request) => webhookDeliveries(ctx(), request.operator, request.query),
  });

  app.post('/console/api/webhook-deliveries/:id/resend', {
    config: owner,
    schema: {
      tags,
      summary: 'Send a webhook delivery again now (the same delivery)',
      params: DeliveryParams,
      response: { 202: ResendResponse },
    },
    handler: async (request, reply) => reply.code(202).send(await resendDelivery(ctx(), request.operator, request.params.id)),
  });

  app.get('/console/api/webhook-event-types', {
    config: viewer,
    schema: {
      tags,
      summary: 'The event types a webhook endpoint can subscribe to',
      response: { 200: z.object({ eventTypes: z.array(z.string()) }) },
    },
    handler: async () => ({ eventTypes: [...WEBHOOK_EVENT_TYPES] }),
  });

  app.post('/console/api/webhook-endpoints/:id/test', {
    config: owner,
    schema: {
      tags,
      summary: 'Send a test event (webhookEndpoint.test) to one enabled endpoint',
      params: DeliveryParams,
      response: { 202: z.object({ eventId: z.string() }) },
    },
    handler: async (request, reply) =>
      reply.code(202).send(await sendTestWebhookEvent(ctx(), callerOf(request.operator), request.params.id)),
  });
}

/** The e-mail outbox and the bulk payment jobs. */
function outboxRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const ctx = () => app.ctx;

  app.get('/console/api/emails', {
    config: viewer,
    schema: { tags, summary: 'The e-mail outbox, newest first', querystring: EmailsQuery, response: { 200: EmailsResponse } },
    handler: async (request) => emails(ctx(), request.operator, request.query),
  });

  app.get('/console/api/bulk-jobs', {
    config: viewer,
    schema: {
      tags,
      summary: 'Bulk payment jobs, newest first, with their records counted by status',
      querystring: BulkJobsQuery,
      response: { 200: BulkJobsResponse },
    },
    handler: async (request) => bulkJobs(ctx(), request.operator, request.query),
  });
}
