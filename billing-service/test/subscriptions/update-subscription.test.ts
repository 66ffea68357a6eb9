import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';
import { BASIC_MONTHLY, BASIC_YEARLY, PRO_MONTHLY, createSubscription, newCustomer, readSubscription } from '../helpers/api-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

type Sub = Record<string, any>;

async function fresh(planFrequencyId: number, body: Record<string, unknown> = {}): Promise<Sub> {
  const customerId = await newCustomer(t);
  return createSubscription(t, { customerId, planFrequencyId, ...body });
}

async function put(body: unknown) {
  return t.call('PUT', '/v1/subscriptions', body);
}

async function putOk(body: unknown): Promise<Sub> {
  const res = await put(body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** The GET object with its products changed (matched by product code). */
function withProducts(sub: Sub, changes: Record<string, Record<string, unknown>>): Sub {
  return {
    ...sub,
    subscriptionProducts: sub.subscriptionProducts.map((p: Sub) => ({ ...p, ...changes[p.productCode] })),
  };
}

const revenue = (s: Sub) => ({
  amount: s.amount,
  monthlyRecurringRevenue: s.monthlyRecurringRevenue,
  netMonthlyRecurringRevenue: s.netMonthlyRecurringRevenue,
});
const productOf = (s: Sub, code: string) => s.subscriptionProducts.find((p: Sub) => p.productCode === code);

describe('PUT /v1/subscriptions', () => {
  it('takes the GET object back unchanged (read, modify, send back)', async () => {
    const created = await fresh(PRO_MONTHLY, { name: 'Branch', reference: 'R-1' });
    const read = await readSubscription(t, created.id);
    const updated = await putOk(read);
    expect(updated).toEqual(read);
    expect(await readSubscription(t, created.id)).toEqual(read);
  });

  it('keeps every customisation when its own GET object is sent back', async () => {
    const read = await readSubscription(t, (await fresh(PRO_MONTHLY)).id);
    const custom = await putOk({
      ...withProducts(read, {
        SEAT: { quantity: 4, priceOverride: '7.25', discount: { type: 'Amount', amount: 3 } },
        SUPPORT: { isIncluded: false, discount: { type: 'Percentage', amount: 50 } },
      }),
      reference: 'kept',
      subscriptionOverride: { name: 'Kept name', description: 'Kept description' },
      contractStartTimestamp: '2025-01-01T00:00:00Z',
      contractEndTimestamp: '2026-01-01T00:00:00Z',
      coupons: [{ code: 'WELCOME10' }],
    });
    // 4 × 7.25 = 29 − 3 = 26; SUPPORT excluded.
    expect(revenue(custom)).toEqual({ amount: 29, monthlyRecurringRevenue: 29, netMonthlyRecurringRevenue: 26 });
    expect(await putOk(custom)).toEqual(custom);
    expect(await readSubscription(t, read.id)).toEqual(custom);
  });

  it('changes name, description, reference and contract dates', async () => {
    const read = await readSubscription(t, (await fresh(BASIC_MONTHLY)).id);
    const updated = await putOk({
      ...read,
      reference: 'PO-77',
      subscriptionOverride: { name: 'Custom name', description: 'Custom description' },
      contractStartTimestamp: '2025-01-01T00:00:00Z',
      contractEndTimestamp: '2026-01-01',
      expiredTimestamp: '2027-06-30T12:00:00Z',
    });
    expect(updated).toMatchObject({
      reference: 'PO-77',
      subscriptionOverride: { name: 'Custom name', description: 'Custom description' },
      contractStartTimestamp: '2025-01-01T00:00:00.000Z',
      contractEndTimestamp: '2026-01-01T00:00:00.000Z',
      expiredTimestamp: '2027-06-30T12:00:00.000Z',
      planName: 'Basic',
    });
    // Omitted fields are not preserved.
    const cleared = await putOk({ id: read.id, status: 'Draft' });
    expect(cleared).toMatchObject({
      reference: null,
      subscriptionOverride: { name: null, description: null },
      contractStartTimestamp: null,
      contractEndTimestamp: null,
      expiredTimestamp: null,
    });
  });

  it("reads timestamps without an offset as UTC, whatever the server's time zone", async () => {
    const read = await readSubscription(t, (await fresh(BASIC_MONTHLY)).id);
    const zone = process.env.TZ;
    process.env.TZ = 'America/Toronto';
    try {
      const updated = await putOk({
        ...read,
        contractStartTimestamp: '2025-01-01T00:00:00',
        contractEndTimestamp: '2025-12-31T23:30:00.5',
        expiredTimestamp: '2026-01-01T08:00:00+02:00',
      });
      expect(updated).toMatchObject({
        contractStartTimestamp: '2025-01-01T00:00:00.000Z',
        contractEndTimestamp: '2025-12-31T23:30:00.500Z',
        expiredTimestamp: '2026-01-01T06:00:00.000Z',
      });
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it('bills the quantity: 3 BASIC seats are 59.97 a month', async () => {
    const read = await readSubscription(t, (await fresh(BASIC_MONTHLY)).id);
    const updated = await putOk(withProducts(read, { SEAT: { quantity: 3 } }));
    expect(revenue(updated)).toEqual({ amount: 59.97, monthlyRecurringRevenue: 59.97, netMonthlyRecurringRevenue: 59.97 });
    expect(productOf(updated, 'SEAT')).toMatchObject({ quantity: 3, unitPrice: 19.99, setupFee: 10, amount: 59.97 });
    const fractional = await putOk(withProducts(read, { SEAT: { quantity: '2.5' } }));
    expect(productOf(fractional, 'SEAT')).toMatchObject({ quantity: 2.5, amount: 49.98 });
    expect(revenue(fractional)).toEqual({ amount: 49.98, monthlyRecurringRevenue: 49.98, netMonthlyRecurringRevenue: 49.98 });
  });

  it('rounds each product line to the currency before adding them up, as an invoice does', async () => {
    const read = await readSubscription(t, (await fresh(PRO_MONTHLY)).id);
    // 2.5 × 19.99 = 49.975 → 49.98 per line; 2 lines = 99.96 (not round(99.95)).
    const updated = await putOk(
      withProducts(read, { SEAT: { quantity: 2.5, priceOverride: 19.99 }, SUPPORT: { quantity: 2.5, priceOverride: 19.99 } }),
    );
    expect(updated.subscriptionProducts.map((p: Sub) => p.amount)).toEqual([49.98, 49.98]);
    expect(revenue(updated)).toEqual({ amount: 99.96, monthlyRecurringRevenue: 99.96, netMonthlyRecurringRevenue: 99.96 });
  });

  it('leaves an excluded product out of amount and MRR: PRO without seats is 9', async () => {
    const read = await readSubscription(t, (await fresh(PRO_MONTHLY)).id);
    const updated = await putOk(withProducts(read, { SEAT: { isIncluded: false } }));
    expect(revenue(updated)).toEqual({ amount: 9, monthlyRecurringRevenue: 9, netMonthlyRecurringRevenue: 9 });
    expect(productOf(updated, 'SEAT')).toMatchObject({ isIncluded: false, quantity: 5, amount: 0 });
    expect(productOf(updated, 'SUPPORT')).toMatchObject({ isIncluded: true, amount: 9 });
  });

  it('bills a price override instead of the catalogue price: 5 × 8 + 12 = 52', async () => {
    const read = await readSubscription(t, (await fresh(PRO_MONTHLY)).id);
    const updated = await putOk(withProducts(read, { SUPPORT: { priceOverride: 12 } }));
    expect(productOf(updated, 'SUPPORT')).toMatchObject({ unitPrice: 9, priceOverride: 12, amount: 12 });
    expect(revenue(updated)).toEqual({ amount: 52, monthlyRecurringRevenue: 52, netMonthlyRecurringRevenue: 52 });
    const free = await putOk(withProducts(read, { SEAT: { priceOverride: '0' } }));
    expect(revenue(free)).toEqual({ amount: 9, monthlyRecurringRevenue: 9, netMonthlyRecurringRevenue: 9 });
  });

  it('takes a Percentage discount off net MRR only', async () => {
    const monthly = await readSubscription(t, (await fresh(BASIC_MONTHLY)).id);
    const updated = await putOk(withProducts(monthly, { SEAT: { discount: { type: 'Percentage', amount: 10 } } }));
    expect(productOf(updated, 'SEAT')).toMatchObject({ discount: { type: 'Percentage', amount: 10 }, amount: 19.99 });
    // 19.99 × 0.9 = 17.991
    expect(revenue(updated)).toEqual({ amount: 19.99, monthlyRecurringRevenue: 19.99, netMonthlyRecurringRevenue: 17.99 });

    const yearly = await readSubscription(t, (await fresh(BASIC_YEARLY)).id);
    const yearlyUpdated = await putOk(withProducts(yearly, { SEAT: { discount: { type: 'Percentage', amount: '10' } } }));
    // 199 × 0.9 / 12 = 14.925
    expect(revenue(yearlyUpdated)).toEqual({ amount: 199, monthlyRecurringRevenue: 16.58, netMonthlyRecurringRevenue: 14.93 });

    const all = await putOk(withProducts(monthly, { SEAT: { discount: { type: 'Percentage', amount: 100 } } }));
    expect(all.netMonthlyRecurringRevenue).toBe(0);
  });

  it('takes an Amount discount off each product line, never below zero', async () => {
    const basic = await readSubscription(t, (await fresh(BASIC_MONTHLY)).id);
    const updated = await putOk(withProducts(basic, { SEAT: { discount: { type: 'Amount', amount: 5 } } }));
    expect(productOf(updated, 'SEAT')!.discount).toEqual({ type: 'Amount', amount: 5 });
    expect(revenue(updated)).toEqual({ amount: 19.99, monthlyRecurringRevenue: 19.99, netMonthlyRecurringRevenue: 14.99 });

    const pro = await readSubscription(t, (await fresh(PRO_MONTHLY)).id);
    const proUpdated = await putOk(
      withProducts(pro, { SEAT: { discount: { type: 'Amount', amount: '2.50' } }, SUPPORT: { discount: { type: 'Amount', amount: 100 } } }),
    );
    // SEAT 40 − 2.50 = 37.50; SUPPORT 9 − 100 → 0
    expect(revenue(proUpdated)).toEqual({ amount: 49, monthlyRecurringRevenue: 49, netMonthlyRecurringRevenue: 37.5 });
  });

  it('returns products left out of the list to the plan defaults', async () => {
    const read = await readSubscription(t, (await fresh(PRO_MONTHLY)).id);
    const custom = await putOk(
      withProducts(read, {
        SEAT: { quantity: 7, priceOverride: 6, discount: { type: 'Amount', amount: 1 } },
        SUPPORT: { isIncluded: false },
      }),
    );
    expect(revenue(custom)).toEqual({ amount: 42, monthlyRecurringRevenue: 42, netMonthlyRecurringRevenue: 41 });

    const onlySupport = await putOk({
      ...custom,
      subscriptionProducts: custom.subscriptionProducts.filter((p: Sub) => p.productCode === 'SUPPORT'),
    });
    expect(productOf(onlySupport, 'SEAT')).toMatchObject({
      quantity: 5,
      isIncluded: true,
      priceOverride: null,
      discount: null,
      amount: 40,
    });
    expect(productOf(onlySupport, 'SUPPORT')).toMatchObject({ isIncluded: false });
    expect(revenue(onlySupport)).toEqual({ amount: 40, monthlyRecurringRevenue: 40, netMonthlyRecurringRevenue: 40 });

    const none = await putOk({ ...custom, subscriptionProducts: [] });
    expect(none.subscriptionProducts).toEqual(read.subscriptionProducts);
    expect(revenue(none)).toEqual({ amount: 49, monthlyRecurringRevenue: 49, netMonthlyRecurringRevenue: 49 });
    const omitted = await putOk(withProducts(read, { SEAT: { quantity: 2 } }));
    expect(omitted.amount).toBe(25);
    const { subscriptionProducts: _, ...withoutList } = omitted;
    expect((await putOk(withoutList)).subscriptionProducts).toEqual(read.subscriptionProducts);
  });

  it('accepts and lists the coupons WELCOME10 (one period) and FIVEOFF (three periods)', async () => {
    const read = await readSubscription(t, (await fresh(BASIC_MONTHLY)).id);
    const updated = await putOk({ ...read, coupons: [{ code: 'WELCOME10' }, { code: 'fiveoff' }] });
    // in the order given (the order they apply in), each with the catalogue's spelling of its code
    expect(updated.coupons).toEqual([
      { code: 'WELCOME10', name: '10% off the first period', periodsUsed: 0, remainingPeriods: 1 },
      { code: 'FIVEOFF', name: '5 off for three months', periodsUsed: 0, remainingPeriods: 3 },
    ]);
    // Sent back as read, they stay; an empty list removes them.
    expect((await putOk(updated)).coupons).toEqual(updated.coupons);
    const one = await putOk({ ...updated, coupons: [{ code: 'FIVEOFF' }] });
    expect(one.coupons.map((c: Sub) => c.code)).toEqual(['FIVEOFF']);
    expect((await putOk({ ...updated, coupons: [] })).coupons).toEqual([]);
  });

  it.each([
    [{ coupons: [{ code: 'NOPE' }] }, 'coupons[0].code'],
    [{ coupons: [{ code: 'WELCOME10' }, { code: 'NOPE' }] }, 'coupons[1].code'],
    [{ coupons: [{ code: 'WELCOME10' }, { code: 'welcome10' }] }, 'coupons[1].code'],
    [{ coupons: [{ code: '' }] }, 'coupons[0].code'],
    [{ status: 'Active' }, 'status'],
    [{ status: 'Cancelled' }, 'status'],
    [{ status: 'Finished' }, 'status'],
    [{ status: undefined }, 'status'],
    [{ reference: 'r'.repeat(256) }, 'reference'],
    [{ contractStartTimestamp: 'soon' }, 'contractStartTimestamp'],
    [{ contractStartTimestamp: '2025-06-01', contractEndTimestamp: '2025-05-31' }, 'contractEndTimestamp'],
    [{ contractStartTimestamp: '2025-06-01T00:00:00Z', contractEndTimestamp: '2025-06-01T00:00:00Z' }, 'contractEndTimestamp'],
  ])('refuses %j with 400 keyed on %s', async (change, key) => {
    const read = await readSubscription(t, (await fresh(BASIC_MONTHLY)).id);
    const res = await put({ ...read, ...change });
    expect(res.statusCode, res.body).toBe(400);
    expect(errorsOf(res).map((e) => e.Key)).toEqual([key]);
    expect(await readSubscription(t, read.id)).toEqual(read);
  });

  it.each([
    [{ discount: { type: 'Percentage', amount: 100.01 } }, 'subscriptionProducts[0].discount.amount'],
    [{ discount: { type: 'Percentage', amount: '150' } }, 'subscriptionProducts[0].discount.amount'],
    [{ discount: { type: 'Percentage', amount: -1 } }, 'subscriptionProducts[0].discount.amount'],
    [{ discount: { type: 'Amount', amount: '-5' } }, 'subscriptionProducts[0].discount.amount'],
    [{ discount: { type: 'Coupon', amount: 5 } }, 'subscriptionProducts[0].discount.type'],
    [{ quantity: -1 }, 'subscriptionProducts[0].quantity'],
    [{ quantity: '-0.5' }, 'subscriptionProducts[0].quantity'],
    [{ quantity: 'many' }, 'subscriptionProducts[0].quantity'],
    [{ priceOverride: -0.01 }, 'subscriptionProducts[0].priceOverride'],
    [{ priceOverride: '-3' }, 'subscriptionProducts[0].priceOverride'],
    [{ id: 99999999 }, 'subscriptionProducts[0].id'],
  ])('refuses the product change %j with 400 keyed on %s', async (change, key) => {
    const read = await readSubscription(t, (await fresh(BASIC_MONTHLY)).id);
    const res = await put(withProducts(read, { SEAT: change }));
    expect(res.statusCode, res.body).toBe(400);
    expect([...new Set(errorsOf(res).map((e) => e.Key))]).toEqual([key]);
    expect(await readSubscription(t, read.id)).toEqual(read);
  });

  it("refuses another subscription's product and a product listed twice", async () => {
    const other = await fresh(BASIC_MONTHLY);
    const read = await readSubscription(t, (await fresh(PRO_MONTHLY)).id);
    const foreign = await put({
      ...read,
      subscriptionProducts: [read.subscriptionProducts[0], { ...other.subscriptionProducts[0], quantity: 2 }],
    });
    expect(foreign.statusCode, foreign.body).toBe(400);
    expect(errorsOf(foreign).map((e) => e.Key)).toEqual(['subscriptionProducts[1].id']);
    const twice = await put({ ...read, subscriptionProducts: [read.subscriptionProducts[1], read.subscriptionProducts[1]] });
    expect(twice.statusCode, twice.body).toBe(400);
    expect(errorsOf(twice).map((e) => e.Key)).toEqual(['subscriptionProducts[1].id']);
    expect(await readSubscription(t, other.id)).toEqual(other);
  });

  it('changes nothing when the contract end is before the start, even with valid changes alongside', async () => {
    const read = await readSubscription(t, (await fresh(PRO_MONTHLY)).id);
    const res = await put({
      ...withProducts(read, { SEAT: { quantity: 9 } }),
      coupons: [{ code: 'WELCOME10' }],
      reference: 'changed',
      contractStartTimestamp: '2025-02-01',
      contractEndTimestamp: '2025-01-01',
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(errorsOf(res)[0]!.Key).toBe('contractEndTimestamp');
    expect(await readSubscription(t, read.id)).toEqual(read);
  });

  it('refuses any change to a Cancelled subscription', async () => {
    const created = await fresh(BASIC_MONTHLY);
    await t.database.db
      .updateTable('subscriptions')
      .set({ status: 'Cancelled', cancelledAt: new Date() })
      .where('id', '=', created.id)
      .execute();
    const read = await readSubscription(t, created.id);
    const res = await put({ ...read, reference: 'too late' });
    expect(res.statusCode, res.body).toBe(400);
    expect(errorsOf(res)[0]!.Key).toBe('Api Error');
    expect(await readSubscription(t, created.id)).toEqual(read);
  });

  it('refuses moving a subscription to another customer', async () => {
    const read = await readSubscription(t, (await fresh(BASIC_MONTHLY)).id);
    const res = await put({ ...read, customerId: await newCustomer(t) });
    expect(res.statusCode, res.body).toBe(400);
    expect(errorsOf(res)[0]!.Key).toBe('customerId');
  });

  it("answers 404 for unknown subscriptions and other accounts' subscriptions", async () => {
    const read = await readSubscription(t, (await fresh(BASIC_MONTHLY)).id);
    const other = await t.newAccount();
    for (const id of [999999, 2147483648]) {
      const got = await t.call('GET', `/v1/subscriptions/${id}`);
      expect(got.statusCode, got.body).toBe(404);
      expect(errorsOf(got)[0]).toMatchObject({ Key: 'Api Error' });
      const res = await put({ ...read, id });
      expect(res.statusCode, res.body).toBe(404);
      errorsOf(res);
    }
    expect((await t.call('GET', `/v1/subscriptions/${read.id}`, undefined, { as: other })).statusCode).toBe(404);
    const res = await t.call('PUT', '/v1/subscriptions', { ...read, reference: 'theirs' }, { as: other });
    expect(res.statusCode, res.body).toBe(404);
    errorsOf(res);
    expect(await readSubscription(t, read.id)).toEqual(read);
  });
});

/** Every field of the spec's subscription object (Resources: "Plan, plan frequency, subscription"). */
const SPEC_SUBSCRIPTION_FIELDS = [
  'customerId',
  'planFrequency',
  'planCode',
  'planName',
  'planDescription',
  'planReference',
  'status',
  'reference',
  'subscriptionOverride',
  'hasPostedInvoice',
  'createdTimestamp',
  'activatedTimestamp',
  'provisionedTimestamp',
  'nextPeriodStartDate',
  'scheduledActivationTimestamp',
  'subscriptionProducts',
  'remainingInterval',
  'remainingIntervalPushOut',
  'openSubscriptionPeriodEndDate',
  'chargeDiscount',
  'setupFeeDiscount',
  'chargeDiscounts',
  'setupFeeDiscounts',
  'customFields',
  'planAutoApplyChanges',
  'autoApplyCatalogChanges',
  'monthlyRecurringRevenue',
  'netMonthlyRecurringRevenue',
  'amount',
  'contractStartTimestamp',
  'contractEndTimestamp',
  'expiredTimestamp',
  'coupons',
  'subscriptionHasRecurringEndOfPeriodCharge',
  'id',
  'uri',
];
/** The plan-frequency fields of the plan list. */
const SPEC_PLAN_FREQUENCY_FIELDS = [
  'planRevisionId',
  'numberOfIntervals',
  'interval',
  'numberOfSubscriptions',
  'status',
  'setupFees',
  'charges',
  'isProrated',
  'prorationGranularity',
  'planFrequencyUniqueId',
  'remainingInterval',
  'id',
  'uri',
];

describe("the spec's subscription object", () => {
  it("comes whole from create, GET, the customer's list and PUT, its planFrequency as the plan list shows it", async () => {
    const created = await fresh(PRO_MONTHLY);
    const listed = (await t.call('GET', `/v1/customers/${created.customerId}/subscriptions`)).json()[0];
    const read = await readSubscription(t, created.id);
    const updated = await putOk(read);
    for (const sub of [created, listed, read, updated]) {
      expect(Object.keys(sub)).toEqual(expect.arrayContaining(SPEC_SUBSCRIPTION_FIELDS));
      expect(Object.keys(sub.planFrequency).sort()).toEqual([...SPEC_PLAN_FREQUENCY_FIELDS].sort());
      expect(sub).toMatchObject({
        chargeDiscount: null,
        setupFeeDiscount: null,
        chargeDiscounts: [],
        setupFeeDiscounts: [],
        customFields: null,
        planAutoApplyChanges: false,
        autoApplyCatalogChanges: false,
        remainingIntervalPushOut: null,
        subscriptionHasRecurringEndOfPeriodCharge: false,
      });
    }
    const plans = (await t.call('GET', '/v1/Plans')).json();
    const inList = plans.flatMap((p: Sub) => p.planFrequencies).find((f: Sub) => f.id === PRO_MONTHLY);
    expect(read.planFrequency).toEqual(inList);
    expect(read.planFrequency).toMatchObject({
      id: PRO_MONTHLY,
      planFrequencyUniqueId: PRO_MONTHLY,
      charges: expect.arrayContaining([expect.objectContaining({ amount: 49, currency: 'USD' })]),
    });
  });

  it('keeps the customFields PUT sends, replaces them whole, and clears them when left out', async () => {
    const read = await readSubscription(t, (await fresh(BASIC_MONTHLY)).id);
    const set = await putOk({ ...read, customFields: { costCentre: 'CC-12', seats: 3, renewable: true, note: null } });
    expect(set.customFields).toEqual({ costCentre: 'CC-12', seats: 3, renewable: true, note: null });
    expect(await readSubscription(t, read.id)).toEqual(set);
    expect(await putOk(set)).toEqual(set);
    const replaced = await putOk({ ...set, customFields: { costCentre: 'CC-13' } });
    expect(replaced.customFields).toEqual({ costCentre: 'CC-13' });
    const { customFields: _, ...withoutCustomFields } = replaced;
    expect((await putOk(withoutCustomFields)).customFields).toBeNull();
  });

  it.each([
    [{ customFields: { nested: { no: 1 } } }, 'customFields.nested'],
    [{ customFields: ['a'] }, 'customFields'],
    [{ customFields: { long: 'x'.repeat(2001) } }, 'customFields.long'],
    [{ chargeDiscount: { type: 'Percentage', amount: 10 } }, 'chargeDiscount'],
    [{ setupFeeDiscount: { type: 'Amount', amount: 5 } }, 'setupFeeDiscount'],
    [{ chargeDiscounts: [{ type: 'Percentage', amount: 10 }] }, 'chargeDiscounts'],
    [{ setupFeeDiscounts: [{ type: 'Amount', amount: 5 }] }, 'setupFeeDiscounts'],
    [{ planAutoApplyChanges: true }, 'planAutoApplyChanges'],
    [{ autoApplyCatalogChanges: true }, 'autoApplyCatalogChanges'],
    [{ remainingInterval: 6 }, 'remainingInterval'],
    [{ remainingIntervalPushOut: 2 }, 'remainingIntervalPushOut'],
    [{ subscriptionHasRecurringEndOfPeriodCharge: true }, 'subscriptionHasRecurringEndOfPeriodCharge'],
    [{ scheduledActivationTimestamp: '2030-01-01T00:00:00Z' }, 'scheduledActivationTimestamp'],
    [{ planFrequency: { id: BASIC_YEARLY } }, 'planFrequency.id'],
    [{ planFrequencyId: BASIC_YEARLY }, 'planFrequencyId'],
    [{ planCode: 'PRO' }, 'planCode'],
    [{ planName: 'My own name' }, 'planName'],
    [{ planDescription: 'Something else' }, 'planDescription'],
    [{ planReference: 'REF' }, 'planReference'],
  ])('refuses %j with 400 keyed on %s, changing nothing', async (change, key) => {
    const read = await readSubscription(t, (await fresh(BASIC_MONTHLY)).id);
    const res = await put({ ...withProducts(read, { SEAT: { quantity: 4 } }), reference: 'not saved', ...change });
    expect(res.statusCode, res.body).toBe(400);
    const errors = errorsOf(res);
    expect(errors.map((e) => e.Key)).toEqual([key]);
    expect(errors[0]!.Value.length).toBeGreaterThan(10);
    expect(await readSubscription(t, read.id)).toEqual(read);
  });

  it('accepts the values it returns for the fields it does not model, explicit or left out', async () => {
    const read = await readSubscription(t, (await fresh(BASIC_MONTHLY)).id);
    const explicit = await putOk({
      ...read,
      chargeDiscount: null,
      setupFeeDiscount: null,
      chargeDiscounts: [],
      setupFeeDiscounts: [],
      planAutoApplyChanges: false,
      autoApplyCatalogChanges: false,
      remainingInterval: null,
      remainingIntervalPushOut: null,
      subscriptionHasRecurringEndOfPeriodCharge: false,
      scheduledActivationTimestamp: null,
      planFrequency: { id: BASIC_MONTHLY },
      planCode: 'basic',
    });
    expect(explicit).toEqual(read);
    expect(await putOk({ id: read.id, status: 'Draft' })).toEqual(read);
  });
});

describe('GET /v1/subscriptions/{id}/subscriptionProducts/{productId}', () => {
  it("answers each product's uri with the product as the subscription embeds it, changes included", async () => {
    const sub = await fresh(PRO_MONTHLY);
    const changed = await putOk(withProducts(sub, { SEAT: { quantity: 7, discount: { type: 'Percentage', amount: '10' } } }));
    expect(changed.subscriptionProducts).toHaveLength(2);
    for (const product of changed.subscriptionProducts) {
      const res = await t.call('GET', new URL(product.uri).pathname);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual(product);
    }
  });

  it("answers 404 for another subscription's product, another account's subscription and unknown ids", async () => {
    const sub = await fresh(BASIC_MONTHLY);
    const otherSub = await fresh(PRO_MONTHLY);
    const mine = sub.subscriptionProducts[0].id;
    const other = await t.newAccount();
    const cases: Array<[string, typeof other | undefined]> = [
      [`/v1/subscriptions/${sub.id}/subscriptionProducts/${otherSub.subscriptionProducts[0].id}`, undefined],
      [`/v1/subscriptions/${sub.id}/subscriptionProducts/${mine}`, other],
      [`/v1/subscriptions/${sub.id}/subscriptionProducts/99999999999`, undefined],
      [`/v1/subscriptions/99999999999/subscriptionProducts/${mine}`, undefined],
    ];
    for (const [path, as] of cases) {
      const res = await t.call('GET', path, undefined, as ? { as } : {});
      expect(res.statusCode, path).toBe(404);
      errorsOf(res);
    }
  });
});
