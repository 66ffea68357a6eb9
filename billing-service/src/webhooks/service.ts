import type { Queryable } from '../db/database.js';
import { API_ERROR_KEY } from '../refusals/error-codes.js';
import { Refusal } from '../refusals/refusal.js';
import { randomBytes } from 'node:crypto';
// Endpoints and deliveries run on the wall clock (receivers check signature timestamps against theirs).
import { wallClockNow } from '../clock/account-clock.js';
import type { AppContext } from '../app-context.js';
import { diffFields, recordChange } from '../audit/audit-log.js';
import type { Caller } from '../http/auth.js';
import type { UriBuilder } from '../uri-builder.js';
import {
  deleteEndpoint,
  findDelivery,
  findEndpoint,
  countEndpoints,
  insertEndpoint,
  requeueFailedDelivery,
  rescheduleDeliveryNow,
  updateEndpoint,
  type AttemptRow,
  type DeliveryRow,
  type EndpointRow,
} from '../outbox/webhook-repository.js';
import type {
  CreateWebhookEndpointInput,
  UpdateWebhookEndpointInput,
  WebhookAttemptResponse,
  WebhookDeliveryResponse,
  WebhookEndpointResponse,
} from './schemas.js';
import { checkWebhookUrl, UnsafeUrlError } from '../outbox/url-safety.js';

const ENTITY = 'WebhookEndpoint';

/** A Standard Webhooks secret: `whsec_` and the base64 of 24 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

export function toEndpointResponse(row: EndpointRow, uris: UriBuilder, options: { withSecret?: boolean } = {}): WebhookEndpointResponse {
  return {
    id: row.id,
    url: row.url,
    eventTypes: row.eventTypes,
    description: row.description,
    status: row.status as WebhookEndpointResponse['status'],
    ...(options.withSecret ? { secret: row.secret } : {}),
    failingSinceTimestamp: row.failingSince?.toISOString() ?? null,
    createdTimestamp: row.createdAt.toISOString(),
    modifiedTimestamp: row.modifiedAt.toISOString(),
    uri: uris.resource('webhookEndpoints', row.id),
  };
}

export function toAttemptResponse(row: AttemptRow, uris: UriBuilder): WebhookAttemptResponse {
  return {
    id: Number(row.id),
    deliveryId: Number(row.deliveryId),
    deliveryStatus: row.deliveryStatus as WebhookAttemptResponse['deliveryStatus'],
    eventId: row.eventId,
    eventType: row.eventType,
    attemptedTimestamp: row.attemptedAt.toISOString(),
    httpStatus: row.httpStatus,
    error: row.error,
    durationMs: row.durationMs,
    deliveryUri: uris.resource('webhookDeliveries', Number(row.deliveryId)),
  };
}

export function toDeliveryResponse(row: DeliveryRow, uris: UriBuilder): WebhookDeliveryResponse {
  return {
    id: Number(row.id),
    endpointId: row.endpointId,
    eventId: row.eventId,
    eventType: row.eventType,
    status: row.status as WebhookDeliveryResponse['status'],
    attempts: row.attempts,
    nextAttemptTimestamp: row.status === 'Pending' ? row.nextAttemptAt.toISOString() : null,
    lastHttpStatus: row.lastStatusCode,
    lastError: row.lastError,
    createdTimestamp: row.createdAt.toISOString(),
    deliveredTimestamp: row.deliveredAt?.toISOString() ?? null,
    uri: uris.resource('webhookDeliveries', Number(row.id)),
  };
}

/** `["*"]` alone when "*" is among them; otherwise each type once, in the order given. */
function normalizeEventTypes(types: string[]): string[] {
  return types.includes('*') ? ['*'] : [...new Set(types)];
}

async function checkUrl(ctx: AppContext, url: string): Promise<string> {
  try {
    return (await checkWebhookUrl(url.trim(), ctx.webhookSafety ?? {})).href;
  } catch (error) {
    if (error instanceof UnsafeUrlError) throw Refusal.invalid(error.message, 'url', 'value_invalid');
    throw error;
  }
}

export async function createWebhookEndpoint(
  ctx: AppContext,
  caller: Caller,
  input: CreateWebhookEndpointInput,
): Promise<WebhookEndpointResponse> {
  const url = await checkUrl(ctx, input.url);
  const row = await ctx.db.transaction().execute(async (trx) => {
    const limit = ctx.catalog.webhooks.maxEndpoints;
    if ((await countEndpoints(trx, caller.accountId)) >= limit) {
      throw Refusal.invalid(
        `an account has at most ${limit} webhook endpoints: delete one or send more event types to one`,
        'url',
        'value_invalid',
      );
    }
    const endpoint = await insertEndpoint(trx, {
      accountId: caller.accountId,
      url,
      eventTypes: normalizeEventTypes(input.eventTypes),
      description: input.description ?? null,
      secret: newWebhookSecret(),
    });
    await recordChange(trx, caller, {
      entityType: ENTITY,
      entityId: endpoint.id,
      action: 'create',
      changes: { url: endpoint.url, eventTypes: endpoint.eventTypes, description: endpoint.description, status: endpoint.status },
    });
    return endpoint;
  });
  return toEndpointResponse(row, ctx.uris, { withSecret: true });
}

export async function getWebhookEndpoint(ctx: AppContext, caller: Caller, id: number): Promise<WebhookEndpointResponse> {
  const row = await findEndpoint(ctx.db, caller.accountId, id);
  if (!row) throw Refusal.notFound('webhook endpoint', id);
  return toEndpointResponse(row, ctx.uris);
}

