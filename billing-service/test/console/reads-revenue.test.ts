import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASIC_MONTHLY, PRO_MONTHLY, ACTIVATION_FLAGS, activate, cancel, newCustomer, newSubscription } from '../helpers/api-fixtures.js';
import { testCatalog, type TestAccount } from '../helpers/test-app.js';
import { startConsoleReadsApp, type ConsoleReadsApp } from './console-reads-app.js';

/*
 * GET /console/api/revenue: MRR by month from the subscriptions' history (activations, invoice lines, plan changes,
 * cancellations), on an account's own test clock moved through HTTP; the current month equals GET /v1/subscriptions.
 */

let t: ConsoleReadsApp;
beforeAll(async () => {
  t = await startConsoleReadsApp({
    catalog: testCatalog({ planChanges: { allowed: [{ from: 'BASIC', to: 'PRO' }] } }),
    app: { testClocks: true, backgroundTasks: false, webhookWorker: false },
  });
});
afterAll(async () => t?.close());

async function advance(account: TestAccount, to: string) {
  const res = await t.call('POST', '/v1/testclock/advance', { to }, { as: account });
  expect(res.statusCode, res.body).toBe(200);
}

/** A customer on one plan frequency with a card that pays (automatic collection), activated on the account's clock. */
async function subscriber(account: TestAccount, planFrequencyId: number) {
  const customerId = await newCustomer(t, { firstName: 'Sub', lastName: `Scriber ${planFrequencyId}` }, account);
  const subscriptionId = await newSubscription(t, customerId, planFrequencyId, account);
  const card = await t.call(
    'POST',
    '/v1/paymentmethods/creditcard',
    {
      customerId,
      cardNumber: '4242424242424242',
      firstName: 'Ada',
      lastName: 'Lovelace',
      expirationMonth: 12,
      expirationYear: 40,
      cvv: '123',
    },
    { as: account },
  );
  expect(card.statusCode, card.body).toBe(200);
  const setting = (await t.call('GET', `/v1/customerbillingsetting/${customerId}`, undefined, { as: account })).json();
  const put = await t.call('PUT', '/v1/customerbillingsetting', { ...setting, autoCollect: true }, { as: account });
  expect(put.statusCode, put.body).toBe(200);
  const activated = await activate(t, customerId, ACTIVATION_FLAGS, '', account);
  expect(activated.statusCode, activated.body).toBe(200);
  return { customerId, subscriptionId };
}

async function changePlan(account: TestAccount, subscriptionId: number, body: Record<string, unknown>) {
  const res = await t.call('POST', `/v1/subscriptions/${subscriptionId}/changes`, { timing: 'now', ...body }, { as: account });
  expect(res.statusCode, res.body).toBe(200);
}

/**
 * Σ monthlyRecurringRevenue of the account's Active subscriptions, as the API shows them (in cents, exact). The API
 * lists subscriptions per customer (there is no GET /v1/subscriptions): every customer's list, summed.
 */
async function apiMrrCents(account: TestAccount): Promise<number> {
  const customers = await t.call('GET', '/v1/customers?pageSize=1000', undefined, { as: account });
  expect(customers.statusCode, customers.body).toBe(200);
  let cents = 0;
  for (const { id } of customers.json() as Array<{ id: number }>) {
    const res = await t.call('GET', `/v1/customers/${id}/subscriptions?pageSize=1000`, undefined, { as: account });
    expect(res.statusCode, res.body).toBe(200);
    const subscriptions = res.json() as Array<{ status: string; monthlyRecurringRevenue: number }>;
    cents += subscriptions.filter((s) => s.status === 'Active').reduce((sum, s) => sum + Math.round(s.monthlyRecurringRevenue * 100), 0);
  }
  return cents;
}

