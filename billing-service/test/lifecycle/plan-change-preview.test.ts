import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACTIVATION_FLAGS,
  BASIC_MONTHLY,
  PRO_MONTHLY,
  activate,
  hold,
  listInvoices,
  newCustomer,
  newSubscription,
  readSubscription,
} from '../helpers/api-fixtures.js';
import { startTestApp, testCatalog, type TestAccount, type TestApp } from '../helpers/test-app.js';
import { deposit, expectError, ledgerRows } from './lifecycle-fixtures.js';

/*
 * POST /v1/subscriptions/{id}/changes with preview: true (issue 28, groundwork): through the HTTP layer, on the
 * account's own clock; the answer is computed and nothing changes. The maths: test/invoices/engine/plan-change.test.ts.
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    catalog: testCatalog({ planChanges: { allowed: [{ from: 'BASIC', to: 'PRO' }] } }),
    app: { testClocks: true, backgroundTasks: false },
  });
});
afterAll(async () => t?.close());

type Body = Record<string, any>;
const NEW_YORK = { billing: { country: 'US', state: 'NY' } };

async function advance(account: TestAccount, to: string) {
  const res = await t.call('POST', '/v1/testclock/advance', { to }, { as: account });
  expect(res.statusCode, res.body).toBe(200);
}

function change(subscriptionId: number, body: Body, account?: TestAccount) {
  return t.call('POST', `/v1/subscriptions/${subscriptionId}/changes`, body, account ? { as: account } : {});
}

/** An Active customer (New York: sales tax 4 %) on one plan frequency, activated on the account's clock, its first invoice paid. */
async function subscriber(account: TestAccount, planFrequencyId: number) {
  const customerId = await newCustomer(t, NEW_YORK, account);
  const subscriptionId = await newSubscription(t, customerId, planFrequencyId, account);
  // paid in advance, so the customer stays in good standing while the clock moves on
  await deposit(t, customerId, '500', account);
  const res = await activate(t, customerId, ACTIVATION_FLAGS, '', account);
  expect(res.statusCode, res.body).toBe(200);
  return { customerId, subscriptionId };
}

/** What a preview must leave alone: the subscription as read, the invoices, the ledger. */
async function snapshot(customerId: number, subscriptionId: number, account: TestAccount) {
  return {
    subscription: await readSubscription(t, subscriptionId, account),
    invoices: await listInvoices(t, customerId, account),
    ledger: await ledgerRows(t, customerId),
  };
}

const lineOf = (c: Body) => `${c.chargeType} ${c.productCode} ×${c.quantity} ${c.startServiceDate}→${c.endServiceDate} ${c.amount}`;