/** Checks the endpoint exists for the caller (child lists). */
export async function requireWebhookEndpoint(ctx: AppContext, caller: Caller, id: number): Promise<void> {
  if (!(await findEndpoint(ctx.db, caller.accountId, id))) throw Refusal.notFound('webhook endpoint', id);
}

/** PUT: the id from the path or the body (both: they must agree). Enabling again clears the failure clock. */
export async function updateWebhookEndpoint(
  ctx: AppContext,
  caller: Caller,
  pathId: number | undefined,
  input: UpdateWebhookEndpointInput,
): Promise<WebhookEndpointResponse> {
  if (pathId !== undefined && input.id !== undefined && pathId !== input.id) {
    throw Refusal.invalid(`id ${input.id} differs from the path's ${pathId}`, 'id', 'value_invalid');
  }
  const id = pathId ?? input.id;
  if (id === undefined) throw Refusal.invalid('required', 'id', 'value_required');
  const url = await checkUrl(ctx, input.url);
  const row = await ctx.db.transaction().execute(async (trx) => {
    const before = await findEndpoint(trx, caller.accountId, id, { forUpdate: true });
    if (!before) throw Refusal.notFound('webhook endpoint', id);
    const status = input.status ?? before.status;
    const after = await updateEndpoint(
      trx,
      caller.accountId,
      id,
      {
        url,
        eventTypes: normalizeEventTypes(input.eventTypes),
        description: input.description ?? null,
        status,
        ...(status === 'Enabled' && before.status !== 'Enabled' ? { failingSince: null } : {}),
      },
      wallClockNow(),
    );
    const changes = diffFields(
      { url: before.url, eventTypes: before.eventTypes, description: before.description, status: before.status },
      { url: after.url, eventTypes: after.eventTypes, description: after.description, status: after.status },
    );
    if (Object.keys(changes).length > 0) await recordChange(trx, caller, { entityType: ENTITY, entityId: id, action: 'update', changes });
    return after;
  });
  return toEndpointResponse(row, ctx.uris);
}

export async function deleteWebhookEndpoint(ctx: AppContext, caller: Caller, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await deleteEndpoint(trx, caller.accountId, id, wallClockNow()))) throw Refusal.notFound('webhook endpoint', id);
    await recordChange(trx, caller, { entityType: ENTITY, entityId: id, action: 'delete', changes: {} });
  });
}

/** A new secret, shown in the response; deliveries are signed with it from now on. */
export async function rotateWebhookSecret(ctx: AppContext, caller: Caller, id: number): Promise<WebhookEndpointResponse> {
  const row = await ctx.db.transaction().execute(async (trx) => {
    if (!(await findEndpoint(trx, caller.accountId, id, { forUpdate: true }))) throw Refusal.notFound('webhook endpoint', id);
    const after = await updateEndpoint(trx, caller.accountId, id, { secret: newWebhookSecret() }, wallClockNow());
    await recordChange(trx, caller, { entityType: ENTITY, entityId: id, action: 'update', changes: { secret: 'rotated' } });
    return after;
  });
  return toEndpointResponse(row, ctx.uris, { withSecret: true });
}

export async function getWebhookDelivery(ctx: AppContext, caller: Caller, id: number): Promise<WebhookDeliveryResponse> {
  const row = await findDelivery(ctx.db, caller.accountId, id);
  if (!row) throw Refusal.notFound('webhook delivery', id);
  return toDeliveryResponse(row, ctx.uris);
}

/** A Failed delivery is Pending again, due now, with a fresh retry schedule (409 when it is not Failed). */
export async function retryWebhookDelivery(ctx: AppContext, caller: Caller, id: number): Promise<WebhookDeliveryResponse> {
  const row = await ctx.db.transaction().execute(async (trx) => {
    const before = await findDelivery(trx, caller.accountId, id);
    if (!before) throw Refusal.notFound('webhook delivery', id);
    if (!(await requeueFailedDelivery(trx, caller.accountId, id, wallClockNow()))) {
      throw Refusal.conflict(
        `webhook delivery ${id} is ${before.status}: only a Failed delivery can be retried`,
        API_ERROR_KEY,
        'state_conflict',
      );
    }
    await recordChange(trx, caller, {
      entityType: 'WebhookDelivery',
      entityId: id,
      action: 'update',
      changes: { status: [before.status, 'Pending'] },
    });
    return readDeliveryAgain(trx, caller, id);
  });
  return toDeliveryResponse(row, ctx.uris);
}

/** Sends a delivery again now, whatever its status (the console's "resend"): the same delivery row, Pending and due now. */
export async function resendWebhookDelivery(ctx: AppContext, caller: Caller, id: number): Promise<WebhookDeliveryResponse> {
  const row = await ctx.db.transaction().execute(async (trx) => {
    const before = await findDelivery(trx, caller.accountId, id);
    if (!before || !(await rescheduleDeliveryNow(trx, caller.accountId, id, wallClockNow())))
      throw Refusal.notFound('webhook delivery', id);
    await recordChange(trx, caller, {
      entityType: 'WebhookDelivery',
      entityId: id,
      action: 'update',
      changes: { status: [before.status, 'Pending'], resent: true },
    });
    return readDeliveryAgain(trx, caller, id);
  });
  return toDeliveryResponse(row, ctx.uris);
}

/** The delivery just changed in this transaction (it exists: the change found it). */
async function readDeliveryAgain(trx: Queryable, caller: Caller, id: number) {
  const row = await findDelivery(trx, caller.accountId, id);
  if (!row) throw new Error(`webhook delivery ${id} vanished inside the transaction that changed it`);
  return row;
}