describe('revenue by month', () => {
  it('splits MRR into new, expansion, contraction and churn month by month, and the current month is the API’s sum', async () => {
    const account = await t.newAccount();
    await advance(account, '2027-01-05T12:00:00Z');
    const a = await subscriber(account, BASIC_MONTHLY); // 19.99 from January
    await advance(account, '2027-02-10T12:00:00Z');
    const b = await subscriber(account, PRO_MONTHLY); // 5 seats × 8 + 9 = 49.00 from February
    const c = await subscriber(account, BASIC_MONTHLY); // 19.99 from February
    await advance(account, '2027-03-15T12:00:00Z');
    await changePlan(account, a.subscriptionId, { planFrequencyId: PRO_MONTHLY }); // 19.99 → 49.00: expansion 29.01
    await changePlan(account, b.subscriptionId, { quantities: { SEAT: 2 } }); // 49.00 → 25.00: contraction 24.00
    await advance(account, '2027-04-20T12:00:00Z');
    const cancelled = await cancel(t, c.customerId, 'None', account); // churn 19.99 in April
    expect(cancelled.statusCode, cancelled.body).toBe(204);
    await advance(account, '2027-05-03T12:00:00Z');

    const body = await t.consoleRead('/console/api/revenue?months=5', { as: account });
    expect(body.currencies).toHaveLength(1);
    const usd = body.currencies[0];
    expect(usd.currency).toBe('USD');
    const rows = usd.months.map((m: Record<string, unknown>) => [
      m.month,
      m.mrr,
      m.new,
      m.expansion,
      m.contraction,
      m.churn,
      m.activeSubscribers,
      m.churnedSubscribers,
      m.churnRate,
    ]);
    expect(rows).toEqual([
      ['2027-01', '19.99', '19.99', '0.00', '0.00', '0.00', 1, 0, '0.0000'],
      ['2027-02', '88.98', '68.99', '0.00', '0.00', '0.00', 3, 0, '0.0000'],
      ['2027-03', '93.99', '0.00', '29.01', '24.00', '0.00', 3, 0, '0.0000'],
      ['2027-04', '74.00', '0.00', '0.00', '0.00', '19.99', 2, 1, '0.3333'],
      ['2027-05', '74.00', '0.00', '0.00', '0.00', '0.00', 2, 0, '0.0000'],
    ]);
    expect(usd.current).toEqual({ mrr: '74.00', activeSubscribers: 2 });
    expect(Math.round(Number(usd.current.mrr) * 100)).toBe(await apiMrrCents(account));
  }, 120_000);

  it('gives 24 months by default, the last the current month of the account’s clock, and refuses more than 36', async () => {
    const account = await t.newAccount();
    await advance(account, '2028-03-10T00:00:00Z');
    await subscriber(account, BASIC_MONTHLY);
    const body = await t.consoleRead('/console/api/revenue', { as: account });
    const months = body.currencies[0].months;
    expect(months).toHaveLength(24);
    expect([months[0].month, months.at(-1).month]).toEqual(['2026-04', '2028-03']);
    expect(body.currencies[0].current).toEqual({ mrr: '19.99', activeSubscribers: 1 });
    expect(Math.round(Number(body.currencies[0].current.mrr) * 100)).toBe(await apiMrrCents(account));
    // Another account's subscribers are not counted here, nor this one's there.
    const other = await t.consoleRead('/console/api/revenue?months=1');
    expect(other.currencies).toEqual([]);
    const refused = await t.consoleCall('GET', '/console/api/revenue?months=37', { as: account });
    expect(refused.statusCode).toBe(400);
  }, 60_000);

  it('reports write-offs (issue 40) in the month they are dated, in the invoice’s currency', async () => {
    const account = await t.newAccount();
    await advance(account, '2027-06-05T12:00:00Z');
    const customerId = await newCustomer(t, { firstName: 'Bad', lastName: 'Debt' }, account);
    await newSubscription(t, customerId, BASIC_MONTHLY, account);
    const activated = await activate(t, customerId, ACTIVATION_FLAGS, '?view=sideeffects', account);
    const invoiceId = activated.json().invoices[0].id as number;
    const paid = await t.call('POST', '/v1/payments', { customerId, amount: 5, paymentMethod: 'Check' }, { as: account });
    expect(paid.statusCode, paid.body).toBe(200);
    await advance(account, '2027-07-02T12:00:00Z');
    const written = await t.call('POST', `/v1/Invoices/${invoiceId}/writeOff`, { reason: 'unreachable' }, { as: account });
    expect(written.statusCode, written.body).toBe(200);
    const body = await t.consoleRead('/console/api/revenue?months=2', { as: account });
    expect(body.currencies[0].months.map((m: Record<string, unknown>) => [m.month, m.writtenOff])).toEqual([
      ['2027-06', '0.00'],
      ['2027-07', '24.99'],
    ]);
  }, 60_000);
});
