import { wallClockNow } from '../clock/account-clock.js';
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, clientError, fieldKey } from './errors.js';
import { unstorableText } from './validation.js';

const WAIT_FOR_FIRST_MS = 30_000;
const POLL_MS = 25;
/** How long a key is remembered; after that the same key starts a new request (as Stripe's keys do). */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;
const SWEEP_EVERY_MS = 10 * 60 * 1000;
let lastSweep = 0;

/**
 * Honours an `Idempotency-Key` header: the first request with a key runs; a
 * retry with the same key and body gets the first result (success or client
 * error) without running again, also while the first is still running (it
 * waits for it); the same key with another body is 409. A server-side failure
 * (5xx) frees the key for a retry, which runs again in the key's same life (what
 * the first run did commit, a payment, is found by its key and answered). A key whose first request's
 * instance died (its heartbeat stopped: db/instance-liveness.ts) is taken over by
 * the next retry within seconds. Keys are per account and
 * remembered for 24 hours (IDEMPOTENCY_KEY_TTL_MS); older ones are forgotten.
 */
export async function withIdempotency<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  endpoint: string,
  run: () => Promise<T>,
): Promise<T> {
  const header = request.headers['idempotency-key'];
  const key = Array.isArray(header) ? header[0] : header;
  if (!key) return run();
  if (key.length > 255) throw ApiError.badRequest('must be at most 255 characters', 'Idempotency-Key');
  const { db } = request.server.ctx;
  const accountId = request.caller.accountId;
  // A route without a body schema (POST /v1/Invoices/{id}/post) has had no depth check: the fingerprint recurses.
  const unstorable = unstorableText(request.body);
  if (unstorable) throw ApiError.badRequest(unstorable.problem, fieldKey(unstorable.path));
  const requestHash = createHash('sha256')
    .update(JSON.stringify({ endpoint, body: fingerprintBody(request.body) }))
    .digest('hex');
  const now = wallClockNow().getTime(); // idempotency keys expire on the wall clock, never an account's test clock
  sweepExpiredKeys(db, now);

  const { instance } = request.server.ctx;
  const claimed = await db
    .insertInto('idempotencyKeys')
    .values({ accountId, key, endpoint, requestHash, responseStatus: null, responseBody: null, claimedBy: instance.id })
    .onConflict((oc) => oc.columns(['accountId', 'key']).doNothing())
    .returning('key')
    .executeTakeFirst();

  if (!claimed) {
    const deadline = wallClockNow().getTime() + WAIT_FOR_FIRST_MS;
    for (;;) {
      const first = await db
        .selectFrom('idempotencyKeys')
        .select(['createdAt', 'requestHash', 'responseStatus', 'responseBody', 'claimedBy'])
        .select(instance.holderGone('claimed_by').as('holderGone'))
        .where('accountId', '=', accountId)
        .where('key', '=', key)
        .executeTakeFirst();
      if (!first) return withIdempotency(request, reply, endpoint, run); // the first failed and freed the key
      if (first.createdAt.getTime() < now - IDEMPOTENCY_KEY_TTL_MS) {
        // remembered for too long: forget it (unless another request has just claimed the key afresh) and start again
        await db
          .deleteFrom('idempotencyKeys')
          .where('accountId', '=', accountId)
          .where('key', '=', key)
          .where('createdAt', '<', new Date(now - IDEMPOTENCY_KEY_TTL_MS))
          .execute();
        return withIdempotency(request, reply, endpoint, run);
      }
      // Freed by a server-side failure (kept, not deleted: a commit whose answer was lost with the
      // connection must still be found by the retry, in the key's same life): run afresh under it.
      if (first.responseStatus === null && first.claimedBy === null) {
        if (await claimFreedKey(db, accountId, key, { endpoint, requestHash }, instance.id)) break;
        continue;
      }
      if (first.requestHash !== requestHash) {
        throw ApiError.conflict('this Idempotency-Key was already used with a different request', 'Idempotency-Key');
      }
      if (first.responseStatus !== null) {
        reply.header('Idempotent-Replayed', 'true');
        if (first.responseStatus < 300) return first.responseBody as T;
        throw new ApiError(first.responseStatus, (first.responseBody as { Errors: ApiError['errors'] }).Errors);
      }
      // The first request's instance died without answering: take the key over (one taker wins) and run the
      // request again. Whatever it had started is recognised by the key: the gateway is passed the same key.
      if (first.holderGone && first.claimedBy !== null && (await takeOverKey(db, accountId, key, first.claimedBy, instance.id))) break;
      if (wallClockNow().getTime() > deadline)
        throw ApiError.conflict('a request with this Idempotency-Key is still being processed; retry later', 'Idempotency-Key');
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  // Only while this instance still holds the key: had it been taken over (this instance was judged dead
  // while it stalled), the taker's answer stands.
  const save = (status: number, body: unknown) =>
    db
      .updateTable('idempotencyKeys')
      .set({ responseStatus: status, responseBody: JSON.stringify(body), claimedBy: null })
      .where('accountId', '=', accountId)
      .where('key', '=', key)
      .where('claimedBy', '=', instance.id)
      .execute();
  const release = () =>
    db
      .updateTable('idempotencyKeys')
      .set({ claimedBy: null })
      .where('accountId', '=', accountId)
      .where('key', '=', key)
      .where('claimedBy', '=', instance.id)
      .execute();
  let result: T;
  try {
    result = await run();
  } catch (error) {
    const answered = clientError(error);
    if (answered && answered.statusCode < 500) await settleKey(() => save(answered.statusCode, { Errors: answered.errors }));
    else await settleKey(release);
    throw error;
  }
  await settleKey(() => save(200, result));
  return result;
}

/**
 * Records what became of a claimed key. If the database is away just then, the answer
 * still goes to the client and the record is retried in the background (a live
 * instance's claim would otherwise hold the key until it expires).
 */
async function settleKey(write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch {
    let delayMs = 500;
    const retry = () =>
      void write().catch(() => {
        delayMs = Math.min(delayMs * 2, 30_000);
        setTimeout(retry, delayMs).unref();
      });
    setTimeout(retry, delayMs).unref();
  }
}

/** Claims a key freed by a server-side failure for a new run (of this request); false when another retry was first. */
async function claimFreedKey(
  db: FastifyRequest['server']['ctx']['db'],
  accountId: number,
  key: string,
  request: { endpoint: string; requestHash: string },
  self: string,
): Promise<boolean> {
  const taken = await db
    .updateTable('idempotencyKeys')
    .set({ claimedBy: self, endpoint: request.endpoint, requestHash: request.requestHash })
    .where('accountId', '=', accountId)
    .where('key', '=', key)
    .where('claimedBy', 'is', null)
    .where('responseStatus', 'is', null)
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) === 1;
}

/** Moves a key claimed by a dead instance to this one; false when another taker was first. */
async function takeOverKey(
  db: FastifyRequest['server']['ctx']['db'],
  accountId: number,
  key: string,
  deadHolder: string,
  self: string,
): Promise<boolean> {
  const taken = await db
    .updateTable('idempotencyKeys')
    .set({ claimedBy: self })
    .where('accountId', '=', accountId)
    .where('key', '=', key)
    .where('claimedBy', '=', deadHolder)
    .where('responseStatus', 'is', null)
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) === 1;
}

/**
 * What of a body its stored fingerprint covers. Nothing derived from a full card number or a CVV is
 * kept, hashed or not (an unkeyed hash of a card body gives the number back in seconds): a
 * `cardNumber` counts by its last four digits only (kept on the card row anyway), a `cvv` not at all.
 */
export function fingerprintBody(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(fingerprintBody);
  if (body === null || typeof body !== 'object') return body;
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (key === 'cvv') continue;
    kept[key] = key === 'cardNumber' && typeof value === 'string' ? `last4:${value.replace(/\D/g, '').slice(-4)}` : fingerprintBody(value);
  }
  return kept;
}

/** Keys past their 24 hours are deleted now and then, in the background. */
function sweepExpiredKeys(db: FastifyRequest['server']['ctx']['db'], now: number) {
  if (now - lastSweep < SWEEP_EVERY_MS) return;
  lastSweep = now;
  void db
    .deleteFrom('idempotencyKeys')
    .where('createdAt', '<', new Date(now - IDEMPOTENCY_KEY_TTL_MS))
    .execute()
    .catch(() => undefined);
}
