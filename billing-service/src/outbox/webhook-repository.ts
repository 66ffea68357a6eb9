import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db, Queryable } from '../db/database.js';
import type { InstanceLiveness } from '../db/instance-liveness.js';
import { newClaimToken } from '../db/claims.js';
import { isStorableId } from '../db/ids.js';
import { insertJsonRows } from '../db/json-rows.js';
import { reusableQuery } from '../db/reusable-query.js';
import { readOncePerTransaction, rememberInTransaction } from '../db/transaction-cache.js';

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
const enabledEndpointsRead = reusableQuery((db: Queryable, accountId: number) =>
  db.selectNoFrom(enabledEndpointsJson(accountId).as('endpoints')),
);
const enabledEndpoints = async (db: Queryable, accountId: number) => (await enabledEndpointsRead(db, accountId))[0]?.endpoints ?? [];

const endpointsKey = (accountId: number) => `enabled webhook endpoints of account ${accountId}`;

/**
 * The account's enabled endpoints, with what they subscribe to. Read once per transaction:
 * a write that emits several events (an activation: the customer's and the invoice's) sends
 * them all to the endpoints that one read found, in one round trip.
 */
export function findEnabledEndpoints(db: Queryable, accountId: number): Promise<EnabledEndpoint[]> {
  return readOncePerTransaction(db, endpointsKey(accountId), () => enabledEndpoints(db, accountId));
}

/** Endpoints a statement of this transaction read (enabledEndpointsJson): its events go to them without another read. */
export function rememberEnabledEndpoints(trx: Queryable, accountId: number, endpoints: EnabledEndpoint[]): void {
  rememberInTransaction(trx, endpointsKey(accountId), endpoints);
}

export async function insertEvent(
  db: Queryable,
  event: { publicId: string; accountId: number; customerId: number | null; eventType: string; payload: string },
): Promise<number> {
  const inserted = await db.insertInto('webhookEvents').values(event).returning('id').executeTakeFirstOrThrow();
  return Number(inserted.id);
}

/** Several events in one statement (a batch of changes); their ids in the order given. */
export function insertEvents(
  db: Queryable,
  events: Array<{ publicId: string; accountId: number; customerId: number | null; eventType: string; payload: unknown }>,
): Promise<number[]> {
  const rows = events.map((e) => ({
    public_id: e.publicId,
    account_id: e.accountId,
    customer_id: e.customerId,
    event_type: e.eventType,
    payload: e.payload,
  }));
  return insertJsonRows(
    db,
    'webhook_events',
    'public_id text, account_id integer, customer_id integer, event_type text, payload jsonb',
    rows,
    true,
  );
}

export async function insertDeliveries(
  db: Queryable,
  deliveries: Array<{ accountId: number; eventId: number; endpointId: number; customerId: number | null }>,
) {
  if (deliveries.length === 0) return;
  await db.insertInto('webhookDeliveries').values(deliveries).execute();
}

// ---------------------------------------------------------------- endpoints

const ENDPOINT_COLUMNS = [
  'id',
  'accountId',
  'url',
  'eventTypes',
  'description',
  'status',
  'secret',
  'failingSince',
  'createdAt',
  'modifiedAt',
] as const;

/** The account's endpoints that are not deleted (the list's base query). */
export function selectEndpoints(db: Queryable, accountId: number) {
  return db
    .selectFrom('webhookEndpoints')
    .select([...ENDPOINT_COLUMNS])
    .where('webhookEndpoints.accountId', '=', accountId)
    .where('webhookEndpoints.deletedAt', 'is', null);
}

export type EndpointRow = Awaited<ReturnType<ReturnType<typeof selectEndpoints>['executeTakeFirstOrThrow']>>;

