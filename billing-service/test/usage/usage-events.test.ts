import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIVATION_FLAGS, activate, newCustomer, newSubscription } from '../helpers/api-fixtures.js';
import { accountOnClock, advanceClock, CLOCK_START, WITH_OUTBOXES } from '../helpers/clock-accounts.js';
import { startTestApp, testCatalog, type TestAccount, type TestApp } from '../helpers/test-app.js';

/**
 * Issue 41: POST /v1/usageEvents and GET /v1/subscriptions/{id}/usage. A metered plan charges six metrics; the
 * expected quantities are computed here from the events sent, independently of the rollup.
 */
const METERED = 9101;
const metrics = [
  { code: 'api_calls', name: 'API calls', aggregation: 'count' },
  { code: 'gigabytes', name: 'Data', aggregation: 'sum', property: 'gb' },
  { code: 'peak_seats', name: 'Peak seats', aggregation: 'max', property: 'seats' },
  { code: 'active_users', name: 'Active users', aggregation: 'uniqueCount', property: 'user' },
  { code: 'storage', name: 'Storage', aggregation: 'latest', property: 'gb', reset: 'carried' },
  { code: 'eu_calls', name: 'EU calls', aggregation: 'count', filters: { region: ['eu'] } },
  { code: 'not_charged', name: 'Not charged', aggregation: 'count' },
];
const perUnit = (metric: string, unitAmount: string) => ({ metric, model: 'perUnit', prices: [{ currency: 'USD', unitAmount }] });

