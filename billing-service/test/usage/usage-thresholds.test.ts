import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIVATION_FLAGS, activate, createSubscription, listInvoices, newCustomer } from '../helpers/api-fixtures.js';
import { accountOnClock, advanceClock, CLOCK_START, WITH_OUTBOXES } from '../helpers/clock-accounts.js';
import { startTestApp, testCatalog, type TestAccount, type TestApp } from '../helpers/test-app.js';

/**
 * Issue 41: usage thresholds per subscription and metric. Set through the API; an event batch that brings the
 * period's quantity to one fires usage.thresholdReached and the UsageThresholdReached e-mail once per threshold and
 * period, whatever the batches that come after or alongside it; the next period fires them again.
 */
const METERED = 9301;

let t: TestApp;
beforeAll(async () => {
  const base = testCatalog();
  t = await startTestApp({
    catalog: testCatalog({
      defaults: { ...base.defaults, customerGracePeriod: 90 },
      billableMetrics: [
        { code: 'api_calls', name: 'API calls', aggregation: 'count' },
        { code: 'gigabytes', name: 'Data transfer', aggregation: 'sum', property: 'gb' },
        { code: 'seats', name: 'Seats', aggregation: 'max', property: 'seats' },
      ],
      plans: [
        ...base.plans,
        {
          id: 93,
          code: 'METERED_THRESHOLDS',
          name: 'Metered',
          products: [{ code: 'BASE', name: 'Base' }],
          frequencies: [
            {
              id: METERED,
              interval: 'Monthly',
              prices: [{ product: 'BASE', charges: [{ currency: 'USD', amount: '10' }] }],
              usageCharges: [
                { metric: 'api_calls', model: 'perUnit', prices: [{ currency: 'USD', unitAmount: '0.01' }] },
                { metric: 'gigabytes', model: 'perUnit', prices: [{ currency: 'USD', unitAmount: '0.5' }] },
              ],
            },
          ],
        },
      ],
    }),
    app: { testClocks: true, backgroundTasks: false, ...WITH_OUTBOXES },
  });
});
afterAll(async () => t?.close());

type Body = Record<string, any>;

async function metered() {
  const account = await accountOnClock(t);
  const customerId = await newCustomer(t, { currency: 'USD', primaryEmail: 'metered@example.com' }, account);
  const subscription = await createSubscription(t, { customerId, planFrequencyId: METERED }, account);
  expect((await activate(t, customerId, ACTIVATION_FLAGS, '', account)).statusCode).toBe(200);
  const [first] = await listInvoices(t, customerId, account);
  return { account, customerId, subscriptionId: subscription.id as number, periodEnd: first?.charges[0].endServiceDate as string };
}

const put = (account: TestAccount, subscriptionId: number, body: unknown, headers?: Record<string, string>) =>
  t.call('PUT', `/v1/subscriptions/${subscriptionId}/usageThresholds`, body, { as: account, headers });

let n = 0;
/** `count` api_calls events of the customer, dated `at` (default: the clock's start, in the first period). */
function calls(customerId: number, count: number, at = CLOCK_START) {
  return Array.from({ length: count }, () => ({
    transactionId: `c-${n++}`,
    customerId,
    metricCode: 'api_calls',
    timestamp: at.toISOString(),
  }));
}

async function send(account: TestAccount, events: unknown) {
  const res = await t.call('POST', '/v1/usageEvents', events, { as: account });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().refused).toEqual([]);
}

/** The usage.thresholdReached events' data and the UsageThresholdReached e-mails' events of the customer, in order. */
async function fired(customerId: number) {
  const db = t.database.db;
  const [events, mails] = await Promise.all([
    db
      .selectFrom('webhookEvents')
      .select('payload')
      .where('customerId', '=', customerId)
      .where('eventType', '=', 'usage.thresholdReached')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('emailOutbox')
      .select('content')
      .where('customerId', '=', customerId)
      .where('emailType', '=', 'UsageThresholdReached')
      .orderBy('id')
      .execute(),
  ]);
  return { events: events.map((e) => (e.payload as Body).data), mails: mails.map((m) => (m.content as Body).event) };
}

