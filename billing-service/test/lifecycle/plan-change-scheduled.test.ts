import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACTIVATION_FLAGS,
  PRO_MONTHLY,
  activate,
  listInvoices,
  newCustomer,
  newSubscription,
  readSubscription,
} from '../helpers/api-fixtures.js';
import { startTestApp, testCatalog, type TestAccount, type TestApp } from '../helpers/test-app.js';
import { deposit, expectError } from './lifecycle-fixtures.js';

/*
 * Plan changes scheduled for the period end (issue 28, timing periodEnd): stored as the subscription's
 * pendingChange, applied by the billing clock's renewal before it bills (nothing prorated), withdrawn with
 * DELETE /v1/subscriptions/{id}/changes/pending. Through the HTTP layer, on the account's own clock.
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    catalog: testCatalog({ planChanges: { allowed: [{ from: 'BASIC', to: 'PRO' }] } }),
    app: { testClocks: true, backgroundTasks: false, webhooks: { allowHttp: true, allowPrivate: true }, webhookWorker: false },
  });
});
afterAll(async () => t?.close());

type Body = Record<string, any>;
const NEW_YORK = { billing: { country: 'US', state: 'NY' } };

async function advance(account: TestAccount, to: string) {
  const res = await t.call('POST', '/v1/testclock/advance', { to }, { as: account });
  expect(res.statusCode, res.body).toBe(200);
}

function change(subscriptionId: number, body: Body, account: TestAccount) {
  return t.call('POST', `/v1/subscriptions/${subscriptionId}/changes`, body, { as: account });
}

function withdraw(subscriptionId: number, account: TestAccount) {
  return t.call('DELETE', `/v1/subscriptions/${subscriptionId}/changes/pending`, undefined, { as: account });
}

/** A fresh account on 2027-03-15 with a webhook endpoint for every event, and a New York customer on Pro monthly (5 seats), paid ahead. */
async function proSubscriber() {
  const account = await t.newAccount();
  await advance(account, '2027-03-15T09:00:00Z');
  const hook = await t.call('POST', '/v1/webhookEndpoints', { url: 'http://127.0.0.1:9/hooks', eventTypes: ['*'] }, { as: account });
  expect(hook.statusCode, hook.body).toBe(200);
  const customerId = await newCustomer(t, NEW_YORK, account);
  const subscriptionId = await newSubscription(t, customerId, PRO_MONTHLY, account);
  await deposit(t, customerId, '500', account);
  const res = await activate(t, customerId, ACTIVATION_FLAGS, '', account);
  expect(res.statusCode, res.body).toBe(200);
  await advance(account, '2027-03-22T10:00:00Z');
  return { account, customerId, subscriptionId };
}

async function eventCount(account: TestAccount, type: string) {
  const rows = await t.database.db
    .selectFrom('webhookEvents')
    .select('id')
    .where('accountId', '=', account.accountId)
    .where('eventType', '=', type)
    .execute();
  return rows.length;
}

const seats = (s: Body) => s.subscriptionProducts.map((p: Body) => [p.productCode, p.quantity]);

