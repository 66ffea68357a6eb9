import { writeEventually } from '../db/write-eventually.js';
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { wallClockNow } from '../clock/account-clock.js';
import { KeyClaimLostError, type KeyedWrite, runKeyedWrite } from '../db/keyed-commit.js';
import type { Caller } from './auth.js';
import { ApiError, fieldKey } from './errors.js';
import {
  type Claim,
  claimNewKey,
  forgetExpiredKey,
  type KeyIdentity,
  keyRow,
  keyedWrite,
  releaseKey,
  saveAnswer,
  sweepKeys,
  takeKey,
} from './idempotency-store.js';
import { unstorableText } from './validation.js';

const WAIT_FOR_FIRST_MS = 30_000;
const POLL_MS = 25;
/** How long a key is remembered; after that the same key starts a new request (as Stripe's keys do). */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;
const SWEEP_EVERY_MS = 10 * 60 * 1000;
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** An answer a route gives from what a committed run left (its status and body, serialized by the route's schema). */
export interface CommittedAnswer {
  status: number;
  body?: unknown;
}

/**
 * How a route takes `Idempotency-Key` (`config.idempotency`). Every POST, PUT, PATCH and DELETE of /v1 is keyed
 * unless `off` gives the reason it is not. `afterCommit` answers the retry of a run that committed but never
 * answered (its connection dropped after COMMIT, its read-back failed, its instance died):
 * `'runAgain'`: running the route again is safe and answers the same (it finds what it committed by the key);
 * a function: reads the committed result back (`created`: what the run created, by entity type: db/keyed-commit.ts).
 * Unset: a 409 telling the client the write happened and to read the resource.
 */
export interface IdempotencyConfig {
  off?: string;
  afterCommit?: 'runAgain' | ((request: FastifyRequest, created: Created) => Promise<CommittedAnswer>);
}

/** What a committed run created, by entity type, in order (the audit log's creates, the invoices saved): `{Customer: [12]}`. */
export type Created = Readonly<Record<string, readonly number[]>>;

/** The parts of a request a read-back needs, typed by the route. */
export interface CommittedRequest<P, B> {
  params: P;
  body: B;
  caller: Caller;
}

/** `afterCommit` reading the committed result back: `read` gives the body (the route's answer shape), answered `status`. */
export function readBack<P = unknown, B = unknown>(
  read: (request: CommittedRequest<P, B>, created: Created) => Promise<unknown>,
  status = 200,
): IdempotencyConfig {
  return { afterCommit: async (request, ref) => ({ status, body: await read(request as unknown as CommittedRequest<P, B>, ref) }) };
}

/** `afterCommit` of a route answering 204 (a delete, a cancellation): committed is done. */
export const NO_CONTENT_AFTER_COMMIT: IdempotencyConfig = { afterCommit: async () => ({ status: 204 }) };

declare module 'fastify' {
  interface FastifyContextConfig {
    idempotency?: IdempotencyConfig;
  }
}

/** The requests running under a key they claimed (a replayed answer has nothing to save). */
const keyedRequests = new WeakMap<FastifyRequest, KeyedWrite>();

/** Each app's /v1 writes as this plugin saw them added: `METHOD /path` → 'keyed', or the reason it is not. */
const seenWrites = new WeakMap<FastifyInstance, Map<string, string>>();
export function idempotencyOfRoutes(app: FastifyInstance): ReadonlyMap<string, string> {
  return seenWrites.get(app) ?? new Map();
}

/** Whether a route is a /v1 write, keyed by this plugin unless it opts out. */
export function isV1Write(method: string | string[], url: string): boolean {
  return url.startsWith('/v1/') && [method].flat().some((m) => WRITE_METHODS.has(m.toUpperCase()));
}

/**
 * `Idempotency-Key` on every write of /v1, registered once (before the routes): the first request with a
 * key runs; a retry with the same key and body gets the first answer, status and body as sent, with
 * `Idempotent-Replayed: true` (also while the first is still running: it waits for it, then 409); the same
 * key with another request is 422 keyed `Idempotency-Key`. A server-side failure (5xx) frees the key for a
 * retry. A key whose holder died (db/instance-liveness.ts) is taken over, with a new fencing token: the late
 * holder can neither commit (db/keyed-commit.ts) nor save its answer. A retry of a run that committed but
 * never answered is answered by the route's `afterCommit`, never run blindly again. Keys are per account and
 * remembered for 24 hours.
 */
export const idempotencyKeys = fp(
  async (app: FastifyInstance) => {
    let lastSweep = 0;
    const seen = new Map<string, string>();
    seenWrites.set(app, seen);
    app.addHook('onRoute', (route: RouteOptions) => {
      if (!isV1Write(route.method, route.url)) return;
      const off = route.config?.idempotency?.off;
      for (const method of [route.method].flat()) seen.set(`${method} ${route.url}`, off ? `off: ${off}` : 'keyed');
      if (off) return;
      const handler = route.handler;
      const afterCommit = route.config?.idempotency?.afterCommit;
      route.handler = async function keyed(this: FastifyInstance, request, reply) {
        const key = headerKey(request);
        if (key === undefined) return handler.call(this, request, reply);
        const now = wallClockNow().getTime(); // keys expire on the wall clock, never an account's test clock
        if (now - lastSweep > SWEEP_EVERY_MS) {
          lastSweep = now;
          void sweepKeys(request.server.ctx.db, new Date(now - IDEMPOTENCY_KEY_TTL_MS)).catch(() => undefined);
        }
        const id = { accountId: request.caller.accountId, key };
        const outcome = await claimOrReplay(request, id, requestHash(request), now);
        if ('replay' in outcome) return replay(reply, outcome.replay);
        const write = keyedWrite(id, outcome.token);
        keyedRequests.set(request, write);
        if (outcome.committedAt !== null && afterCommit !== 'runAgain') {
          if (!afterCommit) {
            throw ApiError.conflict(
              'the request with this Idempotency-Key was done but its answer was lost; read the resource to see it',
              'Idempotency-Key',
              'idempotency_key_in_flight',
            );
          }
          const answer = await afterCommit(request, outcome.committedRef ?? {});
          return reply.code(answer.status).send(answer.status === 204 ? undefined : answer.body);
        }
        try {
          return await runKeyedWrite(write, () => handler.call(this, request, reply) as Promise<unknown>);
        } catch (error) {
          // Paused past its claim: the taker runs the request; this run's write was rolled back.
          if (error instanceof KeyClaimLostError) throw ApiError.conflict(error.message, 'Idempotency-Key', 'idempotency_key_in_flight');
          throw error;
        }
      };
    });

    // Before any route's own onSend (compression): the payload is the serialized body as the client gets it.
    app.addHook('onSend', async (request, reply, payload) => {
      const write = keyedRequests.get(request);
      if (!write || write.finished) return payload;
      write.finished = true;
      const status = reply.statusCode;
      const { db } = request.server.ctx;
      if (status < 500)
        await writeEventually(() => saveAnswer(db, write, write.claimToken, status, typeof payload === 'string' ? payload : ''));
      else await writeEventually(() => releaseKey(db, write, write.claimToken));
      return payload;
    });
  },
  { name: 'renew-idempotency-keys', fastify: '5.x' },
);

function headerKey(request: FastifyRequest): string | undefined {
  const header = request.headers['idempotency-key'];
  const key = Array.isArray(header) ? header[0] : header;
  if (!key) return undefined;
  if (key.length > 255) throw ApiError.badRequest('must be at most 255 characters', 'Idempotency-Key', 'value_invalid');
  return key;
}

/** The request a key belongs to: method, path and query, and the body (without card data: fingerprintBody). */
function requestHash(request: FastifyRequest): string {
  // A route without a body schema (POST /v1/Invoices/{id}/post) has had no depth check: the fingerprint recurses.
  const unstorable = unstorableText(request.body);
  if (unstorable) throw ApiError.badRequest(unstorable.problem, fieldKey(unstorable.path), 'value_invalid');
  const endpoint = `${request.method} ${request.url}`;
  return createHash('sha256')
    .update(JSON.stringify({ endpoint, body: fingerprintBody(request.body) }))
    .digest('hex');
}

type Stored = { status: number; body: string };

/** Claims the key for this request, or finds the first answer to replay (waiting while the first runs). */
async function claimOrReplay(request: FastifyRequest, id: KeyIdentity, hash: string, now: number): Promise<Claim | { replay: Stored }> {
  const { db, instance } = request.server.ctx;
  const endpoint = `${request.method} ${request.routeOptions.url}`;
  const deadline = now + WAIT_FOR_FIRST_MS;
  for (;;) {
    const claimed = await claimNewKey(db, id, endpoint, hash, instance.id);
    if (claimed) return claimed;
    const first = await keyRow(db, id, instance);
    if (!first) continue; // forgotten meanwhile: claim it afresh
    if (first.createdAt.getTime() < now - IDEMPOTENCY_KEY_TTL_MS) {
      await forgetExpiredKey(db, id, new Date(now - IDEMPOTENCY_KEY_TTL_MS));
      continue;
    }
    if (first.requestHash !== hash) {
      throw new ApiError(422, [
        { Key: 'Idempotency-Key', Value: 'this Idempotency-Key was already used with a different request', Code: 'idempotency_key_reused' },
      ]);
    }
    if (first.responseStatus !== null) return { replay: { status: first.responseStatus, body: first.responseBody ?? '' } };
    // Freed by a server-side failure, or held by an instance that died: run under it again (one taker wins).
    if (first.claimedBy === null || first.holderGone) {
      const taken = await takeKey(db, id, first.claimedBy, instance.id);
      if (taken) return taken;
      continue;
    }
    if (wallClockNow().getTime() > deadline)
      throw ApiError.conflict(
        'a request with this Idempotency-Key is still being processed; retry later',
        'Idempotency-Key',
        'idempotency_key_in_flight',
      );
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function replay(reply: FastifyReply, stored: Stored) {
  reply.header('Idempotent-Replayed', 'true').code(stored.status);
  if (stored.body === '') return reply.send();
  return reply.type('application/json; charset=utf-8').send(stored.body);
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
