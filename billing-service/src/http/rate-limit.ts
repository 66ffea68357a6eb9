import type { FastifyReply } from 'fastify';
import { sql } from 'kysely';
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
  hit(bucket: string, windows: ReadonlyArray<RateWindow['name']>, now: number): Promise<number[]>;
}

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly counters = new Map<string, { start: number; hits: number }>();
  private lastSweep = 0;

  async hit(bucket: string, windows: ReadonlyArray<RateWindow['name']>, now: number): Promise<number[]> {
    this.sweep(now);
    return windows.map((name) => {
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

/** Atomic upsert of every window's counter in one statement: safe across instances and connections. */
export class PostgresRateLimitStore implements RateLimitStore {
  private lastSweep = 0;
  constructor(private readonly db: Db) {}

  async hit(bucket: string, windows: ReadonlyArray<RateWindow['name']>, now: number): Promise<number[]> {
    const rows = windows.map((name) => ({ bucket: `${bucket}|${name}`, windowStart: new Date(windowStart(name, now)), hits: 1 }));
    const result = await this.db
      .insertInto('rateLimitCounters')
      .values(rows)
      .onConflict((oc) => oc.columns(['bucket', 'windowStart']).doUpdateSet({ hits: sql`rate_limit_counters.hits + 1` }))
      .returning(['bucket', 'hits'])
      .execute();
    this.sweep(now);
    return rows.map((r) => result.find((x) => x.bucket === r.bucket)?.hits ?? 1);
  }

  /** Old windows are deleted now and then, in the background. */
  private sweep(now: number) {
    if (now - this.lastSweep < 600_000) return;
    this.lastSweep = now;
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
  reply: FastifyReply,
  bucket: string,
  limits: { perMinute: number; perDay: number },
  now = Date.now(),
): Promise<void> {
  const windows: RateWindow[] = [
    { name: 'Minute', limit: limits.perMinute },
    { name: 'Day', limit: limits.perDay },
  ];
  const counts = await store.hit(bucket, windows.map((w) => w.name), now);
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
      { Key: 'Api Error', Value: `rate limit exceeded: ${exceeded.limit} requests per ${exceeded.name.toLowerCase()}` },
    ]);
  }
}
