import { sql, type RawBuilder } from 'kysely';
import type { Db, Queryable } from '../db/database.js';
import type { InstanceLiveness } from '../db/instance-liveness.js';
import { isStorableId } from '../db/ids.js';
import { insertJsonRows } from '../db/json-rows.js';
import { reusableQuery } from '../db/reusable-query.js';

// ---------------------------------------------------------------- events (the outbox)

export type EnabledEndpoint = { id: number; eventTypes: string[] };

/**
 * The account's enabled endpoints as one JSON value. A write can select it along with its own
 * work (one round trip fewer) and hand the result to `rememberEnabledEndpoints`.
 */
export const enabledEndpointsJson = (accountId: number | RawBuilder<number>) => sql<EnabledEndpoint[]>`(
  select coalesce(json_agg(json_build_object('id', e.id, 'eventTypes', e.event_types) order by e.id), '[]'::json)
  from webhook_endpoints e where e.account_id = ${accountId} and e.status = 'Enabled' and e.deleted_at is null)`;

// Every write that emits an event reads them: compiled once (see reusableQuery).
const enabledEndpointsRead = reusableQuery((db: Queryable, accountId: number) => db.selectNoFrom(enabledEndpointsJson(accountId).as('endpoints')));
const enabledEndpoints = async (db: Queryable, accountId: number) => (await enabledEndpointsRead(db, accountId))[0]!.endpoints;

const endpointsReadInTransaction = new WeakMap<Queryable, Map<number, Promise<EnabledEndpoint[]>>>();

/**
 * The account's enabled endpoints, with what they subscribe to. Read once per transaction:
 * a write that emits several events (an activation: the customer's and the invoice's) sends
 * them all to the endpoints that one read found, in one round trip.
 */
export function findEnabledEndpoints(db: Queryable, accountId: number): Promise<EnabledEndpoint[]> {
  if (!db.isTransaction) return enabledEndpoints(db, accountId);
  const read = readInTransaction(db);
  let endpoints = read.get(accountId);
  if (!endpoints) read.set(accountId, (endpoints = enabledEndpoints(db, accountId)));
  return endpoints;
}

/** Endpoints a statement of this transaction read (enabledEndpointsJson): its events go to them without another read. */
export function rememberEnabledEndpoints(trx: Queryable, accountId: number, endpoints: EnabledEndpoint[]): void {
  if (trx.isTransaction) readInTransaction(trx).set(accountId, Promise.resolve(endpoints));
}

function readInTransaction(trx: Queryable) {
  let read = endpointsReadInTransaction.get(trx);
  if (!read) endpointsReadInTransaction.set(trx, (read = new Map()));
  return read;
}

export async function insertEvent(
  db: Queryable,
  event: { publicId: string; accountId: number; customerId: number | null; eventType: string; payload: string },
): Promise<number> {
  const inserted = await db.insertInto('webhookEvents').values(event).returning('id').executeTakeFirstOrThrow();
  return Number(inserted.id);
}

/** Several events in one statement (a batch of changes); their ids in the order given. */
export function insertEvents(db: Queryable, events: Array<{ publicId: string; accountId: number; customerId: number | null; eventType: string; payload: unknown }>): Promise<number[]> {
  const rows = events.map((e) => ({ public_id: e.publicId, account_id: e.accountId, customer_id: e.customerId, event_type: e.eventType, payload: e.payload }));
  return insertJsonRows(db, 'webhook_events', 'public_id text, account_id integer, customer_id integer, event_type text, payload jsonb', rows, true);
}

export async function insertDeliveries(db: Queryable, deliveries: Array<{ accountId: number; eventId: number; endpointId: number; customerId: number | null }>) {
  if (deliveries.length === 0) return;
  await db.insertInto('webhookDeliveries').values(deliveries).execute();
}

// ---------------------------------------------------------------- endpoints

const ENDPOINT_COLUMNS = ['id', 'accountId', 'url', 'eventTypes', 'description', 'status', 'secret', 'failingSince', 'createdAt', 'modifiedAt'] as const;