describe('PUT and GET /v1/subscriptions/{id}/usageThresholds', () => {
  it('replaces the set, normalised and sorted, and answers it again on GET; an Idempotency-Key replays', async () => {
    const { account, subscriptionId } = await metered();
    const empty = await t.call('GET', `/v1/subscriptions/${subscriptionId}/usageThresholds`, undefined, { as: account });
    expect(empty.json()).toEqual({ subscriptionId, thresholds: [] });
    const body = [
      { metricCode: 'gigabytes', quantity: '12.50' },
      { metricCode: 'api_calls', quantity: 1000 },
      { metricCode: 'api_calls', quantity: 100 },
    ];
    const res = await put(account, subscriptionId, body, { 'Idempotency-Key': 'thresholds-1' });
    expect(res.statusCode, res.body).toBe(200);
    const expected = {
      subscriptionId,
      thresholds: [
        { metricCode: 'api_calls', quantity: 100 },
        { metricCode: 'api_calls', quantity: 1000 },
        { metricCode: 'gigabytes', quantity: 12.5 },
      ],
    };
    expect(res.json()).toEqual(expected);
    expect((await put(account, subscriptionId, body, { 'Idempotency-Key': 'thresholds-1' })).json()).toEqual(expected);
    const read = await t.call('GET', `/v1/subscriptions/${subscriptionId}/usageThresholds`, undefined, { as: account });
    expect(read.json()).toEqual(expected);
    const replaced = await put(account, subscriptionId, [{ metricCode: 'gigabytes', quantity: 3 }]);
    expect(replaced.json().thresholds).toEqual([{ metricCode: 'gigabytes', quantity: 3 }]);
    expect((await put(account, subscriptionId, [])).json().thresholds).toEqual([]);
  });

  it('refuses a metric the plan does not charge, a quantity not above 0, a repeat, more than 10, and another account’s subscription', async () => {
    const { account, subscriptionId } = await metered();
    const refused = async (body: unknown, Key: string, status = 400) => {
      const res = await put(account, subscriptionId, body);
      expect(res.statusCode, res.body).toBe(status);
      expect(res.json().Errors?.[0]?.Key ?? res.json()[0]?.Key, res.body).toBe(Key);
    };
    // seats is a metric of the catalogue this plan does not charge; nope is no metric at all
    await refused(
      [
        { metricCode: 'api_calls', quantity: 5 },
        { metricCode: 'seats', quantity: 5 },
      ],
      '[1].metricCode',
    );
    await refused([{ metricCode: 'nope', quantity: 5 }], '[0].metricCode');
    await refused([{ metricCode: 'api_calls', quantity: 0 }], '[0].quantity');
    await refused([{ metricCode: 'api_calls', quantity: '-3' }], '[0].quantity');
    await refused([{ metricCode: 'api_calls', quantity: 'ten' }], '[0].quantity');
    await refused(
      [
        { metricCode: 'api_calls', quantity: 5 },
        { metricCode: 'api_calls', quantity: '5.0' },
      ],
      '[1].quantity',
    );
    const eleven = Array.from({ length: 11 }, (_, i) => ({ metricCode: 'api_calls', quantity: i + 1 }));
    const many = await put(account, subscriptionId, eleven);
    expect(many.statusCode).toBe(400);
    expect((await put(account, subscriptionId, eleven.slice(0, 10))).statusCode).toBe(200);
    // nothing refused changed the set
    const read = await t.call('GET', `/v1/subscriptions/${subscriptionId}/usageThresholds`, undefined, { as: account });
    expect(read.json().thresholds).toHaveLength(10);
    const other = await t.newAccount();
    expect((await put(other, subscriptionId, [{ metricCode: 'api_calls', quantity: 5 }])).statusCode).toBe(404);
    expect((await put(account, 2147483648, [])).statusCode).toBe(404);
    expect((await t.call('GET', `/v1/subscriptions/${subscriptionId}/usageThresholds`, undefined, { as: other })).statusCode).toBe(404);
    const publicKey = await t.app.inject({
      method: 'GET',
      url: `/v1/subscriptions/${subscriptionId}/usageThresholds`,
      headers: { authorization: `Basic ${account.publicApiKey}` },
    });
    expect(publicKey.statusCode).toBe(401);
  });
});

