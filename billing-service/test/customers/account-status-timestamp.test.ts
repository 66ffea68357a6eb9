import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACTIVATION_FLAGS,
  activate,
  createCustomer,
  DAY,
  newSubscription,
  readOverview,
  readSubscription,
} from '../helpers/api-fixtures.js';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.js';

/**
 * Issue 26: customerAccountStatusTimestamp is the time of the last change of customerAccountStatus
 * (Good → PoorStanding and back), on the account's clock, not the customer's creation time. The
 * account's test clock is moved through HTTP, so every time below is known exactly.
 */

const HOUR = 3_600_000;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ app: { testClocks: true } });
});
afterAll(async () => t?.close());

/** `hours`:`minutes` UTC on the day `days` after the first of next month (ahead of real time, whatever today is). */
function dayAhead(days: number, hours = 0, minutes = 0): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1 + days, hours, minutes));
}

async function advance(account: TestAccount, to: Date) {
  const res = await t.call('POST', '/v1/testclock/advance', { to: to.toISOString() }, { as: account });
  expect(res.statusCode, res.body).toBe(200);
}

async function pay(account: TestAccount, customerId: number, amount: number): Promise<number> {
  const res = await t.call('POST', '/v1/payments', { customerId, amount, paymentMethod: 'Check' }, { as: account });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().id;
}

async function accountStatus(account: TestAccount, customerId: number) {
  const overview = await readOverview(t, customerId, account);
  return {
    status: overview.customerAccountStatus,
    since: overview.customerAccountStatusTimestamp,
    daysUntilSuspension: overview.daysUntilSuspension,
  };
}

describe('customerAccountStatusTimestamp', () => {
  it('moves with every change of the account status: when an invoice becomes overdue, is paid, is reopened by a refund, is paid again', async () => {
    const account = await t.newAccount();
    await advance(account, dayAhead(0, 10));
    const customer = await createCustomer(t, {}, account);
    expect(customer.createdTimestamp).toBe(dayAhead(0, 10).toISOString());
    expect(await accountStatus(account, customer.id)).toEqual({
      status: 'Good',
      since: customer.createdTimestamp,
      daysUntilSuspension: null,
    });

    // Activated on Net0 (due today), nothing paid: still Good, so the timestamp stays.
    await advance(account, dayAhead(0, 11));
    await newSubscription(t, customer.id, undefined, account);
    expect((await activate(t, customer.id, ACTIVATION_FLAGS, '', account)).statusCode).toBe(200);
    expect((await accountStatus(account, customer.id)).since).toBe(customer.createdTimestamp);

    // Overdue from 00:00 UTC the next day: PoorStanding since then (the clock read it later, at 09:00).
    await advance(account, dayAhead(1, 9));
    expect(await accountStatus(account, customer.id)).toMatchObject({ status: 'PoorStanding', since: dayAhead(1).toISOString() });

    // Paid in full: Good from the payment.
    await advance(account, dayAhead(2, 15, 30));
    const paymentId = await pay(account, customer.id, 29.99);
    expect(await accountStatus(account, customer.id)).toEqual({
      status: 'Good',
      since: dayAhead(2, 15, 30).toISOString(),
      daysUntilSuspension: null,
    });
    // Time passing changes nothing while nothing is overdue.
    await advance(account, dayAhead(3, 8));
    expect((await accountStatus(account, customer.id)).since).toBe(dayAhead(2, 15, 30).toISOString());

    // The payment refunded: the overdue invoice owes again, PoorStanding from the refund, and the
    // dunning countdown starts there too (the whole grace period is left).
    await advance(account, dayAhead(3, 11));
    const refund = await t.call('POST', '/v1/refunds', { originalPaymentId: paymentId, amount: 29.99 }, { as: account });
    expect(refund.statusCode, refund.body).toBe(200);
    const setting = (await t.call('GET', `/v1/customerbillingsetting/${customer.id}`, undefined, { as: account })).json();
    expect(await accountStatus(account, customer.id)).toEqual({
      status: 'PoorStanding',
      since: dayAhead(3, 11).toISOString(),
      daysUntilSuspension: setting.customerGracePeriod + setting.gracePeriodExtension,
    });

    await advance(account, dayAhead(4, 8, 15));
    await pay(account, customer.id, 29.99);
    expect(await accountStatus(account, customer.id)).toMatchObject({ status: 'Good', since: dayAhead(4, 8, 15).toISOString() });
  });

  it('keeps one PoorStanding spell while overdue invoices overlap: from the first one overdue until the last one is paid', async () => {
    const account = await t.newAccount();
    await advance(account, dayAhead(0, 10));
    const customer = await createCustomer(t, { billingSetting: { customerGracePeriod: 90 } }, account);
    const subscriptionId = await newSubscription(t, customer.id, undefined, account);
    expect((await activate(t, customer.id, ACTIVATION_FLAGS, '', account)).statusCode).toBe(200);
    const renewal = new Date(`${(await readSubscription(t, subscriptionId, account)).nextPeriodStartDate}T00:00:00Z`);

    // The renewal's invoice (19.99) falls overdue the day after the renewal, the first (29.99) is still unpaid.
    const renewalNextDay = new Date(renewal.getTime() + DAY + 9 * HOUR);
    await advance(account, renewalNextDay);
    expect(await accountStatus(account, customer.id)).toMatchObject({ status: 'PoorStanding', since: dayAhead(1).toISOString() });

    // The first paid (oldest first): the second still overdue, so the same spell goes on.
    await pay(account, customer.id, 29.99);
    expect(await accountStatus(account, customer.id)).toMatchObject({ status: 'PoorStanding', since: dayAhead(1).toISOString() });

    const lastPayment = new Date(renewalNextDay.getTime() + HOUR);
    await advance(account, lastPayment);
    await pay(account, customer.id, 19.99);
    expect(await accountStatus(account, customer.id)).toMatchObject({ status: 'Good', since: lastPayment.toISOString() });
  });
});