/** The account's endpoints that are not deleted (the list's base query). */
export function selectEndpoints(db: Queryable, accountId: number) {
  return db
    .selectFrom('webhookEndpoints')
    .select([...ENDPOINT_COLUMNS])
    .where('webhookEndpoints.accountId', '=', accountId)
    .where('webhookEndpoints.deletedAt', 'is', null);
}

export type EndpointRow = Awaited<ReturnType<ReturnType<typeof selectEndpoints>['executeTakeFirstOrThrow']>>;

export async function findEndpoint(db: Queryable, accountId: number, id: number, options: { forUpdate?: boolean } = {}): Promise<EndpointRow | undefined> {
  if (!isStorableId(id)) return undefined;
  let query = selectEndpoints(db, accountId).where('webhookEndpoints.id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function insertEndpoint(
  db: Queryable,
  endpoint: { accountId: number; url: string; eventTypes: string[]; description: string | null; secret: string },
): Promise<EndpointRow> {
  return db
    .insertInto('webhookEndpoints')
    .values({ ...endpoint, eventTypes: JSON.stringify(endpoint.eventTypes) })
    .returning([...ENDPOINT_COLUMNS])
    .executeTakeFirstOrThrow();
}

export async function updateEndpoint(
  db: Queryable,
  accountId: number,
  id: number,
  changes: { url?: string; eventTypes?: string[]; description?: string | null; status?: string; secret?: string; failingSince?: Date | null },
  now: Date,
): Promise<EndpointRow> {
  const { eventTypes, ...rest } = changes;
  return db
    .updateTable('webhookEndpoints')
    .set({ ...rest, ...(eventTypes ? { eventTypes: JSON.stringify(eventTypes) } : {}), modifiedAt: now })
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .where('deletedAt', 'is', null)
    .returning([...ENDPOINT_COLUMNS])
    .executeTakeFirstOrThrow();
}

/** Soft delete; its deliveries still waiting are given up (Failed). */
export async function deleteEndpoint(db: Queryable, accountId: number, id: number, now: Date): Promise<boolean> {
  if (!isStorableId(id)) return false;
  const deleted = await db
    .updateTable('webhookEndpoints')
    .set({ deletedAt: now, modifiedAt: now })
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .where('deletedAt', 'is', null)
    .returning('id')
    .executeTakeFirst();
  if (!deleted) return false;
  await db
    .updateTable('webhookDeliveries')
    .set({ status: 'Failed', lastError: 'endpoint deleted', claimedUntil: null })
    .where('endpointId', '=', id)
    .where('status', '=', 'Pending')
    .execute();
  return true;
}

// ---------------------------------------------------------------- deliveries and attempts

/** Every attempt made for an endpoint, with its delivery's event (the list's base query). */
export function selectAttempts(db: Queryable, accountId: number, endpointId: number) {
  return db
    .selectFrom('webhookDeliveryAttempts')
    .innerJoin('webhookDeliveries', 'webhookDeliveries.id', 'webhookDeliveryAttempts.deliveryId')
    .innerJoin('webhookEvents', 'webhookEvents.id', 'webhookDeliveries.eventId')
    .select([
      'webhookDeliveryAttempts.id as id',
      'webhookDeliveryAttempts.deliveryId as deliveryId',
      'webhookDeliveryAttempts.attemptedAt as attemptedAt',
      'webhookDeliveryAttempts.httpStatus as httpStatus',
      'webhookDeliveryAttempts.error as error',
      'webhookDeliveryAttempts.durationMs as durationMs',
      'webhookDeliveries.status as deliveryStatus',
      'webhookEvents.publicId as eventId',
      'webhookEvents.eventType as eventType',
    ])
    .where('webhookDeliveries.accountId', '=', accountId)
    .where('webhookDeliveries.endpointId', '=', endpointId);
}

export type AttemptRow = Awaited<ReturnType<ReturnType<typeof selectAttempts>['executeTakeFirstOrThrow']>>;

function selectDeliveries(db: Queryable, accountId: number) {
  return db
    .selectFrom('webhookDeliveries')
    .innerJoin('webhookEvents', 'webhookEvents.id', 'webhookDeliveries.eventId')
    .innerJoin('webhookEndpoints', 'webhookEndpoints.id', 'webhookDeliveries.endpointId')
    .select([
      'webhookDeliveries.id as id',
      'webhookDeliveries.endpointId as endpointId',
      'webhookDeliveries.status as status',
      'webhookDeliveries.attempts as attempts',
      'webhookDeliveries.nextAttemptAt as nextAttemptAt',
      'webhookDeliveries.lastStatusCode as lastStatusCode',
      'webhookDeliveries.lastError as lastError',
      'webhookDeliveries.createdAt as createdAt',
      'webhookDeliveries.deliveredAt as deliveredAt',
      'webhookEvents.publicId as eventId',
      'webhookEvents.eventType as eventType',
    ])
    .where('webhookDeliveries.accountId', '=', accountId)
    .where('webhookEndpoints.deletedAt', 'is', null);
}

export type DeliveryRow = Awaited<ReturnType<ReturnType<typeof selectDeliveries>['executeTakeFirstOrThrow']>>;

export async function findDelivery(db: Queryable, accountId: number, id: number): Promise<DeliveryRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return selectDeliveries(db, accountId).where('webhookDeliveries.id', '=', id).executeTakeFirst();
}

