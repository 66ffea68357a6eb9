import { wallClockNow } from '../clock/account-clock.js';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { PeriodicTask } from '../tasks/periodic-task.js';
import type { Db } from '../db/database.js';
import { InstanceLiveness } from '../db/instance-liveness.js';
import {
  claimDueDeliveries,
  confirmDeliveryClaim,
  insertAttempt,
  markAttemptFailed,
  markDelivered,
  releaseDeliveryClaimsOf,
  WEBHOOK_SENDS_PER_ENDPOINT,
  type ClaimedDelivery,
} from '../outbox/webhook-repository.js';
import { UnrecordedWrites } from '../tasks/unrecorded-writes.js';
import { checkUrlForm, resolveSafely, UnsafeUrlError, type ResolvedAddress, type WebhookUrlSafety } from '../outbox/url-safety.js';

/** Delays before each retry (with ±10 % jitter): about a day in all, then the delivery is Failed. */
export const WEBHOOK_RETRY_DELAYS_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 10 * 3_600_000];
/** An endpoint failing without a single success for this long is Disabled. */
export const WEBHOOK_DISABLE_AFTER_MS = 24 * 3_600_000;

export interface WebhookWorkerOptions extends WebhookUrlSafety {
  /** How often due deliveries are looked for (default 1 s). */
  pollMs?: number;
  /** Deadline of one attempt: resolving, connecting, the response's status (default 10 s). */
  timeoutMs?: number;
  /** Delays before the retries (default WEBHOOK_RETRY_DELAYS_MS); after the last one the delivery is Failed. */
  retryDelaysMs?: number[];
  /** 0 ≤ x < 1, for the jitter (default Math.random; tests fix it). */
  random?: () => number;
  /** Deliveries in flight at once on this instance (default 16); a slot that frees is filled at once. */
  concurrency?: number;
  /** Deliveries in flight at once to one endpoint, over all instances (default 8, WEBHOOK_SENDS_PER_ENDPOINT). */
  perEndpoint?: number;
  /** Told when an endpoint is disabled after a day of failures (besides the log). */
  onEndpointDisabled?: (endpoint: { id: number; accountId: number; url: string }) => void | Promise<void>;
}

/** What one attempt gave: the response status, or why there was none. */
export interface AttemptOutcome {
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
}

/**
 * Sends the webhook outbox: each due delivery is POSTed to its endpoint, signed the Standard
 * Webhooks way, retried with growing delays, in order per endpoint and customer. Instances share
 * the outbox (claims with SKIP LOCKED and a lease).
 */
export class WebhookDeliveryWorker {
  readonly task: PeriodicTask;
  private readonly unrecorded = new UnrecordedWrites();

  constructor(
    private readonly db: Db,
    private readonly options: WebhookWorkerOptions,
    private readonly log: FastifyBaseLogger,
    /** This process's claims' holder (unset: a private one that never beats, so claims lapse only by their lease). */
    private readonly instance: InstanceLiveness = new InstanceLiveness(db, 'worker'),
  ) {
    this.task = new PeriodicTask('webhook deliveries', options.pollMs ?? 1_000, () => this.runDue().then(() => undefined), log);
  }

  start() {
    this.task.start();
  }

  async stop() {
    await this.task.stop();
  }

  /**
   * Sends everything due, until nothing is left (a success makes the same customer's next event
   * due at once). `now` fixes the clock (tests); the signature's timestamp is always the real time.
   * Returns how many attempts were made.
   *
   * Deliveries are kept in flight in a pool of `concurrency` slots, at most `perEndpoint` to one
   * endpoint, picked round robin over accounts and endpoints (claimDueDeliveries); a slot that frees
   * is filled at once, and while every free slot waits for a slow endpoint, due work is looked for
   * again each poll interval. So a slow or dead endpoint holds its own slots only, never the others'.
   * A run returns only once its last delivery is recorded: between runs this instance has nothing in
   * flight, which is what lets the next run free all of its leftover claims first.
   */
  async runDue(now?: Date): Promise<number> {
    const timeoutMs = this.options.timeoutMs ?? 10_000;
    const slots = this.options.concurrency ?? 16;
    const perEndpoint = this.options.perEndpoint ?? WEBHOOK_SENDS_PER_ENDPOINT;
    const pollMs = this.options.pollMs ?? 1_000;
    const inFlight = new Set<Promise<void>>();
    let attempts = 0;
    // Sends recorded so far: one that ends while a claim is being looked for may have made more work due
    // (the next event of its customer), which that claim could not see; the run looks again before it ends.
    let recorded = 0;
    let failure: unknown;
    // First what the last run could not write, then this instance's leftover claims (see the e-mail worker).
    await this.unrecorded.replay();
    await releaseDeliveryClaimsOf(this.db, this.instance.id);
    for (;;) {
      let claimed = 0;
      const recordedBefore = recorded;
      if (failure === undefined && !this.task.stopped && inFlight.size < slots) {
        const at = now ?? wallClockNow();
        try {
          const leaseMs = timeoutMs * 3 + 30_000;
          const deliveries = await claimDueDeliveries(this.db, this.instance, at, slots - inFlight.size, leaseMs, perEndpoint);
          for (const delivery of deliveries) {
            const sending: Promise<void> = this.attempt(delivery, at, leaseMs)
              .catch((error: unknown) => {
                failure ??= error;
              })
              .finally(() => {
                inFlight.delete(sending);
                recorded += 1;
              });
            inFlight.add(sending);
          }
          claimed = deliveries.length;
          attempts += claimed;
        } catch (error) {
          failure = error;
        }
      }
      if (claimed > 0 || (recorded !== recordedBefore && failure === undefined)) continue;
      if (inFlight.size === 0) break;
      await this.slotFreedOr(inFlight, pollMs);
    }
    if (failure !== undefined) throw failure;
    return attempts;
  }

