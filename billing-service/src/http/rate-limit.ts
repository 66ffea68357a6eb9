import { wallClockNow } from '../clock/account-clock.js';
import { sql } from 'kysely';
import { retryOnConflict } from '../db/conflict-retry.js';
import type { Db } from '../db/database.js';
import { ApiError } from './errors.js';

/** A fixed window: the minute or the UTC day a request falls in. */
export interface RateWindow {
  name: 'Minute' | 'Day';
  limit: number;
}

const WINDOW_MS = { Minute: 60_000, Day: 86_400_000 } as const;

function windowStart(name: RateWindow['name'], now: number): number {
  return now - (now % WINDOW_MS[name]);
}

/** Where hit counts live. In memory for one process; in PostgreSQL so that instances share one limit. */
export interface RateLimitStore {
  /** Counts one hit in each window and returns each window's count including it. */
  hit(bucket: string, windows: ReadonlyArray<RateWindow>, now: number): Promise<number[]>;
}

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly counters = new Map<string, { start: number; hits: number }>();
  private lastSweep = 0;

  async hit(bucket: string, windows: ReadonlyArray<RateWindow>, now: number): Promise<number[]> {
    this.sweep(now);
    return windows.map(({ name }) => {
      const key = `${bucket}|${name}`;
      const start = windowStart(name, now);
      const counter = this.counters.get(key);
      if (!counter || counter.start !== start) {
        this.counters.set(key, { start, hits: 1 });
        return 1;
      }
      counter.hits += 1;
      return counter.hits;
    });
  }

  /** Drops counters of windows that have ended, at most once a minute. */
  private sweep(now: number) {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [key, counter] of this.counters) {
      const name = key.endsWith('|Day') ? 'Day' : 'Minute';
      if (counter.start !== windowStart(name, now)) this.counters.delete(key);
    }
  }
}

/** One window's counter as this instance sees it. */
interface SharedCounter {
  bucket: string;
  windowStart: number;
  /** The shared total the database last reported (every instance's hits), or undefined before the first answer. */
  known: number | undefined;
  /** Hits counted here and not yet added to the database. */
  pending: number;
  /** Hits being added by an upsert that has not answered yet: still counted in this instance's estimate. */
  inFlight: number;
}

export interface PostgresRateLimitOptions {
  /** How long hits far from the limit are batched before they are added to the shared counter. */
  flushIntervalMs?: number;
  /**
   * Closer than this to a limit (a share of it, and never fewer than `exactMinimum` hits),
   * every hit is an atomic round trip, so the refusal at the limit is exact.
   */
  exactShare?: number;
  exactMinimum?: number;
}

/**
 * Counters in PostgreSQL, shared by every instance on the database, updated with
 * atomic upserts (`hits = hits + n`).
 *
 * Far from a limit, an instance counts hits locally and adds them in one batch
 * every `flushIntervalMs` (100 ms): a request then costs no database round trip.
 * The first hit of a window in this instance, and every hit once the estimate is
 * within `exactShare` (10 %, at least `exactMinimum` = 100 hits) of the limit,
 * goes to the database at once and counts with the returned total, so limits up
 * to 100 are always exact and larger ones are enforced exactly at the boundary.
 * The bound on error: another instance's hits of the last flush interval may be
 * missing from this instance's estimate (the Remaining headers), which matters
 * only if one instance takes more than 10 % of a limit within 100 ms.
 */
export class PostgresRateLimitStore implements RateLimitStore {
  private readonly counters = new Map<string, SharedCounter>();
  private readonly flushIntervalMs: number;
  private readonly exactShare: number;
  private readonly exactMinimum: number;
  private flushTimer: NodeJS.Timeout | undefined;
  private lastSweep = 0;
  private lastDatabaseSweep = 0;

  constructor(
    private readonly db: Db,
    options: PostgresRateLimitOptions = {},
  ) {
    this.flushIntervalMs = options.flushIntervalMs ?? 100;
    this.exactShare = options.exactShare ?? 0.1;
    this.exactMinimum = options.exactMinimum ?? 100;
  }

  async hit(bucket: string, windows: ReadonlyArray<RateWindow>, now: number): Promise<number[]> {
    const counters = windows.map(({ name }) => this.counterFor(`${bucket}|${name}`, windowStart(name, now)));
    const known = counters.flatMap((counter, i) =>
      counter.known === undefined || this.nearLimit(counter.known + counter.inFlight, counter.pending, windows[i]?.limit ?? 0)
        ? []
        : [counter.known + counter.inFlight],
    );
    this.sweep(now);
    if (known.length === counters.length) {
      for (const counter of counters) counter.pending += 1;
      this.scheduleFlush();
      return counters.map((counter, i) => (known[i] ?? 0) + counter.pending);
    }
    return this.addNow(counters.map((counter) => ({ counter, add: counter.pending + 1 })));
  }

  /** Adds every pending hit to the database now (also called on a timer). */
  async flush(): Promise<void> {
    this.flushTimer = undefined;
    const batch = [...this.counters.values()].filter((c) => c.pending > 0).map((counter) => ({ counter, add: counter.pending }));
    // hits not added stay pending: try again (the database may be restarting) rather than wait for a hit far from the limit
    if (batch.length > 0) await this.addNow(batch).catch(() => this.scheduleFlush(Math.max(this.flushIntervalMs, 1000)));
  }

