import { PostgresQueryCompiler, sql, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimitStore, PostgresRateLimitStore } from '../../src/http/rate-limit.js';
import { basicAuth, errorsOf, startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

/** Counting tests must not straddle a minute boundary, where the window (rightly) starts again. */
async function awayFromMinuteBoundary() {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 55_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
}

const MINUTE_ONLY = [{ name: 'Minute', limit: 1000 }] as const;

/** Records, for each statement sent, the rate-limit buckets among its parameters in the order they are bound (VALUES order). */
function bucketsInStatementOrder(prefix: string, statements: string[][]): KyselyPlugin {
  const compiler = new PostgresQueryCompiler();
  return {
    transformQuery(args) {
      const buckets = compiler
        .compileQuery(args.node, args.queryId)
        .parameters.filter((p): p is string => typeof p === 'string' && p.startsWith(prefix));
      if (buckets.length > 0) statements.push(buckets);
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
}

async function accountWithLimits(perMinute: number, perDay: number): Promise<TestAccount> {
  const account = await t.newAccount();
  await t.database.db
    .updateTable('accounts')
    .set({ rateLimitPerMinute: perMinute, rateLimitPerDay: perDay })
    .where('id', '=', account.accountId)
    .execute();
  return account;
}

describe('rate limits', () => {
  it('sends the six X-Rate-Limit headers on every response, errors included', async () => {
    const ok = await t.call('GET', '/v1/customers');
    const notFound = await t.call('GET', '/v1/customers/999999');
    for (const res of [ok, notFound]) {
      expect(res.headers['x-rate-limit-limit-minute']).toBe('1000');
      expect(res.headers['x-rate-limit-limit-day']).toBe('180000');
      expect(Number(res.headers['x-rate-limit-remaining-minute'])).toBeLessThan(1000);
      expect(Number(res.headers['x-rate-limit-remaining-day'])).toBeLessThan(180000);
      const resetMinute = new Date(String(res.headers['x-rate-limit-reset-minute']));
      expect(resetMinute.getUTCSeconds()).toBe(0);
      expect(resetMinute.getTime()).toBeGreaterThan(Date.now() - 1000);
      expect(String(res.headers['x-rate-limit-reset-day'])).toMatch(/T00:00:00\.000Z$/);
    }
  });

  it('counts down and answers 429 naming the per-minute limit once it is used up', async () => {
    await awayFromMinuteBoundary();
    const account = await accountWithLimits(3, 100);
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await t.call('GET', '/v1/customers', undefined, { as: account });
      expect(res.statusCode).toBe(200);
      remaining.push(String(res.headers['x-rate-limit-remaining-minute']));
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const refused = await t.call('GET', '/v1/customers', undefined, { as: account });
    expect(refused.statusCode).toBe(429);
    expect(errorsOf(refused)[0]!.Value).toBe('rate limit exceeded: 3 requests per minute');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Another key is not affected.
    expect((await t.call('GET', '/v1/customers')).statusCode).toBe(200);
  });

  it('gives POST /v1/usageEvents a budget of its own, sized for streams, which other requests do not spend (issue 41)', async () => {
    await awayFromMinuteBoundary();
    const account = await accountWithLimits(2, 100);
    const usageEvents = { perMinute: 3, perDay: 100 };
    const app = await t.buildAnotherApp({ ...t.catalog, rateLimits: { ...t.catalog.rateLimits, usageEvents } }, new MemoryRateLimitStore());
    const headers = { authorization: basicAuth(account.apiKey) };
    const event = { transactionId: 'x', customerId: 999_999, metricCode: 'api_calls', timestamp: new Date().toISOString() };
    const posts = [];
    for (let i = 0; i < 4; i++) posts.push(await app.inject({ method: 'POST', url: '/v1/usageEvents', headers, payload: [event] }));
    expect(posts.map((r) => r.statusCode)).toEqual([200, 200, 200, 429]);
    expect(posts.map((r) => r.headers['x-rate-limit-remaining-minute'])).toEqual(['2', '1', '0', '0']);
    expect(errorsOf(posts[3]!)[0]!.Value).toBe('rate limit exceeded: 3 requests per minute');
    // the key's own 2 a minute are untouched by the stream, and spending them leaves the stream's alone
    const gets = [];
    for (let i = 0; i < 3; i++) gets.push((await app.inject({ method: 'GET', url: '/v1/customers', headers })).statusCode);
    expect(gets).toEqual([200, 200, 429]);
  });

  it('names the daily limit when that is the one exceeded', async () => {
    const account = await accountWithLimits(100, 2);
    await t.call('GET', '/v1/customers', undefined, { as: account });
    await t.call('GET', '/v1/customers', undefined, { as: account });
    const refused = await t.call('GET', '/v1/customers', undefined, { as: account });
    expect(refused.statusCode).toBe(429);
    expect(errorsOf(refused)[0]!.Value).toBe('rate limit exceeded: 2 requests per day');
  });

  it('shares one limit between two service instances through the PostgreSQL store', async () => {
    await awayFromMinuteBoundary();
    const account = await accountWithLimits(4, 100);
    const first = await t.buildAnotherApp(t.catalog, new PostgresRateLimitStore(t.database.countersDb));
    const second = await t.buildAnotherApp(t.catalog, new PostgresRateLimitStore(t.database.countersDb));
    const headers = { authorization: `Basic ${account.apiKey}` };
    const statuses: number[] = [];
    for (const app of [first, second, first, second, first]) {
      statuses.push((await app.inject({ method: 'GET', url: '/v1/customers', headers })).statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
  });

  it('counts concurrent hits atomically in the PostgreSQL store', async () => {
    await awayFromMinuteBoundary();
    const store = new PostgresRateLimitStore(t.database.countersDb);
    const now = Date.now();
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        store.hit(
          'concurrency-check',
          [
            { name: 'Minute', limit: 1000 },
            { name: 'Day', limit: 180_000 },
          ],
          now,
        ),
      ),
    );
    const minuteCounts = results.map((r) => r[0]).sort((a, b) => a! - b!);
    expect(minuteCounts).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('batches hits far from the limit and adds them to the shared counter on flush', async () => {
    await awayFromMinuteBoundary();
    const windows = [{ name: 'Minute', limit: 1_000_000 }] as const;
    const first = new PostgresRateLimitStore(t.database.countersDb, { flushIntervalMs: 60_000 });
    const second = new PostgresRateLimitStore(t.database.countersDb, { flushIntervalMs: 60_000 });
    const now = Date.now();
    // the first hit of a window asks the database; the next ones are counted locally
    expect(await first.hit('batching-check', windows, now)).toEqual([1]);
    for (let i = 2; i <= 250; i++) expect(await first.hit('batching-check', windows, now)).toEqual([i]);
    const stored = async () =>
      (await t.database.db.selectFrom('rateLimitCounters').select('hits').where('bucket', '=', 'batching-check|Minute').executeTakeFirst())
        ?.hits;
    expect(await stored()).toBe(1);
    await first.flush();
    expect(await stored()).toBe(250);
    // another instance continues from the shared total
    expect(await second.hit('batching-check', windows, now)).toEqual([251]);
  });

  it('keeps the hits of a flush still in flight in its count (the Remaining headers never jump back)', async () => {
    await awayFromMinuteBoundary();
    const windows = [{ name: 'Minute', limit: 1_000_000 }] as const;
    const store = new PostgresRateLimitStore(t.database.countersDb, { flushIntervalMs: 60_000 });
    const now = Date.now();
    for (let i = 1; i <= 30; i++) expect(await store.hit('in-flight-check', windows, now)).toEqual([i]);
    // the flush's upsert has left but not answered: the 29 hits it carries still count
    const flushing = store.flush();
    expect(await store.hit('in-flight-check', windows, now)).toEqual([31]);
    await flushing;
    expect(await store.hit('in-flight-check', windows, now)).toEqual([32]);
  });

  it('adds locally counted hits to the shared counter on its own after the flush interval', async () => {
    await awayFromMinuteBoundary();
    const windows = [{ name: 'Minute', limit: 1_000_000 }] as const;
    const store = new PostgresRateLimitStore(t.database.countersDb, { flushIntervalMs: 20 });
    const now = Date.now();
    for (let i = 0; i < 50; i++) await store.hit('timer-check', windows, now);
    const stored = async () =>
      (await t.database.db.selectFrom('rateLimitCounters').select('hits').where('bucket', '=', 'timer-check|Minute').executeTakeFirst())
        ?.hits;
    for (let waited = 0; waited < 2000 && (await stored()) !== 50; waited += 25) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(await stored()).toBe(50);
  });

  it('adds hits whose flush failed on a later flush, without waiting for another hit', async () => {
    await awayFromMinuteBoundary();
    // the database refuses this bucket's second write (the first flush) once, as during a restart
    await sql`create sequence flush_retry_writes`.execute(t.database.db);
    await sql`create function fail_first_flush() returns trigger language plpgsql as $$
      begin
        if nextval('flush_retry_writes') = 2 then raise exception 'the database is restarting' using errcode = '57P03'; end if;
        return new;
      end $$`.execute(t.database.db);
    await sql`create trigger fail_first_flush before insert on rate_limit_counters for each row
      when (new.bucket = 'flush-retry-check|Minute') execute function fail_first_flush()`.execute(t.database.db);
    try {
      const windows = [{ name: 'Minute', limit: 1_000_000 }] as const;
      const store = new PostgresRateLimitStore(t.database.countersDb, { flushIntervalMs: 20 });
      const now = Date.now();
      for (let i = 0; i < 50; i++) await store.hit('flush-retry-check', windows, now);
      const stored = async () =>
        (
          await t.database.db
            .selectFrom('rateLimitCounters')
            .select('hits')
            .where('bucket', '=', 'flush-retry-check|Minute')
            .executeTakeFirst()
        )?.hits;
      for (let waited = 0; waited < 10_000 && (await stored()) !== 50; waited += 50)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await stored()).toBe(50);
      const writes = await sql<{ lastValue: number }>`select last_value from flush_retry_writes`.execute(t.database.db);
      expect(Number(writes.rows[0]!.lastValue)).toBe(3);
    } finally {
      await sql`drop trigger fail_first_flush on rate_limit_counters`.execute(t.database.db);
    }
  });

  it('asks the database on every hit near the limit, so two instances stop exactly at it', async () => {
    await awayFromMinuteBoundary();
    const windows = [{ name: 'Minute', limit: 1000 }] as const;
    const first = new PostgresRateLimitStore(t.database.countersDb, { flushIntervalMs: 60_000 });
    const second = new PostgresRateLimitStore(t.database.countersDb, { flushIntervalMs: 60_000 });
    const now = Date.now();
    const counts: number[] = [];
    // 800 hits on the first instance are far from the limit (local), then the two alternate,
    // each adding its batch every 10 hits as its flush timer would
    for (let i = 0; i < 800; i++) counts.push((await first.hit('boundary-check', windows, now))[0]!);
    await first.flush();
    for (let i = 0; i < 300; i++) {
      counts.push((await (i % 2 === 0 ? second : first).hit('boundary-check', windows, now))[0]!);
      if (i % 10 === 9) await Promise.all([first.flush(), second.flush()]);
    }
    expect(counts.filter((count) => count <= 1000)).toHaveLength(1000);
    // the last hits, past the limit, were all counted over it (refused)
    expect(counts.slice(-60).every((count) => count > 1000)).toBe(true);
    await Promise.all([first.flush(), second.flush()]);
    const stored = await t.database.db
      .selectFrom('rateLimitCounters')
      .select('hits')
      .where('bucket', '=', 'boundary-check|Minute')
      .executeTakeFirst();
    expect(stored?.hits).toBe(1100);
  });

  it('upserts the counters in one global order, so two instances hitting the same buckets concurrently never deadlock nor lose a hit', async () => {
    await awayFromMinuteBoundary();
    const statements: string[][] = [];
    const recorded = t.database.countersDb.withPlugin(bucketsInStatementOrder('lock-order-check|', statements));
    // every hit counts as near the limit: each one is an upsert of both its rows, as at a busy boundary
    const first = new PostgresRateLimitStore(recorded, { exactMinimum: 1_000_000 });
    const second = new PostgresRateLimitStore(recorded, { exactMinimum: 1_000_000 });
    const minuteThenDay = [
      { name: 'Minute', limit: 1_000_000 },
      { name: 'Day', limit: 1_000_000 },
    ] as const;
    const dayThenMinute = [minuteThenDay[1], minuteThenDay[0]];
    const now = Date.now();
    const hammer = async (store: PostgresRateLimitStore, windows: ReadonlyArray<{ name: 'Minute' | 'Day'; limit: number }>) => {
      for (let i = 0; i < 50; i++) await store.hit('lock-order-check', windows, now);
    };
    // 2 instances x 8 concurrent callers x 50 hits, the instances listing the windows in opposite orders
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, () => [hammer(first, minuteThenDay), hammer(second, dayThenMinute)]).flat(),
    );
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason))).toEqual([]);
    const stored = await t.database.db
      .selectFrom('rateLimitCounters')
      .select(['bucket', 'hits'])
      .where('bucket', 'like', 'lock-order-check|%')
      .orderBy('bucket')
      .execute();
    expect(stored).toEqual([
      { bucket: 'lock-order-check|Day', hits: 800 },
      { bucket: 'lock-order-check|Minute', hits: 800 },
    ]);
    expect(statements).toHaveLength(800);
    expect(statements.filter((buckets) => buckets.join() !== 'lock-order-check|Day,lock-order-check|Minute')).toEqual([]);
  });

  it('starts a new window when the minute turns', async () => {
    const store = new MemoryRateLimitStore();
    const minute = 60_000;
    const start = Math.floor(Date.now() / minute) * minute;
    expect(await store.hit('k', MINUTE_ONLY, start + 10)).toEqual([1]);
    expect(await store.hit('k', MINUTE_ONLY, start + 20)).toEqual([2]);
    expect(await store.hit('k', MINUTE_ONLY, start + minute)).toEqual([1]);
  });

  it('limits failed authentication attempts per client address', async () => {
    await awayFromMinuteBoundary();
    const app = await t.buildAnotherApp(
      { ...t.catalog, rateLimits: { ...t.catalog.rateLimits, perMinute: 2, perDay: 100 } },
      new MemoryRateLimitStore(),
    );
    const bad = { authorization: 'Basic sk_wrong_key_00000000000000' };
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await app.inject({ method: 'GET', url: '/v1/customers', headers: bad })).statusCode);
    expect(statuses).toEqual([401, 401, 429]);
  });

  it('counts failed attempts from one IPv6 /64 as one address, and an IPv4-mapped address as its IPv4 address', async () => {
    await awayFromMinuteBoundary();
    const app = await t.buildAnotherApp(
      { ...t.catalog, rateLimits: { ...t.catalog.rateLimits, perMinute: 2, perDay: 100 } },
      new MemoryRateLimitStore(),
    );
    const attempt = (remoteAddress: string) =>
      app.inject({ method: 'GET', url: '/v1/customers', headers: { authorization: 'Basic sk_wrong_key_00000000000000' }, remoteAddress });
    // Three addresses of 2001:db8:7:8::/64, written three ways.
    const sameNetwork = [];
    for (const address of ['2001:db8:7:8::1', '2001:0DB8:0007:0008:ffff:0:0:2', '2001:db8:7:8:1234:5678:9abc:def0'])
      sameNetwork.push((await attempt(address)).statusCode);
    expect(sameNetwork).toEqual([401, 401, 429]);
    // The next /64 has its own budget.
    expect((await attempt('2001:db8:7:9::1')).statusCode).toBe(401);
    const mapped = [];
    for (const address of ['192.0.2.55', '::ffff:192.0.2.55', '192.0.2.55']) mapped.push((await attempt(address)).statusCode);
    expect(mapped).toEqual([401, 401, 429]);
  });
});
