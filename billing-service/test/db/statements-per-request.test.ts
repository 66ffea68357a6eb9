/**
 * Statements each request sends to PostgreSQL (issue 17's targets, kept by issue 25's redesign):
 * creating a customer, an activation preview and an activation send the counts the benchmark
 * README gives. Counted at pg's Client.query, the one door of every statement; a `begin` sent in the
 * same write as the transaction's first statement (QueryAfterBegin) counts as a statement too.
 * A change that adds a round trip to one of these paths fails here, on PostgreSQL (PGlite has no
 * network round trips to save).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimitStore } from '../../src/http/rate-limit.js';
import { ACTIVATION_FLAGS, newCustomer, newSubscription } from '../helpers/api-fixtures.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const onPostgres = Boolean(process.env.RENEW_TEST_POSTGRES_URL);

let t: TestApp;
let counting = false;
let statements = 0;
const originalQuery = pg.Client.prototype.query;

beforeAll(async () => {
  // The memory store: the shared rate-limit counter is one more statement per request, counted by the benchmark apart.
  // No background task (the api role): only the request's own statements reach the counter.
  t = await startTestApp({ rateLimitStore: new MemoryRateLimitStore(), app: { backgroundTasks: false } });
  pg.Client.prototype.query = function countedQuery(this: pg.Client, ...args: unknown[]) {
    if (counting) statements += (args[0] as object | undefined)?.constructor?.name === 'QueryAfterBegin' ? 2 : 1;
    return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof originalQuery;
});
afterAll(async () => {
  pg.Client.prototype.query = originalQuery;
  await t?.close();
});

/** The statements one request sends (its answer checked, so a refusal cannot pass for a cheap success). */
async function statementsOf(method: 'POST' | 'GET', url: string, body: unknown): Promise<number> {
  statements = 0;
  counting = true;
  const res = await t.call(method, url, body);
  counting = false;
  expect(res.statusCode, res.body).toBe(200);
  return statements;
}

describe.skipIf(!onPostgres)('statements per request on PostgreSQL', () => {
  const CUSTOMER = {
    firstName: 'Ada',
    lastName: 'Lovelace',
    primaryEmail: 'ada@example.com',
    currency: 'USD',
    customerReference: { reference1: 'first', salesTrackingCodes: [{ type: 'Region', code: 'EAST' }] },
    customerAcquisition: { source: 'newsletter' },
    billing: { line1: '1 Main Street', city: 'Springfield', postalZip: '62701', country: 'US', state: 'IL' },
  };

  it('counts what a request sends (the counter can see statements)', async () => {
    const id = await newCustomer(t);
    expect(await statementsOf('GET', `/v1/customers/${id}`, undefined)).toBeGreaterThanOrEqual(1);
  });

  it('creating a customer with every part: 3 (the insert of every row in one statement, with begin and commit)', async () => {
    // warm: the first request of a connection prepares its statements, the count is the same
    await statementsOf('POST', '/v1/customers', CUSTOMER);
    expect(await statementsOf('POST', '/v1/customers', CUSTOMER)).toBe(3);
  });

  it('an activation preview of a Draft customer with 3 subscriptions: 4 (its Draft purchases are read too); the activation itself: 7', async () => {
    const customers = [];
    for (let i = 0; i < 2; i++) {
      const id = await newCustomer(t);
      for (const frequency of [11, 12, 21]) await newSubscription(t, id, frequency);
      customers.push(id);
    }
    const [first, second] = customers as [number, number];
    await statementsOf('POST', '/v1/customeractivation?preview=true', { customerId: first });
    expect(await statementsOf('POST', '/v1/customeractivation?preview=true', { customerId: second })).toBe(4);
    await statementsOf('POST', '/v1/customeractivation', { customerId: first, ...ACTIVATION_FLAGS });
    expect(await statementsOf('POST', '/v1/customeractivation', { customerId: second, ...ACTIVATION_FLAGS })).toBe(7);
  });
});