describe('plan change preview', () => {
  it('Basic monthly → Pro monthly on day 10 of a 31-day month: the worked example, and nothing changes', async () => {
    const account = await t.newAccount();
    await advance(account, '2027-01-01T09:00:00Z');
    const { customerId, subscriptionId } = await subscriber(account, BASIC_MONTHLY);
    await advance(account, '2027-01-10T15:00:00Z');
    const before = await snapshot(customerId, subscriptionId, account);

    const res = await change(subscriptionId, { planFrequencyId: PRO_MONTHLY, preview: true }, account);
    expect(res.statusCode, res.body).toBe(200);
    const { subscription, invoice, nextRenewal } = res.json();
    expect(invoice.draftCharges.map(lineOf)).toEqual([
      'Credit SEAT ×1 2027-01-10→2027-02-01 -14.19',
      'Recurring SEAT ×5 2027-01-10→2027-02-01 28.39',
      'Recurring SUPPORT ×1 2027-01-10→2027-02-01 6.39',
    ]);
    expect(invoice.draftTaxes).toEqual([{ name: 'Sales tax', rate: 0.04, amount: 0.82 }]);
    expect([invoice.subtotal, invoice.totalTaxes, invoice.total]).toEqual([20.59, 0.82, 21.41]);
    expect(invoice.effectiveTimestamp).toBe('2027-01-10T00:00:00.000Z');
    expect(nextRenewal).toEqual({ date: '2027-02-01', amount: 50.96 });
    expect(subscription).toMatchObject({
      id: subscriptionId,
      planCode: 'PRO',
      nextPeriodStartDate: '2027-02-01',
      amount: 49,
      pendingChange: null,
    });
    expect(subscription.planFrequency.id).toBe(PRO_MONTHLY);
    expect(subscription.subscriptionProducts.map((p: Body) => [p.productCode, p.quantity, p.unitPrice])).toEqual([
      ['SEAT', 5, 8],
      ['SUPPORT', 1, 9],
    ]);

    expect(await snapshot(customerId, subscriptionId, account)).toEqual(before);
    expect(before.subscription.planCode).toBe('BASIC');
  });

  it('timing periodEnd: no invoice now, the change pending from the next period start, and the renewal at the new price', async () => {
    const account = await t.newAccount();
    await advance(account, '2027-01-01T09:00:00Z');
    const { customerId, subscriptionId } = await subscriber(account, BASIC_MONTHLY);
    await advance(account, '2027-01-10T15:00:00Z');
    const before = await snapshot(customerId, subscriptionId, account);

    const res = await change(subscriptionId, { planFrequencyId: PRO_MONTHLY, timing: 'periodEnd', preview: true }, account);
    expect(res.statusCode, res.body).toBe(200);
    const { subscription, invoice, nextRenewal } = res.json();
    expect(invoice).toBeNull();
    expect(nextRenewal).toEqual({ date: '2027-02-01', amount: 50.96 });
    expect(subscription.planCode).toBe('BASIC');
    expect(subscription.pendingChange).toMatchObject({
      planFrequencyId: PRO_MONTHLY,
      quantities: { SEAT: 5, SUPPORT: 1 },
      effectiveDate: '2027-02-01',
    });
    expect(await snapshot(customerId, subscriptionId, account)).toEqual(before);
  });

  it('5 → 8 seats applies now; 5 → 2 is a downgrade and waits for the period end unless timing says now', async () => {
    const account = await t.newAccount();
    await advance(account, '2027-03-15T09:00:00Z');
    const { subscriptionId } = await subscriber(account, PRO_MONTHLY);
    await advance(account, '2027-03-22T10:00:00Z');
    // Pro's 5 seats billed 40.00 for 2027-03-15 → 04-15 (31 days); 24 days left.
    const up = await change(subscriptionId, { quantities: { SEAT: 8 }, preview: true }, account);
    expect(up.statusCode, up.body).toBe(200);
    expect(up.json().invoice.draftCharges.map(lineOf)).toEqual([
      'Credit SEAT ×5 2027-03-22→2027-04-15 -30.97',
      'Credit SUPPORT ×1 2027-03-22→2027-04-15 -6.97',
      'Recurring SEAT ×8 2027-03-22→2027-04-15 49.55',
      'Recurring SUPPORT ×1 2027-03-22→2027-04-15 6.97',
    ]);
    expect(up.json().invoice.total).toBe(19.32); // 18.58 + 4 % (0.7432 → 0.74)
    expect(up.json().nextRenewal).toEqual({ date: '2027-04-15', amount: 75.92 }); // 73.00 + 2.92

    const down = await change(subscriptionId, { quantities: { SEAT: 2 }, preview: true }, account);
    expect(down.statusCode, down.body).toBe(200);
    expect(down.json().invoice).toBeNull();
    expect(down.json().subscription.pendingChange).toMatchObject({ quantities: { SEAT: 2, SUPPORT: 1 }, effectiveDate: '2027-04-15' });
    expect(down.json().nextRenewal).toEqual({ date: '2027-04-15', amount: 26 }); // 25.00 + 1.00

    const now = await change(subscriptionId, { quantities: { SEAT: 2 }, timing: 'now', preview: true }, account);
    expect(now.statusCode, now.body).toBe(200);
    // credits 30.97 + 6.97, charges 12.39 + 6.97: a net of −18.58, its tax −0.74
    expect(now.json().invoice.total).toBe(-19.32);
  });
});

