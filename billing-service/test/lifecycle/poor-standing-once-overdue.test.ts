import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIVATION_FLAGS, activate, newCustomer, newSubscription, readCustomer, readOverview } from '../helpers/api-fixtures.js';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.js';

/**
 * Issue 26, "PoorStanding at once": an invoice is overdue once its due date has passed (from 00:00
 * UTC of the day after it, on the account's clock). The account status, the list filter, the
 * overdue notice and the dunning countdown all use that one rule, so a customer activated without
 * a deposit on Net0 terms is in good standing all of its due day. Each scenario runs on an account
 * of its own, whose test clock is moved through HTTP.
 */

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
  return res.json() as { overdueNotices: number; customersSuspended: number };
}

/** A customer on Basic monthly (29.99 with its setup fee) with these billing settings, activated now on the account's clock, nothing paid. */
async function activatedUnpaid(account: TestAccount, settings: Record<string, unknown>) {
  const customerId = await newCustomer(t, {}, account);
  await newSubscription(t, customerId, undefined, account);
  const setting = (await t.call('GET', `/v1/customerbillingsetting/${customerId}`, undefined, { as: account })).json();
  const put = await t.call('PUT', '/v1/customerbillingsetting', { ...setting, ...settings }, { as: account });
  expect(put.statusCode, put.body).toBe(200);
  const activated = await activate(t, customerId, ACTIVATION_FLAGS, '', account);
  expect(activated.statusCode, activated.body).toBe(200);
  return customerId;
}

async function idsWithAccountStatus(account: TestAccount, status: string): Promise<number[]> {
  const res = await t.call('GET', `/v1/customers?query=${encodeURIComponent(`AccountStatus:${status}`)}`, undefined, { as: account });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as Array<{ id: number }>).map((c) => c.id);
}

async function standing(account: TestAccount, customerId: number) {
  const [customer, overview, good, poor] = await Promise.all([
    readCustomer(t, customerId, account),
    readOverview(t, customerId, account),
    idsWithAccountStatus(account, 'Good'),
    idsWithAccountStatus(account, 'PoorStanding'),
  ]);
  // The read, the overview and the list filter agree.
  expect(overview.customerAccountStatus).toBe(customer.customerAccountStatus);
  expect(good.includes(customerId)).toBe(customer.customerAccountStatus === 'Good');
  expect(poor.includes(customerId)).toBe(customer.customerAccountStatus === 'PoorStanding');
  return {
    status: customer.customerAccountStatus,
    customerStatus: customer.status,
    daysUntilSuspension: overview.daysUntilSuspension,
    arBalance: overview.arBalance,
  };
}

describe('an invoice is overdue from the day after its due date', () => {
  it('keeps a Net0 customer activated without a deposit in good standing on its due day; the next day it is PoorStanding, told once, and the grace period counts from then', async () => {
    const account = await t.newAccount();
    await advance(account, dayAhead(0, 10));
    const customerId = await activatedUnpaid(account, { term: 'Net0', customerGracePeriod: 3, gracePeriodExtension: 0 });

    // Due today, unpaid: owed, not overdue.
    expect(await standing(account, customerId)).toEqual({
      status: 'Good',
      customerStatus: 'Active',
      daysUntilSuspension: null,
      arBalance: 29.99,
    });
    let summary = await advance(account, dayAhead(0, 23, 59));
    expect(summary).toMatchObject({ overdueNotices: 0, customersSuspended: 0 });
    expect((await standing(account, customerId)).status).toBe('Good');

    // From 00:00 UTC the next day: PoorStanding, the overdue notice given, 3 days' grace from now.
    summary = await advance(account, dayAhead(1, 0, 1));
    expect(summary).toMatchObject({ overdueNotices: 1, customersSuspended: 0 });
    expect(await standing(account, customerId)).toMatchObject({ status: 'PoorStanding', customerStatus: 'Active', daysUntilSuspension: 3 });

    summary = await advance(account, dayAhead(3, 23, 59));
    expect(summary).toMatchObject({ overdueNotices: 0, customersSuspended: 0 });
    expect(await standing(account, customerId)).toMatchObject({ status: 'PoorStanding', customerStatus: 'Active', daysUntilSuspension: 1 });

    // PoorStanding for the whole grace period: suspended.
    summary = await advance(account, dayAhead(4, 0, 1));
    expect(summary).toMatchObject({ overdueNotices: 0, customersSuspended: 1 });
    expect(await standing(account, customerId)).toMatchObject({
      status: 'PoorStanding',
      customerStatus: 'Suspended',
      daysUntilSuspension: 0,
    });
  });

  it('follows the payment terms: a Net5 invoice is overdue from the sixth day', async () => {
    const account = await t.newAccount();
    await advance(account, dayAhead(0, 12));
    const customerId = await activatedUnpaid(account, { term: 'Net5' });
    const [invoice] = (await t.call('GET', `/v1/Customers/${customerId}/Invoices`, undefined, { as: account })).json();
    expect(invoice.dueTimestamp).toBe(dayAhead(5).toISOString());

    expect((await advance(account, dayAhead(5, 23, 59))).overdueNotices).toBe(0);
    expect((await standing(account, customerId)).status).toBe('Good');
    expect((await advance(account, dayAhead(6, 0, 1))).overdueNotices).toBe(1);
    expect((await standing(account, customerId)).status).toBe('PoorStanding');
  });
});