describe('usage.thresholdReached', () => {
  it('fires once per threshold and period: a crossing batch, not the ones after, once for concurrent ones, again next period', async () => {
    const { account, customerId, subscriptionId, periodEnd } = await metered();
    expect(
      (
        await put(account, subscriptionId, [
          { metricCode: 'api_calls', quantity: 10 },
          { metricCode: 'api_calls', quantity: 30 },
        ])
      ).statusCode,
    ).toBe(200);
    await send(account, calls(customerId, 9));
    expect(await fired(customerId)).toEqual({ events: [], mails: [] });
    await send(account, calls(customerId, 2));
    const periodStart = CLOCK_START.toISOString().slice(0, 10);
    const first = { subscriptionId, customerId, metricCode: 'api_calls', threshold: 10, quantity: 11, periodStart, periodEnd };
    expect(await fired(customerId)).toEqual({
      events: [first],
      mails: [{ type: 'UsageThresholdReached', metricName: 'API calls', threshold: '10', quantity: '11', periodStart }],
    });
    // past it again, and a batch sent again: nothing more
    const more = calls(customerId, 5);
    await send(account, more);
    await send(account, more);
    expect((await fired(customerId)).events).toHaveLength(1);
    // 16 now: eight concurrent batches of 2 bring it to 32, past 30: one event and one e-mail for 30
    await Promise.all(Array.from({ length: 8 }, () => send(account, calls(customerId, 2))));
    const after = await fired(customerId);
    expect(after.events.map((e: Body) => e.threshold)).toEqual([10, 30]);
    expect(after.events[1].quantity).toBeGreaterThanOrEqual(30);
    expect(after.mails.map((m: Body) => m.threshold)).toEqual(['10', '30']);
    const usage = (await t.call('GET', `/v1/subscriptions/${subscriptionId}/usage`, undefined, { as: account })).json();
    expect(usage.metrics[0].quantity).toBe(32);

    // the next period (renewed an hour after its start, the grace window): its own count, the thresholds fire again
    const endMs = Date.parse(`${periodEnd}T00:00:00Z`);
    await advanceClock(t, account, new Date(endMs + 61 * 60_000));
    expect(await listInvoices(t, customerId, account)).toHaveLength(2);
    await send(account, calls(customerId, 10, new Date(endMs + 60 * 60_000)));
    const next = await fired(customerId);
    expect(next.events).toHaveLength(3);
    expect(next.events[2]).toMatchObject({ threshold: 10, quantity: 10, periodStart: periodEnd });
    expect(next.mails.map((m: Body) => [m.threshold, m.periodStart])).toEqual([
      ['10', periodStart],
      ['30', periodStart],
      ['10', periodEnd],
    ]);
  });

  it('fires for a sum metric when one event passes two thresholds at once; a customer who turned the e-mail off gets none', async () => {
    const { account, customerId, subscriptionId } = await metered();
    const off = await t.call(
      'PUT',
      '/v1/CustomerEmailPreferences',
      { customerId, preferences: [{ emailType: 'UsageThresholdReached', enabled: false }] },
      { as: account },
    );
    expect(off.statusCode, off.body).toBe(200);
    await put(account, subscriptionId, [
      { metricCode: 'gigabytes', quantity: '1.5' },
      { metricCode: 'gigabytes', quantity: 2 },
      { metricCode: 'gigabytes', quantity: 100 },
      { metricCode: 'api_calls', quantity: 1 },
    ]);
    const at = CLOCK_START.toISOString();
    await send(account, { transactionId: `g-${n++}`, customerId, metricCode: 'gigabytes', timestamp: at, properties: { gb: 2.25 } });
    const { events, mails } = await fired(customerId);
    expect(events.map((e: Body) => [e.metricCode, e.threshold, e.quantity])).toEqual([
      ['gigabytes', 1.5, 2.25],
      ['gigabytes', 2, 2.25],
    ]);
    expect(mails).toEqual([]);
  });
});