export async function findEndpoint(
  db: Queryable,
  accountId: number,
  id: number,
  options: { forUpdate?: boolean } = {},
): Promise<EndpointRow | undefined> {
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
  changes: {
    url?: string;
    eventTypes?: string[];
    description?: string | null;
    status?: string;
    secret?: string;
    failingSince?: Date | null;
  },
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

/**
 * Sends a delivery again now: a Succeeded or Failed one becomes Pending, due `now`, with a fresh retry schedule; a
 * Pending one is only brought forward (its claim, if a worker is sending it, stands). The same row: never a second
 * delivery of the event to the endpoint. False when the account has no such delivery.
 */
export async function rescheduleDeliveryNow(db: Queryable, accountId: number, id: number, now: Date): Promise<boolean> {
  if (!isStorableId(id)) return false;
  const waiting = sql<SqlBool>`status = 'Pending'`;
  const row = await db
    .updateTable('webhookDeliveries')
    .set({
      nextAttemptAt: sql<Date>`case when ${waiting} then least(next_attempt_at, ${now}) else ${now} end`,
      attempts: sql<number>`case when ${waiting} then attempts else 0 end`,
      claimedUntil: sql<Date | null>`case when ${waiting} then claimed_until end`,
      claimedBy: sql<string | null>`case when ${waiting} then claimed_by end`,
      status: 'Pending',
    })
    .where('accountId', '=', accountId)
    .where('id', '=', id)
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
  /** The claim's fencing token (db/claims.ts): only its holder records the attempt. */
  claimToken: string;
}

/** Deliveries in flight to one endpoint at once, unless the worker is told otherwise. */
export const WEBHOOK_SENDS_PER_ENDPOINT = 8;

/**
 * Takes up to `limit` deliveries due at `now`, for this instance alone (SKIP LOCKED), and marks them
 * claimed by it until `now + leaseMs`: if the instance dies mid-send, another takes them as soon as its
 * heartbeat is stale (seconds), or after the lease (a send that hung).
 * Only enabled, undeleted endpoints' deliveries are taken, and a delivery with a customer only when
 * no older delivery to the same endpoint for the same customer is still Pending: per endpoint and
 * customer, events arrive in order, each after the previous one succeeded or finally failed.
 * Fairness: an endpoint never has more than `perEndpoint` deliveries claimed at once (by any live
 * instance), and the deliveries are taken round robin, each account's first before any account's
 * second, and within an account each endpoint's first before any endpoint's second; so a slow
 * endpoint holds only its own slots and a busy account does not take every free one.
 */
export async function claimDueDeliveries(
  db: Db,
  instance: InstanceLiveness,
  now: Date,
  limit: number,
  leaseMs: number,
  perEndpoint = WEBHOOK_SENDS_PER_ENDPOINT,
): Promise<ClaimedDelivery[]> {
  return db.transaction().execute(async (trx) => {
    const claimable = sql<SqlBool>`(d.claimed_until is null or d.claimed_until <= ${now} or ${instance.holderGone('d.claimed_by')})`;
    // Ranked without a lock (window functions cannot be locked), then locked and checked again.
    const due = await sql<{ id: number }>`
      with due as (
        select d.id, d.account_id, row_number() over (partition by d.endpoint_id order by d.id) as endpoint_rank, d.endpoint_id
        from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
        where d.status = 'Pending' and d.next_attempt_at <= ${now} and ${claimable}
          and e.status = 'Enabled' and e.deleted_at is null
          and (d.customer_id is null or not exists (
            select 1 from webhook_deliveries older
            where older.endpoint_id = d.endpoint_id and older.customer_id = d.customer_id and older.id < d.id and older.status = 'Pending'))
      ),
      busy as (
        select c.endpoint_id, count(*) as n from webhook_deliveries c
        where c.status = 'Pending' and c.claimed_until > ${now} and not ${instance.holderGone('c.claimed_by')}
        group by c.endpoint_id
      ),
      open as (
        select due.id, row_number() over (partition by due.account_id order by due.endpoint_rank, due.id) as account_rank
        from due left join busy on busy.endpoint_id = due.endpoint_id
        where due.endpoint_rank + coalesce(busy.n, 0) <= ${perEndpoint}
      )
      select d.id from webhook_deliveries d
      where d.id in (select open.id from open order by open.account_rank, open.id limit ${limit})
        and d.status = 'Pending' and ${claimable}
      for update of d skip locked`.execute(trx);
    if (due.rows.length === 0) return [];
    const ids = due.rows.map((d) => Number(d.id));
    const claimToken = newClaimToken();
    await trx
      .updateTable('webhookDeliveries')
      .set({ claimedUntil: new Date(now.getTime() + leaseMs), claimedBy: instance.id, claimToken })
      .where('id', 'in', ids)
      .execute();
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
      claimToken,
    }));
  });
}

