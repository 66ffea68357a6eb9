import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACTIVATION_FLAGS,
  activate,
  cancel,
  createSubscription,
  DAY,
  listInvoices,
  newCustomer,
  newSubscription,
  uncancel,
} from '../helpers/api-fixtures.js';
import { runBillingClock } from '../../src/lifecycle/billing-clock.js';
import { accountOnClock, advanceClock, CLOCK_START, WITH_OUTBOXES } from '../helpers/clock-accounts.js';
import { basicAuth, startTestApp, testCatalog, type TestAccount, type TestApp } from '../helpers/test-app.js';

/**
 * Issue 41, the story: a metered plan (a base price, API calls graduated with 1,000 free, data in packages of 10 GB)
 * with a 20 % coupon, a month of events through the account's test clock (out of order, repeated, some late within the
 * grace window), and the renewal invoice's usage lines equal to the events of the period, in USD, JPY and BHD. The
 * expected amounts are computed here in minor units, independently of the pricing code.
 */
const METERED = 9201;
/** Per currency: the base price, the price per call past the free 1,000 and per 10 GB block, as minor units per unit (num/den), digits. */
const PRICES = {
  USD: { base: '20', perCall: '0.002', block: '1', callMinor: [1, 5], blockMinor: 100, digits: 2 },
  JPY: { base: '2000', perCall: '0.2', block: '100', callMinor: [1, 5], blockMinor: 100, digits: 0 },
  BHD: { base: '7.5', perCall: '0.00075', block: '0.375', callMinor: [3, 4], blockMinor: 375, digits: 3 },
} as const;
type Currency = keyof typeof PRICES;
const CURRENCIES = Object.keys(PRICES) as Currency[];