let t: TestApp;
beforeAll(async () => {
  const base = testCatalog();
  t = await startTestApp({
    catalog: testCatalog({
      billableMetrics: metrics,
      plans: [
        ...base.plans,
        {
          id: 91,
          code: 'METERED_TEST',
          name: 'Metered (test)',
          products: [{ code: 'BASE', name: 'Base' }],
          frequencies: [
            {
              id: METERED,
              interval: 'Monthly',
              prices: [{ product: 'BASE', charges: [{ currency: 'USD', amount: '5' }] }],
              usageCharges: [
                {
                  metric: 'api_calls',
                  model: 'graduated',
                  prices: [
                    {
                      currency: 'USD',
                      tiers: [
                        { upTo: 3, unitAmount: '0' },
                        { upTo: null, unitAmount: '0.002' },
                      ],
                    },
                  ],
                },
                perUnit('gigabytes', '0.5'),
                perUnit('peak_seats', '3'),
                perUnit('active_users', '1'),
                perUnit('storage', '0.1'),
                perUnit('eu_calls', '0.01'),
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
/** The account clock once the customer is activated: hours after CLOCK_START. */
const NOW_HOURS = 72;
const at = (hours: number) => new Date(CLOCK_START.getTime() + hours * 3_600_000).toISOString();
const send = (account: TestAccount, body: unknown) => t.call('POST', '/v1/usageEvents', body, { as: account });

async function meteredCustomer(account: TestAccount, reference?: string) {
  const customerId = await newCustomer(t, { currency: 'USD', ...(reference ? { reference } : {}) }, account);
  const subscriptionId = await newSubscription(t, customerId, METERED, account);
  expect((await activate(t, customerId, ACTIVATION_FLAGS, '', account)).statusCode).toBe(200);
  // three days into the period: the events of these tests are in its past
  await advanceClock(t, account, new Date(at(NOW_HOURS)));
  return { customerId, subscriptionId };
}

describe('POST /v1/usageEvents', () => {
  it('stores the good events of a batch and refuses each bad one by index, with its field and code', async () => {
    const account = await accountOnClock(t);
    const { customerId } = await meteredCustomer(account, 'ACME-1');
    const other = await newCustomer(t, { currency: 'USD' }, account);
    const event = (n: number, extra: Body = {}) => ({
      transactionId: `t-${n}`,
      customerId,
      metricCode: 'api_calls',
      timestamp: at(1),
      ...extra,
    });
    const res = await send(account, [
      event(0),
      event(1, { customerId: undefined, customerReference: 'ACME-1' }),
      event(2, { metricCode: 'unknown_metric' }),
      event(3, { timestamp: at(-48) }),
      event(4, { timestamp: at(NOW_HOURS + 0.2) }),
      event(5, { metricCode: 'gigabytes', properties: { gb: 'lots' } }),
      event(6, { metricCode: 'not_charged' }),
      event(7, { customerId: other }),
      event(8, { customerId: 2_000_000_000 }),
      { transactionId: 't-9', metricCode: 'api_calls', timestamp: at(1) },
      'not an event',
      event(0),
    ]);
    expect(res.statusCode, res.body).toBe(200);
    const answer = res.json();
    expect([answer.accepted, answer.duplicates], JSON.stringify(answer)).toEqual([2, 1]);
    expect(answer.refused.map((r: Body) => [r.index, r.errors[0].Key, r.errors[0].Code])).toEqual([
      [2, '[2].metricCode', 'value_invalid'],
      [3, '[3].timestamp', 'usage_out_of_period'],
      [4, '[4].timestamp', 'usage_out_of_period'],
      [5, '[5].properties.gb', 'value_invalid'],
      [6, '[6].metricCode', 'usage_not_charged'],
      [7, '[7].metricCode', 'usage_not_charged'],
      [8, '[8].customerId', 'not_found'],
      [9, '[9].customerId', 'value_required'],
      [10, '[10]', 'value_invalid'],
    ]);
    // 12 minutes ahead of the clock is beyond the 5-minute skew, 3 minutes is not; 48 hours before the activation is before the period
    expect((await send(account, event(11, { timestamp: at(NOW_HOURS + 0.05) }))).json()).toMatchObject({ accepted: 1, refused: [] });
    expect((await send(account, { nothing: true })).json().refused[0].errors.map((e: Body) => e.Key)).toContain('[0].transactionId');
    expect((await send(account, [])).statusCode).toBe(400);
    expect(
      (
        await send(
          account,
          Array.from({ length: 1001 }, (_, n) => event(100 + n)),
        )
      ).statusCode,
    ).toBe(400);
  });

  it('counts a batch once when it is sent three times at once', async () => {
    const account = await accountOnClock(t);
    const { customerId, subscriptionId } = await meteredCustomer(account);
    const batch = Array.from({ length: 300 }, (_, n) => ({
      transactionId: `c-${n}`,
      customerId,
      metricCode: 'api_calls',
      timestamp: at(n / 100),
    }));
    const answers = (await Promise.all([send(account, batch), send(account, batch), send(account, batch)])).map((r) => r.json());
    expect(answers.reduce((sum, a) => sum + a.accepted, 0)).toBe(300);
    expect(answers.reduce((sum, a) => sum + a.duplicates, 0)).toBe(600);
    const usage = (await t.call('GET', `/v1/subscriptions/${subscriptionId}/usage`, undefined, { as: account })).json();
    expect(usage.metrics.find((m: Body) => m.metricCode === 'api_calls')).toMatchObject({ quantity: 300, billedUnits: 300, amount: 0.59 });
  });

  it('aggregates each metric as the events say: count, sum, max, unique count, latest, a filter', async () => {
    const account = await accountOnClock(t);
    const { customerId, subscriptionId } = await meteredCustomer(account);
    const events: Body[] = [];
    let n = 0;
    const add = (metricCode: string, hours: number, properties: Body) =>
      events.push({ transactionId: `a-${n++}`, customerId, metricCode, timestamp: at(hours), properties });
    const gb = ['1.5', '2.25', '0.125', '10'];
    for (const [i, v] of gb.entries()) add('gigabytes', i * 7, { gb: v });
    for (const [i, seats] of [3, 9, 4].entries()) add('peak_seats', i * 5, { seats });
    for (const [i, user] of ['ann', 'bo', 'ann', 'cy', 'bo'].entries()) add('active_users', i * 3, { user });
    for (const [i, v] of ['40', '55.5', '52'].entries()) add('storage', i * 24, { gb: v });
    for (const [i, region] of ['eu', 'us', 'eu', 'eu'].entries()) add('eu_calls', i, { region });
    // sent in reverse order, in two batches: arrival order does not matter
    const reversed = [...events].reverse();
    for (const batch of [reversed.slice(0, 9), reversed.slice(9)]) expect((await send(account, batch)).json().refused).toEqual([]);
    const usage = (await t.call('GET', `/v1/subscriptions/${subscriptionId}/usage`, undefined, { as: account })).json();
    const quantity = (code: string) => usage.metrics.find((m: Body) => m.metricCode === code)?.quantity;
    expect(quantity('gigabytes')).toBe(13.875);
    expect(quantity('peak_seats')).toBe(9);
    expect(quantity('active_users')).toBe(3);
    expect(quantity('storage')).toBe(52);
    expect(quantity('eu_calls')).toBe(3);
    expect(quantity('api_calls')).toBe(0);
    // 13.875 × 0.5 + 9 × 3 + 3 × 1 + 52 × 0.1 + 3 × 0.01 = 6.9375 → 6.94, 27, 3, 5.2, 0.03
    expect(usage.metrics.map((m: Body) => m.amount)).toEqual([0, 6.94, 27, 3, 5.2, 0.03]);
    expect(usage.amount).toBe(42.17);
    expect(usage.periodStart).toBe(CLOCK_START.toISOString().slice(0, 10));
  });

  it("answers 404 for another account's subscription", async () => {
    const account = await accountOnClock(t);
    const { subscriptionId } = await meteredCustomer(account);
    const stranger = await t.newAccount();
    expect((await t.call('GET', `/v1/subscriptions/${subscriptionId}/usage`, undefined, { as: stranger })).statusCode).toBe(404);
  });
});