  private nearLimit(known: number, pending: number, limit: number): boolean {
    const margin = Math.max(this.exactMinimum, Math.ceil(limit * this.exactShare));
    return limit - (known + pending + 1) < margin;
  }

  private counterFor(key: string, start: number): SharedCounter {
    let counter = this.counters.get(key);
    if (!counter || counter.windowStart !== start) {
      // a new window: what was pending belonged to the old one and is flushed with it or dropped with it
      counter = { bucket: key, windowStart: start, known: undefined, pending: 0, inFlight: 0 };
      this.counters.set(key, counter);
    }
    return counter;
  }

  /**
   * One atomic upsert adding each counter's hits; returns the totals and records them as known.
   * Its rows are locked in VALUES order, so they go in one global order, (bucket, window start),
   * whatever order the caller listed them in: two instances' upserts of the same rows then wait
   * for each other instead of deadlocking. A conflict that can still happen is run again.
   */
  private async addNow(batch: Array<{ counter: SharedCounter; add: number }>): Promise<number[]> {
    for (const { counter, add } of batch) {
      counter.pending -= Math.min(counter.pending, add);
      counter.inFlight += add;
    }
    const rows = batch
      .map(({ counter, add }) => ({ bucket: counter.bucket, windowStart: counter.windowStart, hits: add }))
      .sort((a, b) => (a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : a.windowStart - b.windowStart));
    try {
      const result = await retryOnConflict(() =>
        this.db
          .insertInto('rateLimitCounters')
          .values(rows.map((row) => ({ ...row, windowStart: new Date(row.windowStart) })))
          .onConflict((oc) => oc.columns(['bucket', 'windowStart']).doUpdateSet({ hits: sql`rate_limit_counters.hits + excluded.hits` }))
          .returning(['bucket', 'hits'])
          .execute(),
      );
      return batch.map(({ counter, add }) => {
        counter.inFlight -= add;
        const total = result.find((row) => row.bucket === counter.bucket)?.hits ?? add;
        counter.known = Math.max(counter.known ?? 0, total);
        return total;
      });
    } catch (error) {
      // not counted: put the hits back so that the next flush adds them
      for (const { counter, add } of batch) {
        counter.inFlight -= add;
        counter.pending += add;
      }
      throw error;
    }
  }

  private scheduleFlush(delayMs = this.flushIntervalMs) {
    if (this.flushTimer) return;
    this.flushTimer = setTimeout(() => void this.flush(), delayMs);
    this.flushTimer.unref();
  }

  /** Old windows are deleted now and then, in the background; ended windows are forgotten here. */
  private sweep(now: number) {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [key, counter] of this.counters) {
      const name = key.endsWith('|Day') ? 'Day' : 'Minute';
      if (counter.windowStart !== windowStart(name, now) && counter.pending === 0) this.counters.delete(key);
    }
    if (now - this.lastDatabaseSweep < 600_000) return;
    this.lastDatabaseSweep = now;
    void this.db
      .deleteFrom('rateLimitCounters')
      .where('windowStart', '<', new Date(now - 2 * WINDOW_MS.Day))
      .execute()
      .catch(() => undefined);
  }
}

/**
 * Counts the request against the minute and day limits, sets the six
 * X-Rate-Limit-* headers, and refuses with 429 naming the exceeded limit.
 */
export async function enforceRateLimit(
  store: RateLimitStore,
  /** A Fastify reply, or anything else that takes headers (the checkout proxy's fetch handler). */
  reply: { header(name: string, value: string | number): unknown },
  bucket: string,
  limits: { perMinute: number; perDay: number },
  now = wallClockNow().getTime(),
): Promise<void> {
  const windows: RateWindow[] = [
    { name: 'Minute', limit: limits.perMinute },
    { name: 'Day', limit: limits.perDay },
  ];
  const counts = await store.hit(bucket, windows, now);
  let exceeded: RateWindow | undefined;
  windows.forEach((w, i) => {
    const count = counts[i] ?? 0;
    reply.header(`X-Rate-Limit-Limit-${w.name}`, w.limit);
    reply.header(`X-Rate-Limit-Remaining-${w.name}`, Math.max(0, w.limit - count));
    reply.header(`X-Rate-Limit-Reset-${w.name}`, new Date(windowStart(w.name, now) + WINDOW_MS[w.name]).toISOString());
    if (count > w.limit && !exceeded) exceeded = w;
  });
  if (exceeded) {
    const resetAt = windowStart(exceeded.name, now) + WINDOW_MS[exceeded.name];
    reply.header('Retry-After', Math.max(1, Math.ceil((resetAt - now) / 1000)));
    throw new ApiError(429, [
      {
        Key: 'Api Error',
        Value: `rate limit exceeded: ${exceeded.limit} requests per ${exceeded.name.toLowerCase()}`,
        Code: 'rate_limited',
      },
    ]);
  }
}