describe('plan changes at the period end', () => {
  it('5 → 8 seats now, then 8 → 2 at period end: GET shows it pending, the renewal applies it and bills 2 seats', async () => {
    const { account, customerId, subscriptionId } = await proSubscriber();
    const now = await change(subscriptionId, { quantities: { SEAT: 8 } }, account);
    expect(now.statusCode, now.body).toBe(200);
    expect(now.json().invoice.invoiceAmount).toBe(19.32);

    // a downgrade: the catalogue's default timing is periodEnd
    const scheduled = await change(subscriptionId, { quantities: { SEAT: 2 } }, account);
    expect(scheduled.statusCode, scheduled.body).toBe(200);
    const answer = scheduled.json();
    expect(answer.invoice).toBeNull();
    expect(answer.nextRenewal).toEqual({ date: '2027-04-15', amount: 26 });
    expect(answer.subscription.pendingChange).toMatchObject({
      planFrequencyId: PRO_MONTHLY,
      quantities: { SEAT: 2, SUPPORT: 1 },
      effectiveDate: '2027-04-15',
    });
    const read = await readSubscription(t, subscriptionId, account);
    expect(read.pendingChange).toEqual(answer.subscription.pendingChange);
    expect(seats(read)).toEqual([
      ['SEAT', 8],
      ['SUPPORT', 1],
    ]);
    const listed = (await t.call('GET', `/v1/customers/${customerId}/subscriptions`, undefined, { as: account })).json();
    expect(listed[0].pendingChange).toEqual(answer.subscription.pendingChange);
    expect(await listInvoices(t, customerId, account)).toHaveLength(2);

    await advance(account, '2027-04-15T10:00:00Z');
    const invoices = await listInvoices(t, customerId, account);
    expect(invoices).toHaveLength(3);
    expect(invoices[2]!.charges.map((c: Body) => `${c.chargeType} ${c.productCode} ×${c.quantity} ${c.amount}`)).toEqual([
      'Recurring SEAT ×2 16',
      'Recurring SUPPORT ×1 9',
    ]);
    expect(invoices[2]!.invoiceAmount).toBe(26);
    const renewed = await readSubscription(t, subscriptionId, account);
    expect(renewed.pendingChange).toBeNull();
    expect(seats(renewed)).toEqual([
      ['SEAT', 2],
      ['SUPPORT', 1],
    ]);
    expect(renewed.nextPeriodStartDate).toBe('2027-05-15');
    expect(await eventCount(account, 'subscription.changeScheduled')).toBe(1);
    // once for the change now, once for the one the renewal applied
    expect(await eventCount(account, 'subscription.changeApplied')).toBe(2);
  });

  it('a pending downgrade withdrawn: 200 without it, then 404 keyed id; the renewal bills the old plan', async () => {
    const { account, customerId, subscriptionId } = await proSubscriber();
    expectError(await withdraw(subscriptionId, account), 404, { Key: 'id' });
    const scheduled = await change(subscriptionId, { quantities: { SEAT: 2 }, timing: 'periodEnd' }, account);
    expect(scheduled.statusCode, scheduled.body).toBe(200);
    // a second scheduled change replaces the first
    const again = await change(subscriptionId, { quantities: { SEAT: 3 } }, account);
    expect(again.statusCode, again.body).toBe(200);
    expect((await readSubscription(t, subscriptionId, account)).pendingChange?.quantities).toEqual({ SEAT: 3, SUPPORT: 1 });

    const res = await withdraw(subscriptionId, account);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: subscriptionId, pendingChange: null });
    expectError(await withdraw(subscriptionId, account), 404, { Key: 'id', Value: /no plan change pending/ });
    expectError(await withdraw(987654, account), 404);

    await advance(account, '2027-04-15T10:00:00Z');
    const renewal = (await listInvoices(t, customerId, account)).at(-1)!;
    expect(renewal.invoiceAmount).toBe(50.96); // 5 × 8.00 + 9.00, + 4 %
    expect(seats(await readSubscription(t, subscriptionId, account))).toEqual([
      ['SEAT', 5],
      ['SUPPORT', 1],
    ]);
  });

  it('a withdrawal racing the renewal: exactly one of them wins', async () => {
    const { account, customerId, subscriptionId } = await proSubscriber();
    const scheduled = await change(subscriptionId, { quantities: { SEAT: 2 } }, account);
    expect(scheduled.statusCode, scheduled.body).toBe(200);
    const [withdrawal] = await Promise.all([withdraw(subscriptionId, account), advance(account, '2027-04-15T10:00:00Z')]);
    const renewal = (await listInvoices(t, customerId, account)).at(-1)!;
    const products = seats(await readSubscription(t, subscriptionId, account));
    if (withdrawal.statusCode === 200) {
      expect([renewal.invoiceAmount, products[0]]).toEqual([50.96, ['SEAT', 5]]);
    } else {
      expect(withdrawal.statusCode, withdrawal.body).toBe(404);
      expect([renewal.invoiceAmount, products[0]]).toEqual([26, ['SEAT', 2]]);
    }
    expect((await readSubscription(t, subscriptionId, account)).pendingChange).toBeNull();
  });
});
