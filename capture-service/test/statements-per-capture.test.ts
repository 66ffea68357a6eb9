/**
 * Statements one card capture with a collection sends to PostgreSQL (issue 17's target C4, kept by
 * issue 25's redesign): 6, counted at pg's Client.query (a `begin` sent in the same write as the
 * transaction's first statement counts too): the CAPTCHA token's claim, then begin, the customer's
 * lock, the card count, the card with its payment and ledger entry, commit. PostgreSQL only.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimitStore } from '@renew/billing-service/http';
import { startCaptureTest, type CaptureTest } from './helpers/capture-test.js';

/**
 * Not the capture's own: the sandbox gateway's record of its operations (a real processor keeps its
 * own), and what runs beside the request on its own timer (the rate-limit counters' batched flush of
 * the billing API's earlier calls, the instance heartbeat).
 */
const NOT_THE_CAPTURES = /sandbox_gateway_operations|rate_limit_counters|service_instances/;

let t: CaptureTest;
let counting = false;
let statements = 0;
const originalQuery = pg.Client.prototype.query;

beforeAll(async () => {
  t = await startCaptureTest({ billing: { backgroundTasks: false } });
  pg.Client.prototype.query = function countedQuery(this: pg.Client, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string } | undefined)?.text ?? '');
    if (counting && !NOT_THE_CAPTURES.test(text))
      statements += (args[0] as object | undefined)?.constructor?.name === 'QueryAfterBegin' ? 2 : 1;
    return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof originalQuery;
});
afterAll(async () => {
  pg.Client.prototype.query = originalQuery;
  await t?.close();
});

describe.skipIf(!process.env.RENEW_TEST_POSTGRES_URL)('statements per capture on PostgreSQL', () => {
  it('a card stored and 10.00 collected with it: 6', async () => {
    const app = await t.build({ rateLimitStore: new MemoryRateLimitStore() });
    const counted: number[] = [];
    for (let i = 0; i < 2; i++) {
      const customerId = await t.customer();
      statements = 0;
      counting = true;
      const res = await t.post(t.params(customerId, { paymentCollectOptions: { collectionAmount: '10.00' } }), { app });
      counting = false;
      expect(res.statusCode, res.body).toBe(200);
      counted.push(statements);
    }
    // the first capture of a new host also reads what it then keeps (the public key's account, the
    // capture settings): the second is what every later capture sends
    expect(counted[0]).toBeGreaterThanOrEqual(6);
    expect(counted[1]).toBe(6);
  });
});
