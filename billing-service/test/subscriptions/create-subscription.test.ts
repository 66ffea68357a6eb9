import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';
import { callOn, usdCadCatalog } from './subscription-fixtures.js';
import {
  API_BASE as BASE,
  BASIC_MONTHLY,
  BASIC_YEARLY,
  PRO_MONTHLY,
  createCustomer,
  createSubscription,
  newCustomer,
  readSubscription,
} from '../helpers/api-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  // test clocks on: an account whose clock was advanced creates subscriptions at its own time
  t = await startTestApp({ app: { testClocks: true } });
});
afterAll(async () => t?.close());

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function product(subscriptionId: number, fields: Record<string, unknown>) {
  return {
    subscriptionId,
    productDescription: null,
    isIncluded: true,
    priceOverride: null,
    discount: null,
    id: expect.any(Number),
    uri: expect.stringMatching(new RegExp(`^${BASE}/subscriptions/${subscriptionId}/subscriptionProducts/\\d+$`)),
    ...fields,
  };
}

describe('POST /v1/subscriptions', () => {
  it("creates a Draft subscription of BASIC monthly with the plan's product at the USD price", async () => {
    const customerId = await newCustomer(t);
    const before = Date.now();
    const created = await createSubscription(t, {
      customerId,
      planFrequencyId: BASIC_MONTHLY,
      code: 'BASIC',
      name: 'Team Alpha',
      reference: 'PO-1',
    });
    const id = created.id as number;
    // The plan frequency as the plan list shows it (every field, the subscription counted).
    const plans = (await t.call('GET', '/v1/Plans')).json();
    const frequency = plans
      .flatMap((p: { planFrequencies: Array<{ id: number }> }) => p.planFrequencies)
      .find((f: { id: number }) => f.id === BASIC_MONTHLY);
    expect(frequency).toMatchObject({
      id: 11,
      interval: 'Monthly',
      numberOfIntervals: 1,
      isProrated: true,
      uri: `${BASE}/planFrequencies/11`,
      numberOfSubscriptions: expect.any(Number),
    });
    expect(created).toEqual({
      customerId,
      planFrequency: frequency,
      planCode: 'BASIC',
      planName: 'Basic',
      planDescription: 'One seat, monthly or yearly',
      planReference: null,
      status: 'Draft',
      reference: 'PO-1',
      subscriptionOverride: { name: 'Team Alpha', description: null },
      hasPostedInvoice: false,
      createdTimestamp: expect.stringMatching(TIMESTAMP),
      activatedTimestamp: null,
      provisionedTimestamp: null,
      nextPeriodStartDate: null,
      scheduledActivationTimestamp: null,
      subscriptionProducts: [
        product(id, { productCode: 'SEAT', productName: 'Seat', quantity: 1, unitPrice: 19.99, setupFee: 10, amount: 19.99 }),
      ],
      remainingInterval: null,
      remainingIntervalPushOut: null,
      openSubscriptionPeriodEndDate: null,
      chargeDiscount: null,
      setupFeeDiscount: null,
      chargeDiscounts: [],
      setupFeeDiscounts: [],
      customFields: null,
      planAutoApplyChanges: false,
      autoApplyCatalogChanges: false,
      coupons: [],
      monthlyRecurringRevenue: 19.99,
      netMonthlyRecurringRevenue: 19.99,
      amount: 19.99,
      currency: 'USD',
      contractStartTimestamp: null,
      contractEndTimestamp: null,
      expiredTimestamp: null,
      cancellationTimestamp: null,
      subscriptionHasRecurringEndOfPeriodCharge: false,
      pendingChange: null,
      id: expect.any(Number),
      uri: `${BASE}/subscriptions/${id}`,
    });
    expect(Date.parse(created.createdTimestamp)).toBeGreaterThanOrEqual(before - 1000);
    expect(await readSubscription(t, id)).toEqual(created);
  });

  it("dates it on the account's clock (a test clock ahead of real time), as its customer, and the list filter finds it there", async () => {
    const account = await t.newAccount();
    const ahead = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 20 * 86_400_000); // 20 days ahead, on a whole minute
    const advanced = await t.call('POST', '/v1/testclock/advance', { to: ahead.toISOString() }, { as: account });
    expect(advanced.statusCode, advanced.body).toBe(200);
    const customer = await createCustomer(t, {}, account);
    expect(customer.createdTimestamp).toBe(ahead.toISOString());
    const customerId = customer.id;
    const created = await createSubscription(t, { customerId, planFrequencyId: BASIC_MONTHLY }, account);
    expect(created.createdTimestamp).toBe(ahead.toISOString());
    expect((await readSubscription(t, created.id, account)).createdTimestamp).toBe(ahead.toISOString());
    // the list filter reads the stored date: created on the day the account's clock says
    const onThatDay = await t.call(
      'GET',
      `/v1/customers/${customerId}/subscriptions?query=CreatedTimestamp:${ahead.toISOString().slice(0, 10)}`,
      undefined,
      { as: account },
    );
    expect(onThatDay.statusCode, onThatDay.body).toBe(200);
    expect(onThatDay.json().map((s: { id: number }) => s.id)).toEqual([created.id]);
  });

  it('counts a yearly charge as 1/12 of MRR: 199.00 a year is 16.58 a month', async () => {
    const customerId = await newCustomer(t);
    const created = await createSubscription(t, { customerId, planFrequencyId: BASIC_YEARLY });
    expect(created).toMatchObject({
      planFrequency: { id: 12, interval: 'Yearly', numberOfIntervals: 1, isProrated: false },
      planCode: 'BASIC',
      amount: 199,
      monthlyRecurringRevenue: 16.58,
      netMonthlyRecurringRevenue: 16.58,
      // No name given: the plan's name, so no override.
      subscriptionOverride: { name: null, description: null },
      reference: null,
    });
    expect(created.subscriptionProducts).toEqual([
      product(created.id, { productCode: 'SEAT', productName: 'Seat', quantity: 1, unitPrice: 199, setupFee: 0, amount: 199 }),
    ]);
  });

  it('copies every PRO product with its quantity, unit price and setup fee per unit: 5 × 8 + 9 = 49', async () => {
    const customerId = await newCustomer(t);
    const created = await createSubscription(t, { customerId, planFrequencyId: PRO_MONTHLY, code: 'pro', reference: null });
    expect(created).toMatchObject({
      planCode: 'PRO',
      planName: 'Pro',
      amount: 49,
      monthlyRecurringRevenue: 49,
      netMonthlyRecurringRevenue: 49,
      currency: 'USD',
      status: 'Draft',
    });
    expect(created.subscriptionProducts).toEqual([
      product(created.id, { productCode: 'SEAT', productName: 'Seat', quantity: 5, unitPrice: 8, setupFee: 0, amount: 40 }),
      product(created.id, { productCode: 'SUPPORT', productName: 'Priority support', quantity: 1, unitPrice: 9, setupFee: 25, amount: 9 }),
    ]);
    const ids = created.subscriptionProducts.map((p: { id: number }) => p.id);
    expect(new Set(ids).size).toBe(2);
  });

  it('stores name and reference', async () => {
    const customerId = await newCustomer(t);
    const created = await createSubscription(t, { customerId, planFrequencyId: PRO_MONTHLY, name: 'Head office', reference: 'REF-9' });
    const read = await readSubscription(t, created.id);
    expect(read).toMatchObject({ subscriptionOverride: { name: 'Head office', description: null }, reference: 'REF-9' });
    const row = await t.database.db
      .selectFrom('subscriptions')
      .select(['name', 'reference', 'code'])
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ name: 'Head office', reference: 'REF-9', code: 'PRO' });
  });

  it.each([
    [{ planFrequencyId: 999 }, 'planFrequencyId'],
    [{ planFrequencyId: 2147483648 }, 'planFrequencyId'],
    [{ planFrequencyId: PRO_MONTHLY, code: 'BASIC' }, 'code'],
    [{ planFrequencyId: BASIC_MONTHLY, code: 'NOPE' }, 'code'],
    [{ planFrequencyId: 'eleven' }, 'planFrequencyId'],
    [{ planFrequencyId: null }, 'planFrequencyId'],
    [{ planFrequencyId: BASIC_MONTHLY, name: 'n'.repeat(256) }, 'name'],
    [{ planFrequencyId: BASIC_MONTHLY, reference: 'r'.repeat(256) }, 'reference'],
  ])('refuses %j with 400 keyed on %s', async (change, key) => {
    const customerId = await newCustomer(t);
    const res = await t.call('POST', '/v1/subscriptions', { customerId, ...change });
    expect(res.statusCode, res.body).toBe(400);
    expect(errorsOf(res).map((e) => e.Key)).toEqual([key]);
    const count = await t.database.db
      .selectFrom('subscriptions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('customerId', '=', customerId)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });

  it("answers 404 for an unknown customer and for another account's customer", async () => {
    for (const customerId of [999999, 2147483648]) {
      const res = await t.call('POST', '/v1/subscriptions', { customerId, planFrequencyId: BASIC_MONTHLY });
      expect(res.statusCode, res.body).toBe(404);
      expect(errorsOf(res)[0]).toMatchObject({ Key: 'Api Error' });
    }
    const other = await t.newAccount();
    const theirs = await newCustomer(t, {}, other);
    const res = await t.call('POST', '/v1/subscriptions', { customerId: theirs, planFrequencyId: BASIC_MONTHLY });
    expect(res.statusCode, res.body).toBe(404);
    errorsOf(res);
  });

  it('refuses a cancelled customer', async () => {
    const customerId = await newCustomer(t);
    await t.database.db.updateTable('customers').set({ status: 'Cancelled' }).where('id', '=', customerId).execute();
    const res = await t.call('POST', '/v1/subscriptions', { customerId, planFrequencyId: BASIC_MONTHLY });
    expect(res.statusCode, res.body).toBe(400);
    expect(errorsOf(res)[0]!.Key).toBe('customerId');
  });
});

describe("POST /v1/subscriptions in the customer's currency", () => {
  // The last describe of the file: its catalogue adds plans 3 and 4 to the shared plans table.
  it('prices a CAD customer in CAD, and refuses plans without a CAD price (400 keyed planFrequencyId)', async () => {
    const twoCurrencies = await t.buildAnotherApp(usdCadCatalog());
    const createdCustomer = await callOn(twoCurrencies, t.account, 'POST', '/v1/customers', { currency: 'CAD' });
    expect(createdCustomer.statusCode, createdCustomer.body).toBe(200);
    const customerId = createdCustomer.json().id as number;

    const basic = await callOn(twoCurrencies, t.account, 'POST', '/v1/subscriptions', { customerId, planFrequencyId: BASIC_MONTHLY });
    expect(basic.statusCode, basic.body).toBe(200);
    expect(basic.json()).toMatchObject({
      currency: 'CAD',
      amount: 24.99,
      monthlyRecurringRevenue: 24.99,
      netMonthlyRecurringRevenue: 24.99,
    });
    expect(basic.json().subscriptionProducts).toEqual([
      product(basic.json().id, { productCode: 'SEAT', productName: 'Seat', quantity: 1, unitPrice: 24.99, setupFee: 12, amount: 24.99 }),
    ]);
    // FIVEOFF is 5 USD: not for a CAD subscription; WELCOME10 (a percentage) is.
    const read = basic.json();
    const usdCoupon = await t.call('PUT', '/v1/subscriptions', { ...read, coupons: [{ code: 'WELCOME10' }, { code: 'FIVEOFF' }] });
    expect(usdCoupon.statusCode, usdCoupon.body).toBe(400);
    expect(errorsOf(usdCoupon).map((e) => e.Key)).toEqual(['coupons[1].code']);
    const percentage = await t.call('PUT', '/v1/subscriptions', { ...read, coupons: [{ code: 'WELCOME10' }] });
    expect(percentage.json().coupons).toEqual([
      { code: 'WELCOME10', name: '10% off the first period', periodsUsed: 0, remainingPeriods: 1 },
    ]);

    const pro = await callOn(twoCurrencies, t.account, 'POST', '/v1/subscriptions', { customerId, planFrequencyId: PRO_MONTHLY });
    expect(pro.json()).toMatchObject({ currency: 'CAD', amount: 59, monthlyRecurringRevenue: 59 });
    expect(pro.json().subscriptionProducts.map((p: Record<string, unknown>) => [p.productCode, p.unitPrice, p.setupFee])).toEqual([
      ['SEAT', 10, 0],
      ['SUPPORT', 9, 30],
    ]);

    for (const planFrequencyId of [31, 41]) {
      for (const call of [
        () => callOn(twoCurrencies, t.account, 'POST', '/v1/subscriptions', { customerId, planFrequencyId }),
        () => t.call('POST', '/v1/subscriptions', { customerId, planFrequencyId }),
      ]) {
        const res = await call();
        expect(res.statusCode, `${planFrequencyId}: ${res.body}`).toBe(400);
        expect(errorsOf(res).map((e) => e.Key)).toEqual(['planFrequencyId']);
        expect(errorsOf(res)[0]!.Value).toMatch(/CAD/);
      }
    }

    // A USD customer gets both.
    const usd = await newCustomer(t);
    const usOnly = await createSubscription(t, { customerId: usd, planFrequencyId: 31, code: 'USONLY' });
    expect(usOnly).toMatchObject({ currency: 'USD', amount: 5, monthlyRecurringRevenue: 5 });
    const mixed = await createSubscription(t, { customerId: usd, planFrequencyId: 41 });
    expect(mixed).toMatchObject({ currency: 'USD', amount: 13.5, monthlyRecurringRevenue: 13.5 });

    // Every 3 months: 29.99 / 3 = 9.9967 a month.
    const quarterly = await createSubscription(t, { customerId: usd, planFrequencyId: 51 });
    expect(quarterly).toMatchObject({
      planFrequency: { interval: 'Monthly', numberOfIntervals: 3 },
      amount: 29.99,
      monthlyRecurringRevenue: 10,
      netMonthlyRecurringRevenue: 10,
    });

    // The plan list offers MIXED in USD only: a CAD total would leave the add-on out.
    const plan = await t.call('GET', '/v1/Plans/4');
    expect(plan.json().planFrequencies[0].charges.map((c: { currency: string; amount: number }) => [c.currency, c.amount])).toEqual([
      ['USD', 13.5],
    ]);
  });
});
