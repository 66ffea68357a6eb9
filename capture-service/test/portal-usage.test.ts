import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIVATION_FLAGS, activate, newCustomer, newSubscription } from '../../billing-service/test/helpers/api-fixtures.js';
import {
  METERED_CALLS,
  METERED_DATA,
  METERED_VIEWS_FREQUENCY,
  meteredCatalogChanges,
} from '../../billing-service/test/helpers/metered-catalog.js';
import { testCatalog } from '../../billing-service/test/helpers/test-app.js';
import { startCaptureTest, type CaptureTest } from './helpers/capture-test.js';
import { refusalOf, signInToPortal } from './helpers/portal-session.js';

/*
 * The portal's usage read (issue 41): GET /portal/api/usage (the overview's "Used so far this period") and
 * GET /portal/api/subscriptions/{id}/usage, through the capture host's HTTP layer on the database the run names
 * (PGlite, or PostgreSQL with RENEW_TEST_POSTGRES_URL). A customer sees only their own subscriptions' usage.
 */

let t: CaptureTest;
let app: FastifyInstance;

beforeAll(async () => {
  t = await startCaptureTest({ catalog: meteredCatalogChanges(testCatalog()) });
  app = t.app;
}, 60_000);
afterAll(() => t?.close());

type Body = Record<string, any>;

/** An Active customer with a metered subscription (and a BASIC one beside it when asked); the subscriptions' ids. */
async function meteredCustomer(withBasic = false) {
  const customerId = await newCustomer(t.billing, { currency: 'USD' });
  const metered = await newSubscription(t.billing, customerId, METERED_VIEWS_FREQUENCY);
  const basic = withBasic ? await newSubscription(t.billing, customerId) : undefined;
  const activated = await activate(t.billing, customerId, ACTIVATION_FLAGS);
  expect(activated.statusCode, activated.body).toBe(200);
  return { customerId, metered, basic };
}

let nextTransaction = 0;
/** Usage events through the API as the merchant sends them, dated now (the account clock is the wall clock here). */
async function sendEvents(customerId: number, events: Array<{ metricCode: string; properties?: Body }>) {
  const timestamp = new Date().toISOString();
  const res = await t.billing.call(
    'POST',
    '/v1/usageEvents',
    events.map((e) => ({ transactionId: `portal-usage-${++nextTransaction}`, customerId, timestamp, properties: {}, ...e })),
  );
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json()).toEqual({ accepted: events.length, duplicates: 0, refused: [] });
}

const calls = (n: number) => Array.from({ length: n }, () => ({ metricCode: METERED_CALLS.code }));

describe('the portal shows a customer the usage of their own metered subscriptions', () => {
  it("lists each metered subscription's usage so far, priced, equal to the API's; a plan without usage charges is left out", async () => {
    const mine = await meteredCustomer(true);
    const theirs = await meteredCustomer();
    await sendEvents(mine.customerId, [
      ...calls(5),
      { metricCode: METERED_DATA.code, properties: { gb: 1.5 } },
      { metricCode: METERED_DATA.code, properties: { gb: 2.25 } },
    ]);
    await sendEvents(theirs.customerId, calls(7));
    const browser = await signInToPortal(t.billing, app, mine.customerId);

    const listed = await browser.call('GET', '/portal/api/usage');
    expect(listed.statusCode, listed.body).toBe(200);
    const usage = listed.json() as Body[];
    expect(usage.map((u) => u.subscriptionId)).toEqual([mine.metered]);
    // 5 calls, 3 free, 2 at 0.25; 3.75 GB at 0.5 = 1.875, rounded half up once to 1.88.
    expect(usage[0]).toMatchObject({
      currency: 'USD',
      metrics: [
        { metricCode: METERED_CALLS.code, name: METERED_CALLS.name, quantity: 5, amount: 0.5 },
        { metricCode: METERED_DATA.code, name: METERED_DATA.name, quantity: 3.75, billedUnits: 3.75, amount: 1.88 },
      ],
      amount: 2.38,
    });
    const api = await t.billing.call('GET', `/v1/subscriptions/${mine.metered}/usage`);
    expect(usage[0]).toEqual(api.json());

    const one = await browser.call('GET', `/portal/api/subscriptions/${mine.metered}/usage`);
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json()).toEqual(api.json());
    const basic = await browser.call('GET', `/portal/api/subscriptions/${mine.basic}/usage`);
    expect(basic.statusCode, basic.body).toBe(200);
    expect(basic.json()).toMatchObject({ subscriptionId: mine.basic, metrics: [], amount: 0 });
  });

  it("refuses another customer's subscription as not found (404), and answers nobody without a session (401)", async () => {
    const mine = await meteredCustomer();
    const theirs = await meteredCustomer();
    await sendEvents(theirs.customerId, calls(4));
    const browser = await signInToPortal(t.billing, app, mine.customerId);
    const refused = refusalOf(await browser.call('GET', `/portal/api/subscriptions/${theirs.metered}/usage`), 404);
    expect(refused.Code).toBe('not_found');
    expect(refusalOf(await browser.call('GET', '/portal/api/subscriptions/999999999/usage'), 404).Code).toBe('not_found');
    expect(refusalOf(await browser.call('GET', '/portal/api/subscriptions/abc/usage'), 400).Key).toBe('id');
    // Their 4 calls are nowhere in mine: my list has my subscription at nothing used.
    const listed = (await browser.call('GET', '/portal/api/usage')).json() as Body[];
    expect(listed.map((u) => [u.subscriptionId, u.metrics.map((m: Body) => m.quantity), u.amount])).toEqual([[mine.metered, [0, 0], 0]]);
    expect(refusalOf(await app.inject({ method: 'GET', url: '/portal/api/usage' }), 401).Code).toBe('portal_session_expired');
  });
});