  /** Until one of the sends ends, or `ms` have passed (work may have come due for another endpoint). */
  private async slotFreedOr(inFlight: Set<Promise<void>>, ms: number) {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([...inFlight, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async attempt(delivery: ClaimedDelivery, now: Date, leaseMs: number) {
    // Fencing: a holder paused since its claim (and maybe taken over) does not send.
    if (!(await confirmDeliveryClaim(this.db, this.instance, delivery, new Date(now.getTime() + leaseMs)))) {
      this.lostClaim(delivery, 'before sending');
      return;
    }
    const outcome = await sendWebhook(delivery, this.options);
    const deliveredStatus =
      outcome.httpStatus !== null && outcome.httpStatus >= 200 && outcome.httpStatus < 300 ? outcome.httpStatus : null;
    // Held and written first in the next run if the database is away now: the delivery is not sent again.
    await this.unrecorded.write(async () => {
      const disabled = await this.db.transaction().execute(async (trx) => {
        // The outcome first, under the claim: when it was taken over meanwhile, the taker records its own.
        if (deliveredStatus !== null) {
          if (!(await markDelivered(trx, delivery, now, deliveredStatus))) return 'lost';
          await insertAttempt(trx, { deliveryId: delivery.id, attemptedAt: now, ...outcome });
          return false;
        }
        const delays = this.options.retryDelaysMs ?? WEBHOOK_RETRY_DELAYS_MS;
        const delay = delays[delivery.attempts];
        const jitter = 0.9 + 0.2 * (this.options.random ?? Math.random)();
        const retryAt = delay === undefined ? null : new Date(now.getTime() + Math.round(delay * jitter));
        const marked = await markAttemptFailed(trx, delivery, {
          now,
          httpStatus: outcome.httpStatus,
          error: outcome.error ?? `HTTP ${outcome.httpStatus}`,
          retryAt,
          disableAfterMs: WEBHOOK_DISABLE_AFTER_MS,
        });
        if (!marked.held) return 'lost';
        await insertAttempt(trx, { deliveryId: delivery.id, attemptedAt: now, ...outcome });
        return marked.disabled;
      });
      if (disabled === 'lost') this.lostClaim(delivery, 'after sending');
      else if (disabled) await this.endpointDisabled(delivery);
    });
  }

  private lostClaim(delivery: ClaimedDelivery, when: string) {
    this.log.warn(
      { webhookDeliveryId: delivery.id, webhookEndpointId: delivery.endpointId },
      `webhook delivery taken over by another instance ${when}; left to it`,
    );
  }

  private async endpointDisabled(delivery: ClaimedDelivery) {
    this.log.warn(
      { webhookEndpointId: delivery.endpointId, accountId: delivery.accountId, url: delivery.url },
      'webhook endpoint disabled: its deliveries have failed for a day without a success',
    );
    try {
      await this.options.onEndpointDisabled?.({ id: delivery.endpointId, accountId: delivery.accountId, url: delivery.url });
    } catch (error) {
      this.log.error({ err: error }, 'webhook endpoint disabled: telling about it failed');
    }
  }
}

/** The Standard Webhooks headers of a message (id, timestamp in seconds, signature `v1,…`). */
export function signedHeaders(secret: string, messageId: string, timestamp: Date, body: string): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(messageId, timestamp, body),
  };
}

/**
 * One attempt: the URL is checked again and its host resolved, every address checked, and the
 * connection made to a checked address only (the `lookup` given to the request), so a name that
 * resolves inward later is not followed. Redirects are not followed (a 3xx is a failure).
 */
export async function sendWebhook(
  delivery: Pick<ClaimedDelivery, 'url' | 'secret' | 'eventPublicId' | 'payload'>,
  options: WebhookWorkerOptions,
): Promise<AttemptOutcome> {
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? 10_000;
  const duration = () => Math.round(performance.now() - started);
  const body = JSON.stringify(delivery.payload);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  let request: http.ClientRequest | undefined;
  try {
    const url = checkUrlForm(delivery.url, options);
    const addresses = await Promise.race([resolveSafely(url, options), deadline]);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'Renew-Webhooks/1',
      ...signedHeaders(delivery.secret, delivery.eventPublicId, wallClockNow(), body),
    };
    const status = await Promise.race([
      new Promise<number>((resolve, reject) => {
        const send = url.protocol === 'https:' ? https.request : http.request;
        request = send(url, { method: 'POST', headers, agent: false, lookup: pinnedLookup(addresses) }, (response) => {
          response.resume();
          response.on('error', () => undefined);
          resolve(response.statusCode ?? 0);
        });
        request.on('error', reject);
        request.end(body);
      }),
      deadline,
    ]);
    const redirect = status >= 300 && status < 400 ? 'redirect not followed' : null;
    return { httpStatus: status, error: redirect, durationMs: duration() };
  } catch (error) {
    const message = error instanceof UnsafeUrlError ? `refused: ${error.message}` : (error as Error).message || String(error);
    return { httpStatus: null, error: message, durationMs: duration() };
  } finally {
    clearTimeout(timer);
    request?.destroy();
  }
}

/** A `lookup` that answers with the addresses already checked, never asking DNS again. */
function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
    const list = wanted.length ? wanted : addresses;
    const [first] = list;
    if (options.all) (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, list);
    else if (first) callback(null, first.address, first.family);
    // never reached: a delivery is sent only to a host that resolved to checked addresses
    else callback(Object.assign(new Error('no checked address to connect to'), { code: 'ENOTFOUND' }), '', 0);
  };
}
