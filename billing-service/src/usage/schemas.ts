import { z } from 'zod';
import { decimalInput } from '../http/field-schemas.js';

/** The most events one request takes. */
export const MAX_EVENTS_PER_REQUEST = 1000;

/**
 * One usage event (issue 41). `transactionId` is the client's id of the event: ingestion is idempotent on it per
 * account (a repeat is a duplicate, counted once). The customer by id or by its reference. `properties`: what the
 * metric reads (a sum/max/latest metric's numeric property, a uniqueCount's value, the filters' properties).
 * Each event is checked on its own: a bad one is refused in the answer's `refused`, the others are stored.
 */
export const UsageEventInput = z.object({
  transactionId: z.string().trim().min(1).max(255),
  customerId: z.number().int().positive().nullish(),
  customerReference: z.string().trim().min(1).max(255).nullish(),
  metricCode: z.string().min(1).max(64),
  timestamp: z.iso.datetime({ offset: true }),
  properties: z.record(z.string().max(64), z.union([z.string().max(200), z.number(), z.boolean(), z.null()])).default({}),
});
export type UsageEventInput = z.infer<typeof UsageEventInput>;

/** The body: one event, or an array of up to 1,000 (validated one by one in the service: a bad one refuses only itself). */
export const UsageEventsBody = z.union([
  z.array(z.unknown()).min(1, 'send at least one event').max(MAX_EVENTS_PER_REQUEST, `at most ${MAX_EVENTS_PER_REQUEST} events a request`),
  z.record(z.string(), z.unknown()),
]);

const ErrorItem = z.object({ Key: z.string(), Value: z.string(), Code: z.string().optional() });

export const UsageEventsResponse = z.object({
  /** Events stored now (counted). */
  accepted: z.number(),
  /** Events whose transactionId the account had sent before: acknowledged, not counted again. */
  duplicates: z.number(),
  /** The events refused, by their index in the request, with the spec's error items (Key `[i].field`). */
  refused: z.array(z.object({ index: z.number(), errors: z.array(ErrorItem) })),
});
export type UsageEventsResponse = z.infer<typeof UsageEventsResponse>;

export const SubscriptionUsageResponse = z.object({
  subscriptionId: z.number(),
  currency: z.string(),
  /** The period the next invoice bills the usage of (UTC dates; end exclusive). */
  periodStart: z.string(),
  periodEnd: z.string(),
  metrics: z.array(
    z.object({
      metricCode: z.string(),
      name: z.string(),
      quantity: z.number(),
      billedUnits: z.number(),
      /** What the quantity so far costs under the plan's charge, rounded to the minor unit. */
      amount: z.number(),
    }),
  ),
  /** The sum of the metrics' amounts. */
  amount: z.number(),
});
export type SubscriptionUsageResponse = z.infer<typeof SubscriptionUsageResponse>;

/**
 * GET /v1/usageCharges (issue 41, an extension): what each plan frequency of the catalogue bills on usage in arrears:
 * per metric the charge model, free units and prices per currency (unit prices may be finer than the minor unit;
 * a tier's upTo null: without end). Kept out of the spec's plan frequency object, whose fields the spec fixes.
 */
export const UsageChargeResponse = z.object({
  planFrequencyId: z.number(),
  metricCode: z.string(),
  name: z.string(),
  model: z.enum(['perUnit', 'package', 'graduated', 'volume']),
  freeUnits: z.number(),
  packageSize: z.number().nullable(),
  prices: z.array(
    z.object({
      currency: z.string(),
      unitAmount: z.string().nullable(),
      packageAmount: z.string().nullable(),
      tiers: z.array(z.object({ upTo: z.number().nullable(), unitAmount: z.string(), flatAmount: z.string() })).nullable(),
    }),
  ),
});
export type UsageChargeResponse = z.infer<typeof UsageChargeResponse>;

/** The most thresholds a subscription has. */
export const MAX_THRESHOLDS = 10;

/** PUT /v1/subscriptions/{id}/usageThresholds: the subscription's thresholds, replacing those it had ([] removes them). */
export const UsageThresholdsBody = z
  .array(z.object({ metricCode: z.string().min(1).max(64), quantity: decimalInput }))
  .max(MAX_THRESHOLDS, `at most ${MAX_THRESHOLDS} thresholds a subscription`);
export type UsageThresholdsBody = z.infer<typeof UsageThresholdsBody>;

export const UsageThresholdsResponse = z.object({
  subscriptionId: z.number(),
  /** By metric, then quantity: each fires usage.thresholdReached and the UsageThresholdReached e-mail once a period. */
  thresholds: z.array(z.object({ metricCode: z.string(), quantity: z.number() })),
});
export type UsageThresholdsResponse = z.infer<typeof UsageThresholdsResponse>;
