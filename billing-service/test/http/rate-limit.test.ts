import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimitStore, PostgresRateLimitStore } from '../../src/http/rate-limit.js';
import { errorsOf, startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.js';

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
    const results = await Promise.all(Array.from({ length: 20 }, () => store.hit('concurrency-check', ['Minute', 'Day'], now)));
    const minuteCounts = results.map((r) => r[0]).sort((a, b) => a! - b!);
    expect(minuteCounts).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('starts a new window when the minute turns', async () => {
    const store = new MemoryRateLimitStore();
    const minute = 60_000;
    const start = Math.floor(Date.now() / minute) * minute;
    expect(await store.hit('k', ['Minute'], start + 10)).toEqual([1]);
    expect(await store.hit('k', ['Minute'], start + 20)).toEqual([2]);
    expect(await store.hit('k', ['Minute'], start + minute)).toEqual([1]);
  });

  it('limits failed authentication attempts per client address', async () => {
    await awayFromMinuteBoundary();
    const app = await t.buildAnotherApp(
      { ...t.catalog, rateLimits: { perMinute: 2, perDay: 100 } },
      new MemoryRateLimitStore(),
    );
    const bad = { authorization: 'Basic sk_wrong_key_00000000000000' };
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await app.inject({ method: 'GET', url: '/v1/customers', headers: bad })).statusCode);
    expect(statuses).toEqual([401, 401, 429]);
  });
});