let t: TestApp;
beforeAll(async () => {
  const base = testCatalog();
  t = await startTestApp({
    catalog: testCatalog({
      currencies: { default: 'USD', allowed: CURRENCIES },
      // the first invoice stays unpaid: the customer stays Active through the month (suspension is not this test's)
      // and zero-amount lines are shown, so a usage line under the free units still shows its quantity
      defaults: { ...base.defaults, customerGracePeriod: 90, showZeroDollarCharges: true },
      billableMetrics: [
        { code: 'api_calls', name: 'API calls', aggregation: 'count' },
        { code: 'gigabytes', name: 'Data transfer', aggregation: 'sum', property: 'gb' },
      ],
      coupons: [...base.coupons, { code: 'USAGE20', name: '20 % off', kind: 'Percentage', value: '20', duration: 'Forever' }],
      plans: [
        ...base.plans,
        {
          id: 92,
          code: 'METERED_PRO',
          name: 'Metered Pro',
          products: [{ code: 'BASE', name: 'Base' }],
          frequencies: [
            {
              id: METERED,
              interval: 'Monthly',
              prices: [{ product: 'BASE', charges: CURRENCIES.map((currency) => ({ currency, amount: PRICES[currency].base })) }],
              usageCharges: [
                {
                  metric: 'api_calls',
                  model: 'graduated',
                  prices: CURRENCIES.map((currency) => ({
                    currency,
                    tiers: [
                      { upTo: 1000, unitAmount: '0' },
                      { upTo: null, unitAmount: PRICES[currency].perCall },
                    ],
                  })),
                },
                {
                  metric: 'gigabytes',
                  model: 'package',
                  packageSize: 10,
                  prices: CURRENCIES.map((currency) => ({ currency, packageAmount: PRICES[currency].block })),
                },
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
const send = (account: TestAccount, body: unknown) => t.call('POST', '/v1/usageEvents', body, { as: account });
const usageOf = async (account: TestAccount, subscriptionId: number) =>
  (await t.call('GET', `/v1/subscriptions/${subscriptionId}/usage`, undefined, { as: account })).json();

/** Half up to a whole number of minor units of num/den, as the currency's decimal. */
function minorToAmount(num: number, den: number, digits: number): number {
  const minor = Math.floor((2 * num + den) / (2 * den));
  return minor / 10 ** digits;
}

/** A small deterministic generator (the test must fail the same way twice). */
function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}

async function meteredSubscription(currency: Currency) {
  const account = await accountOnClock(t);
  const customerId = await newCustomer(t, { currency }, account);
  const subscription = await createSubscription(t, { customerId, planFrequencyId: METERED }, account);
  const subscriptionId = subscription.id;
  const withCoupon = await t.call('PUT', '/v1/subscriptions', { ...subscription, coupons: [{ code: 'USAGE20' }] }, { as: account });
  expect(withCoupon.statusCode, withCoupon.body).toBe(200);
  expect((await activate(t, customerId, ACTIVATION_FLAGS, '', account)).statusCode).toBe(200);
  const [first] = await listInvoices(t, customerId, account);
  const periodEnd: string = first?.charges[0].endServiceDate;
  return { account, customerId, subscriptionId, periodEnd };
}

describe('usage billed in arrears on the renewal invoice', () => {
  it.each(CURRENCIES)('bills the period’s events on the renewal, late ones within the grace window too (%s)', async (currency) => {
    const price = PRICES[currency];
    const { account, customerId, subscriptionId, periodEnd } = await meteredSubscription(currency);
    const random = seeded(currency.charCodeAt(0) * 7919);
    const periodStartMs = Date.parse(`${CLOCK_START.toISOString().slice(0, 10)}T00:00:00Z`);
    const endMs = Date.parse(`${periodEnd}T00:00:00Z`);
    let calls = 0;
    let gbHundredths = 0;
    let n = 0;
    // four stages through the month: the clock moves on, then events dated since the last stage arrive shuffled
    let from = periodStartMs;
    for (const stage of [1, 2, 3, 4]) {
      const to = Math.min(CLOCK_START.getTime() + stage * 7 * DAY, endMs - 3_600_000);
      await advanceClock(t, account, new Date(to));
      const events: Body[] = [];
      const count = 300 + Math.floor(random() * 200);
      for (let i = 0; i < count; i++) {
        const timestamp = new Date(from + Math.floor(random() * (to - from))).toISOString();
        if (random() < 0.2) {
          const hundredths = 1 + Math.floor(random() * 900);
          gbHundredths += hundredths;
          events.push({ transactionId: `e-${n++}`, customerId, metricCode: 'gigabytes', timestamp, properties: { gb: hundredths / 100 } });
        } else {
          calls += 1;
          events.push({ transactionId: `e-${n++}`, customerId, metricCode: 'api_calls', timestamp });
        }
      }
      events.sort(() => random() - 0.5);
      // every batch sent twice: the repeat is acknowledged as duplicates and not counted
      for (const batch of [events, events.slice(0, 50)]) expect((await send(account, batch)).json().refused).toEqual([]);
      from = to;
    }
    // half an hour after the period ended: not renewed yet (the grace window), and late events of the period still land
    await advanceClock(t, account, new Date(endMs + 30 * 60_000));
    expect(await listInvoices(t, customerId, account)).toHaveLength(1);
    const late = [
      { transactionId: 'late-1', customerId, metricCode: 'api_calls', timestamp: new Date(endMs - 60_000).toISOString() },
      {
        transactionId: 'late-2',
        customerId,
        metricCode: 'gigabytes',
        timestamp: new Date(endMs - 1).toISOString(),
        properties: { gb: 0.5 },
      },
      { transactionId: 'next-1', customerId, metricCode: 'api_calls', timestamp: new Date(endMs + 10 * 60_000).toISOString() },
    ];
    expect((await send(account, late)).json()).toMatchObject({ accepted: 3, refused: [] });
    calls += 1;
    gbHundredths += 50;
    const preview = await usageOf(account, subscriptionId);

    await advanceClock(t, account, new Date(endMs + 61 * 60_000));
    const invoices = await listInvoices(t, customerId, account);
    expect(invoices).toHaveLength(2);
    const renewal = invoices.find((i) => i.charges.some((c: Body) => c.chargeType === 'Usage'));
    expect(renewal, JSON.stringify(invoices)).toBeDefined();
    const usageLines = renewal?.charges.filter((c: Body) => c.chargeType === 'Usage') ?? [];
    const [callNum, callDen] = price.callMinor;
    const callsAmount = minorToAmount(Math.max(0, calls - 1000) * callNum, callDen, price.digits);
    const blocks = Math.ceil(gbHundredths / 1000);
    const dataAmount = minorToAmount(blocks * price.blockMinor, 1, price.digits);
    const periodStart = CLOCK_START.toISOString().slice(0, 10);
    expect(usageLines.map((c: Body) => [c.productCode, c.quantity, c.amount, c.startServiceDate, c.endServiceDate])).toEqual([
      ['api_calls', calls, callsAmount, periodStart, periodEnd],
      ['gigabytes', gbHundredths / 100, dataAmount, periodStart, periodEnd],
    ]);
    // the preview read before the renewal is what the invoice billed
    expect(preview.metrics.map((m: Body) => [m.metricCode, m.quantity, m.amount])).toEqual(
      usageLines.map((c: Body) => [c.productCode, c.quantity, c.amount]),
    );
    // the coupon discounts usage lines as it does the recurring line: 20 % each, rounded to the minor unit
    for (const line of usageLines) {
      const minor = Math.round(line.amount * 10 ** price.digits);
      const expected = minorToAmount(minor * 20, 100, price.digits);
      expect(line.draftDiscounts.reduce((s: number, d: Body) => s + d.amount, 0)).toBeCloseTo(expected, price.digits + 2);
    }
    const recurring = renewal?.charges.find((c: Body) => c.chargeType === 'Recurring');
    expect([recurring?.startServiceDate, recurring?.amount]).toEqual([periodEnd, Number(price.base)]);
    expect(recurring?.draftDiscounts[0]?.amount).toBe(Number(price.base) * 0.2);

    // once invoiced, the period is closed: a later event dated in it is refused with its field and code
    const refused = (await send(account, { ...late[0], transactionId: 'too-late' })).json();
    expect(refused.refused[0].errors[0]).toMatchObject({ Key: '[0].timestamp', Code: 'usage_out_of_period' });
    const next = await usageOf(account, subscriptionId);
    expect([next.periodStart, next.metrics[0].quantity]).toEqual([periodEnd, 1]);
  });

  it('loses no event that races the renewal: each accepted one is on the invoice, the rest are refused', async () => {
    const { account, customerId, periodEnd } = await meteredSubscription('USD');
    const endMs = Date.parse(`${periodEnd}T00:00:00Z`);
    await advanceClock(t, account, new Date(endMs + 30 * 60_000));
    const batch = (k: number) =>
      Array.from({ length: 200 }, (_, i) => ({
        transactionId: `r-${k}-${i}`,
        customerId,
        metricCode: 'api_calls',
        timestamp: new Date(endMs - 3_600_000 + i).toISOString(),
      }));
    // two streams send batches for as long as the renewal runs, and one more each after it
    let renewing = true;
    const renewal = advanceClock(t, account, new Date(endMs + 2 * 3_600_000)).finally(() => {
      renewing = false;
    });
    let sent = 0;
    const stream = async (k: number) => {
      const answers: Body[] = [];
      for (let round = 0; renewing || round < 2; round++) {
        const last = !renewing;
        answers.push((await send(account, batch(k * 1000 + round))).json());
        sent += 200;
        if (last) break;
      }
      return answers;
    };
    const answers = (await Promise.all([stream(1), stream(2), renewal])).slice(0, 2).flat() as Body[];
    const accepted = answers.reduce((sum, a) => sum + a.accepted, 0);
    const refused = answers.flatMap((a) => a.refused);
    expect(accepted + refused.length).toBe(sent);
    expect(refused.every((r: Body) => r.errors[0].Code === 'usage_out_of_period')).toBe(true);
    const invoices = await listInvoices(t, customerId, account);
    const line = invoices.flatMap((i) => i.charges).find((c: Body) => c.chargeType === 'Usage' && c.productCode === 'api_calls');
    expect(line?.quantity).toBe(accepted);
  });

  it('bills a cancelled subscription’s usage at once, and not again after an uncancel', async () => {
    const { account, customerId, subscriptionId, periodEnd } = await meteredSubscription('USD');
    const start = CLOCK_START.getTime();
    await advanceClock(t, account, new Date(start + 10 * DAY));
    const calls = (prefix: string, count: number, from: number) =>
      Array.from({ length: count }, (_, i) => ({
        transactionId: `${prefix}-${i}`,
        customerId,
        metricCode: 'api_calls',
        timestamp: new Date(from + i * 1000).toISOString(),
      }));
    for (const batch of [calls('before', 1500, start).slice(0, 1000), calls('before', 1500, start).slice(1000)])
      expect((await send(account, batch)).json().refused).toEqual([]);
    expect((await cancel(t, customerId, 'None', account)).statusCode).toBe(204);
    const today = new Date(start + 10 * DAY).toISOString().slice(0, 10);
    const tomorrow = new Date(start + 11 * DAY).toISOString().slice(0, 10);
    const finalLines = (await listInvoices(t, customerId, account)).flatMap((i) => i.charges).filter((c: Body) => c.chargeType === 'Usage');
    // 1,500 calls, the first 1,000 free, 500 × 0.002 = 1.00; data: none, shown at 0 (this catalogue shows zero lines)
    expect(finalLines.map((c: Body) => [c.productCode, c.quantity, c.amount, c.startServiceDate, c.endServiceDate])).toEqual([
      ['api_calls', 1500, 1, CLOCK_START.toISOString().slice(0, 10), tomorrow],
      ['gigabytes', 0, 0, CLOCK_START.toISOString().slice(0, 10), tomorrow],
    ]);
    // its PDF prices the line by its tiers (the description), not by an average unit price
    const finalInvoice = (await listInvoices(t, customerId, account)).find((i) => i.charges.some((c: Body) => c.chargeType === 'Usage'));
    const pdf = await t.app.inject({
      method: 'GET',
      url: `/v1/Invoices/pdf/${finalInvoice?.id}`,
      headers: { authorization: basicAuth(account.apiKey) },
    });
    const document = await getDocumentProxy(new Uint8Array(pdf.rawPayload));
    const text = (await extractText(document, { mergePages: true })).text.replace(/\s+/g, ' ');
    expect(text).toContain('API calls 1,500 1.00 1–1000: 1000 × 0; 1001+: 500 × 0.002');
    expect(text).not.toContain('0.0006');
    expect((await send(account, calls('cancelled', 1, start + 10 * DAY))).json().refused[0].errors[0].Code).toBe('usage_not_charged');

    expect((await uncancel(t, customerId, account)).statusCode).toBe(200);
    // today's usage was billed with the cancellation: an event dated today is refused, tomorrow's are taken
    const sameDay = (await send(account, calls('same-day', 1, start + 10 * DAY))).json();
    expect([sameDay.refused[0].errors[0].Code, today]).toEqual(['usage_out_of_period', today]);
    await advanceClock(t, account, new Date(start + 12 * DAY));
    const after = calls('after', 1200, Date.parse(`${tomorrow}T00:00:00Z`));
    for (const batch of [after.slice(0, 1000), after.slice(1000)]) expect((await send(account, batch)).json().refused).toEqual([]);
    expect((await usageOf(account, subscriptionId)).periodStart).toBe(tomorrow);
    await advanceClock(t, account, new Date(Date.parse(`${periodEnd}T00:00:00Z`) + 2 * 3_600_000));
    const renewalLines = (await listInvoices(t, customerId, account))
      .flatMap((i) => i.charges)
      .filter((c: Body) => c.chargeType === 'Usage' && c.startServiceDate === tomorrow);
    expect(renewalLines.map((c: Body) => [c.productCode, c.quantity, c.amount, c.endServiceDate])).toEqual([
      ['api_calls', 1200, 0.4, periodEnd],
      ['gigabytes', 0, 0, periodEnd],
    ]);
  });

  it('customers waiting out their usage grace window take no place in a tick’s batch: a due customer behind them renews', async () => {
    const account = await accountOnClock(t);
    const customerOn = async (planFrequencyId?: number) => {
      const customerId = await newCustomer(t, { currency: 'USD' }, account);
      await newSubscription(t, customerId, planFrequencyId, account);
      expect((await activate(t, customerId, ACTIVATION_FLAGS, '', account)).statusCode).toBe(200);
      return customerId;
    };
    const metered = [await customerOn(METERED), await customerOn(METERED)];
    const flat = await customerOn();
    const periodEnd: string = (await listInvoices(t, flat, account))[0]?.charges[0].endServiceDate;
    // a batch of two, filled by the metered customers if they were taken while their grace window runs
    const scope = { kind: 'account', accountId: account.accountId, batch: 2 } as const;
    const inGrace = await runBillingClock(t.app.ctx, new Date(`${periodEnd}T00:30:00Z`), scope);
    expect(inGrace.renewed).toEqual([flat]);
    const afterGrace = await runBillingClock(t.app.ctx, new Date(`${periodEnd}T01:30:00Z`), scope);
    expect(afterGrace.renewed).toEqual(metered);
  });
});
