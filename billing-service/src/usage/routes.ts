import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ingestUsageEvents } from './ingest.js';
import { getSubscriptionUsage, listUsageCharges } from './service.js';
import {
  SubscriptionUsageResponse,
  UsageChargeResponse,
  UsageEventsBody,
  UsageEventsResponse,
  UsageThresholdsBody,
  UsageThresholdsResponse,
} from './schemas.js';
import { getUsageThresholds, putUsageThresholds } from './thresholds.js';

const tags = ['Usage'];
const SubscriptionParams = z.object({ subscriptionId: z.coerce.number().int().positive() });

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
      params: SubscriptionParams,
      response: { 200: SubscriptionUsageResponse },
    },
    handler: async (request) => getSubscriptionUsage(app.ctx, request.caller, request.params.subscriptionId),
  });

  app.get('/v1/subscriptions/:subscriptionId/usageThresholds', {
    schema: { tags, summary: "A subscription's usage thresholds", params: SubscriptionParams, response: { 200: UsageThresholdsResponse } },
    handler: async (request) => getUsageThresholds(app.ctx, request.caller, request.params.subscriptionId),
  });

  app.put('/v1/subscriptions/:subscriptionId/usageThresholds', {
    schema: {
      tags,
      summary: "Replace a subscription's usage thresholds (an extension)",
      description:
        "An array of up to 10 `{metricCode, quantity}`: a metric the subscription's plan charges (else 400, Key `[i].metricCode`) and a " +
        'positive quantity. When an event batch brings the quantity of the current unbilled period to a threshold or past it, ' +
        'usage.thresholdReached is emitted and the customer gets the UsageThresholdReached e-mail, once per threshold and period.',
      params: SubscriptionParams,
      body: UsageThresholdsBody,
      response: { 200: UsageThresholdsResponse },
    },
    // replacing the set again answers the same
    config: { idempotency: { afterCommit: 'runAgain' } },
    handler: async (request) => putUsageThresholds(app.ctx, request.caller, request.params.subscriptionId, request.body),
  });
}