/** How many endpoints (not deleted) the account has. */
export async function countEndpoints(db: Queryable, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('webhookEndpoints')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('accountId', '=', accountId)
    .where('deletedAt', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Frees an instance's claims at once (claims it holds but is not working on: see the delivery worker). */
export async function releaseDeliveryClaimsOf(db: Queryable, instanceId: string) {
  await db
    .updateTable('webhookDeliveries')
    .set({ claimedBy: null, claimedUntil: null })
    .where('claimedBy', '=', instanceId)
    .where('status', '=', 'Pending')
    .execute();
}

/**
 * Right before a delivery is sent: whether this instance still holds it (its claim token, and its own
 * heartbeat fresh enough that nobody may take it meanwhile); the lease is renewed for the send.
 */
export async function confirmDeliveryClaim(
  db: Queryable,
  instance: InstanceLiveness,
  delivery: { id: number; claimToken: string },
  claimedUntil: Date,
): Promise<boolean> {
  const held = await db
    .updateTable('webhookDeliveries')
    .set({ claimedUntil })
    .where('id', '=', delivery.id)
    .where('status', '=', 'Pending')
    .where('claimToken', '=', delivery.claimToken)
    .where(instance.ownHeartbeatFresh())
    .executeTakeFirst();
  return Number(held.numUpdatedRows) === 1;
}

export async function insertAttempt(
  db: Queryable,
  attempt: { deliveryId: number; attemptedAt: Date; httpStatus: number | null; error: string | null; durationMs: number },
) {
  await db.insertInto('webhookDeliveryAttempts').values(attempt).execute();
}

/** Records a delivery's success under its claim (fenced): false, and nothing written, when the claim was taken over. */
export async function markDelivered(
  db: Queryable,
  delivery: { id: number; endpointId: number; claimToken: string },
  now: Date,
  httpStatus: number,
): Promise<boolean> {
  const { id, endpointId } = delivery;
  const marked = await db
    .updateTable('webhookDeliveries')
    .set({
      status: 'Succeeded',
      deliveredAt: now,
      attempts: sql`attempts + 1`,
      lastStatusCode: httpStatus,
      lastError: null,
      claimedUntil: null,
      claimedBy: null,
    })
    .where('id', '=', id)
    .where('claimToken', '=', delivery.claimToken)
    .executeTakeFirst();
  if (Number(marked.numUpdatedRows) !== 1) return false;
  await db
    .updateTable('webhookEndpoints')
    .set({ failingSince: null })
    .where('id', '=', endpointId)
    .where('failingSince', 'is not', null)
    .execute();
  return true;
}

/**
 * Records a failed attempt under the delivery's claim (fenced: `held` false, nothing written, when it was
 * taken over): retried at `retryAt`, or Failed when null. The endpoint's failing_since
 * starts (if not yet); when it is older than `disableAfterMs` the endpoint is Disabled (`disabled`: by this call).
 */
export async function markAttemptFailed(
  db: Queryable,
  delivery: { id: number; endpointId: number; claimToken: string },
  failure: { now: Date; httpStatus: number | null; error: string | null; retryAt: Date | null; disableAfterMs: number },
): Promise<{ held: boolean; disabled: boolean }> {
  const marked = await db
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
    .where('claimToken', '=', delivery.claimToken)
    .executeTakeFirst();
  if (Number(marked.numUpdatedRows) !== 1) return { held: false, disabled: false };
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
  return { held: true, disabled: disabled !== undefined };
}