describe('plan change refusals: 400 keyed on the field, nothing changed', () => {
  it('refuses a customer on Hold, and a subscription that is not Active', async () => {
    const { customerId, subscriptionId } = await subscriber(t.account, BASIC_MONTHLY);
    const added = await newSubscription(t, customerId, BASIC_MONTHLY);
    expectError(await change(added, { planFrequencyId: PRO_MONTHLY, preview: true }), 400, {
      Key: 'subscriptionId',
      Value: /the subscription is Draft/,
      Code: 'plan_change_not_active',
    });
    expect((await hold(t, customerId)).statusCode).toBe(200);
    expectError(await change(subscriptionId, { planFrequencyId: PRO_MONTHLY, preview: true }), 400, {
      Key: 'subscriptionId',
      Value: /the customer is Hold/,
      Code: 'plan_change_not_active',
    });
  });

  it('refuses a switch the catalogue does not allow, an unknown frequency, and a change that changes nothing', async () => {
    const { subscriptionId } = await subscriber(t.account, PRO_MONTHLY);
    expectError(await change(subscriptionId, { planFrequencyId: BASIC_MONTHLY, preview: true }), 400, {
      Key: 'planFrequencyId',
      Value: /from plan PRO to plan BASIC is not allowed/,
      Code: 'plan_unavailable',
    });
    expectError(await change(subscriptionId, { planFrequencyId: 9999, preview: true }), 400, {
      Key: 'planFrequencyId',
      Code: 'plan_unavailable',
    });
    expectError(await change(subscriptionId, { planFrequencyId: PRO_MONTHLY, preview: true }), 400, {
      Key: 'planFrequencyId',
      Value: /changes nothing/,
      Code: 'plan_change_nothing',
    });
    expectError(await change(subscriptionId, { quantities: { SEAT: 5 }, preview: true }), 400, { Key: 'planFrequencyId' });
  });

  it('refuses quantities outside the product bounds, fixed quantities and unknown products, keyed quantities.<code>', async () => {
    const { customerId, subscriptionId } = await subscriber(t.account, PRO_MONTHLY);
    const before = await readSubscription(t, subscriptionId);
    const cases: Array<[Record<string, number>, string, RegExp, string?]> = [
      [{ SEAT: 0 }, 'quantities.SEAT', /from 1 to 50/, 'quantity_out_of_bounds'],
      [{ SEAT: 51 }, 'quantities.SEAT', /from 1 to 50/, 'quantity_out_of_bounds'],
      [{ SEAT: 2.5 }, 'quantities.SEAT', /whole number/],
      [{ SUPPORT: 2 }, 'quantities.SUPPORT', /fixed at 1/, 'quantity_fixed'],
      [{ GOLD: 1 }, 'quantities.GOLD', /no product GOLD/],
    ];
    for (const [quantities, Key, Value, Code] of cases) {
      expectError(await change(subscriptionId, { quantities, preview: true }), 400, { Key, Value, ...(Code ? { Code } : {}) });
    }
    expect(await readSubscription(t, subscriptionId)).toEqual(before);
    expect(await listInvoices(t, customerId)).toHaveLength(1);
  });

  it('an unknown subscription is a 404; an unknown timing a 400 keyed timing', async () => {
    const { subscriptionId } = await subscriber(t.account, BASIC_MONTHLY);
    expectError(await change(987654, { planFrequencyId: PRO_MONTHLY, preview: true }), 404);
    expectError(await change(subscriptionId, { planFrequencyId: PRO_MONTHLY, timing: 'later', preview: true }), 400, { Key: 'timing' });
  });
});
