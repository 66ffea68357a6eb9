import { z } from 'zod';
import { optionalText } from '../http/field-schemas.js';
import { WEBHOOK_EVENT_TYPES } from '../outbox/webhook-events.js';

export const WEBHOOK_ENDPOINT_STATUSES = ['Enabled', 'Disabled'] as const;

const url = z.string().min(1, 'required').max(2000, 'must be at most 2000 characters');
const eventTypes = z
  .array(z.enum(['*', ...WEBHOOK_EVENT_TYPES], { message: `must be "*" or one of ${WEBHOOK_EVENT_TYPES.join(', ')}` }))
  .min(1, 'must list at least one event type, or "*" for all')
  .max(100);

export const CreateWebhookEndpointBody = z.object({
  url,
  eventTypes,
  description: optionalText(500),
});
export type CreateWebhookEndpointInput = z.infer<typeof CreateWebhookEndpointBody>;

/** PUT replaces: url and eventTypes given, description left out becomes null, status left out stays. */
export const UpdateWebhookEndpointBody = z.object({
  id: z.number().int().positive().optional(),
  url,
  eventTypes,
  description: optionalText(500),
  status: z.enum(WEBHOOK_ENDPOINT_STATUSES).optional(),
});
export type UpdateWebhookEndpointInput = z.infer<typeof UpdateWebhookEndpointBody>;

export const WebhookEndpointIdParams = z.object({ webhookEndpointId: z.coerce.number().int().positive() });
export const WebhookDeliveryIdParams = z.object({ webhookDeliveryId: z.coerce.number().int().positive() });

export const WebhookEndpointResponse = z.object({
  id: z.number(),
  url: z.string(),
  eventTypes: z.array(z.string()),
  description: z.string().nullable(),
  status: z.enum(WEBHOOK_ENDPOINT_STATUSES),
  /** Shown on creation and on rotateSecret only. */
  secret: z.string().optional(),
  /** Since when deliveries fail without a success (null: healthy); a day of it disables the endpoint. */
  failingSinceTimestamp: z.string().nullable(),
  createdTimestamp: z.string(),
  modifiedTimestamp: z.string(),
  uri: z.string(),
});
export type WebhookEndpointResponse = z.infer<typeof WebhookEndpointResponse>;

export const WebhookAttemptResponse = z.object({
  id: z.number(),
  deliveryId: z.number(),
  deliveryStatus: z.enum(['Pending', 'Succeeded', 'Failed']),
  eventId: z.string(),
  eventType: z.string(),
  attemptedTimestamp: z.string(),
  httpStatus: z.number().nullable(),
  error: z.string().nullable(),
  durationMs: z.number(),
  deliveryUri: z.string(),
});
export type WebhookAttemptResponse = z.infer<typeof WebhookAttemptResponse>;

export const WebhookDeliveryResponse = z.object({
  id: z.number(),
  endpointId: z.number(),
  eventId: z.string(),
  eventType: z.string(),
  status: z.enum(['Pending', 'Succeeded', 'Failed']),
  attempts: z.number(),
  nextAttemptTimestamp: z.string().nullable(),
  lastHttpStatus: z.number().nullable(),
  lastError: z.string().nullable(),
  createdTimestamp: z.string(),
  deliveredTimestamp: z.string().nullable(),
  uri: z.string(),
});
export type WebhookDeliveryResponse = z.infer<typeof WebhookDeliveryResponse>;