/** A Failed delivery becomes Pending, due `now`, with a fresh retry schedule; false when it was not Failed. */
export async function requeueFailedDelivery(db: Queryable, accountId: number, id: number, now: Date): Promise<boolean> {
  const row = await db
    .updateTable('webhookDeliveries')
    .set({ status: 'Pending', attempts: 0, nextAttemptAt: now, claimedUntil: null })
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .where('status', '=', 'Failed')
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** A delivery claimed by a worker, with what it needs to send it. */
export interface ClaimedDelivery {
  id: number;
  accountId: number;
  endpointId: number;
  attempts: number;
  url: string;
  secret: string;
  eventPublicId: string;
  eventType: string;
  payload: unknown;
}

/**
 * Takes up to `limit` deliveries due at `now`, for this instance alone (SKIP LOCKED), and marks them
 * claimed by it until `now + leaseMs`: if the instance dies mid-send, another takes them as soon as its
 * heartbeat is stale (seconds), or after the lease (a send that hung).
 * Only enabled, undeleted endpoints' deliveries are taken, and a delivery with a customer only when
 * no older delivery to the same endpoint for the same customer is still Pending: per endpoint and
 * customer, events arrive in order, each after the previous one succeeded or finally failed.
 */
export async function claimDueDeliveries(db: Db, instance: InstanceLiveness, now: Date, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  return db.transaction().execute(async (trx) => {
    const due = await trx
      .selectFrom('webhookDeliveries as d')
      .innerJoin('webhookEndpoints as e', 'e.id', 'd.endpointId')
      .select('d.id')
      .where('d.status', '=', 'Pending')
      .where('d.nextAttemptAt', '<=', now)
      .where((eb) => eb.or([eb('d.claimedUntil', 'is', null), eb('d.claimedUntil', '<=', now), instance.holderGone('d.claimed_by')]))
      .where('e.status', '=', 'Enabled')
      .where('e.deletedAt', 'is', null)
      .where((eb) =>
        eb.or([
          eb('d.customerId', 'is', null),
          eb.not(
            eb.exists(
              eb
                .selectFrom('webhookDeliveries as older')
                .select(sql`1`.as('one'))
                .whereRef('older.endpointId', '=', 'd.endpointId')
                .whereRef('older.customerId', '=', 'd.customerId')
                .whereRef('older.id', '<', 'd.id')
                .where('older.status', '=', 'Pending'),
            ),
          ),
        ]),
      )
      .orderBy('d.id')
      .limit(limit)
      .forUpdate('d')
      .skipLocked()
      .execute();
    if (due.length === 0) return [];
    const ids = due.map((d) => d.id);
    await trx.updateTable('webhookDeliveries').set({ claimedUntil: new Date(now.getTime() + leaseMs), claimedBy: instance.id }).where('id', 'in', ids).execute();
    const rows = await trx
      .selectFrom('webhookDeliveries as d')
      .innerJoin('webhookEndpoints as e', 'e.id', 'd.endpointId')
      .innerJoin('webhookEvents as v', 'v.id', 'd.eventId')
      .select(['d.id', 'd.accountId', 'd.endpointId', 'd.attempts', 'e.url', 'e.secret', 'v.publicId', 'v.eventType', 'v.payload'])
      .where('d.id', 'in', ids)
      .orderBy('d.id')
      .execute();
    return rows.map((r) => ({
      id: Number(r.id),
      accountId: r.accountId,
      endpointId: r.endpointId,
      attempts: r.attempts,
      url: r.url,
      secret: r.secret,
      eventPublicId: r.publicId,
      eventType: r.eventType,
      payload: r.payload,
    }));
  });
}

/** Frees an instance's claims at once (claims it holds but is not working on: see the delivery worker). */
export async function releaseDeliveryClaimsOf(db: Queryable, instanceId: string) {
  await db.updateTable('webhookDeliveries').set({ claimedBy: null, claimedUntil: null }).where('claimedBy', '=', instanceId).where('status', '=', 'Pending').execute();
}

export async function insertAttempt(db: Queryable, attempt: { deliveryId: number; attemptedAt: Date; httpStatus: number | null; error: string | null; durationMs: number }) {
  await db.insertInto('webhookDeliveryAttempts').values(attempt).execute();
}

export async function markDelivered(db: Queryable, id: number, endpointId: number, now: Date, httpStatus: number) {
  await db
    .updateTable('webhookDeliveries')
    .set({ status: 'Succeeded', deliveredAt: now, attempts: sql`attempts + 1`, lastStatusCode: httpStatus, lastError: null, claimedUntil: null, claimedBy: null })
    .where('id', '=', id)
    .execute();
  await db.updateTable('webhookEndpoints').set({ failingSince: null }).where('id', '=', endpointId).where('failingSince', 'is not', null).execute();
}

/**
 * Records a failed attempt: retried at `retryAt`, or Failed when null. The endpoint's failing_since
 * starts (if not yet); when it is older than `disableAfterMs` the endpoint is Disabled. Returns
 * whether this call disabled it.
 */
export async function markAttemptFailed(
  db: Queryable,
  delivery: { id: number; endpointId: number },
  failure: { now: Date; httpStatus: number | null; error: string | null; retryAt: Date | null; disableAfterMs: number },
): Promise<boolean> {
  await db
    .updateTable('webhookDeliveries')
    .set({
      attempts: sql`attempts + 1`,
      lastStatusCode: failure.httpStatus,
      lastError: failure.error?.slice(0, 1000) ?? null,
      claimedUntil: null,
      claimedBy: null,
      ...(failure.retryAt ? { nextAttemptAt: failure.retryAt } : { status: 'Failed' }),
    })
    .where('id', '=', delivery.id)
    .execute();
  await db
    .updateTable('webhookEndpoints')
    .set({ failingSince: failure.now })
    .where('id', '=', delivery.endpointId)
    .where('failingSince', 'is', null)
    .execute();
  const disabled = await db
    .updateTable('webhookEndpoints')
    .set({ status: 'Disabled', modifiedAt: failure.now })
    .where('id', '=', delivery.endpointId)
    .where('status', '=', 'Enabled')
    .where('failingSince', '<=', new Date(failure.now.getTime() - failure.disableAfterMs))
    .returning('id')
    .executeTakeFirst();
  return disabled !== undefined;
}
