import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ingestUsageEvents } from './ingest.js';
import { getSubscriptionUsage, listUsageCharges } from './service.js';
import { SubscriptionUsageResponse, UsageChargeResponse, UsageEventsBody, UsageEventsResponse } from './schemas.js';

const tags = ['Usage'];

/** Usage-based billing (issue 41, an extension of the spec): events in, the current period's usage out. */
export async function usageRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post('/v1/usageEvents', {
    schema: {
      tags,
      summary: 'Send usage events: one event or an array of up to 1,000 (an extension)',
      description:
        'Each event `{transactionId, customerId | customerReference, metricCode, timestamp, properties}` is checked on its own: the ' +
        'answer counts the events stored (`accepted`) and those whose transactionId the account sent before (`duplicates`, not ' +
        'counted again), and lists the refused ones by index with their error items (Key `[i].field`; Codes value_invalid, ' +
        'value_required, not_found, usage_not_charged, usage_out_of_period). Idempotent per event through transactionId, so an ' +
        'Idempotency-Key is optional here.',
      body: UsageEventsBody,
      response: { 200: UsageEventsResponse },
    },
    // every event carries its own idempotency key (transactionId): a batch sent again stores nothing twice
    // a stream's budget (catalogue rateLimits.usageEvents), not the key's 1,000 requests a minute
    config: { idempotency: { afterCommit: 'runAgain' }, rateLimitBudget: 'usageEvents' },
    handler: async (request) => ingestUsageEvents(app.ctx, request.caller, request.body),
  });

  app.get('/v1/usageCharges', {
    schema: {
      tags,
      summary: 'What each plan frequency bills on usage, in arrears: charge model, free units, prices (an extension)',
      response: { 200: z.array(UsageChargeResponse) },
    },
    handler: async () => listUsageCharges(app.ctx.catalog),
  });

  app.get('/v1/subscriptions/:subscriptionId/usage', {
    schema: {
      tags,
      summary: "The current period's usage of a subscription and what it comes to so far",
      params: z.object({ subscriptionId: z.coerce.number().int().positive() }),
      response: { 200: SubscriptionUsageResponse },
    },
    handler: async (request) => getSubscriptionUsage(app.ctx, request.caller, request.params.subscriptionId),
  });
}
