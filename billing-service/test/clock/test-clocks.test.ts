import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { runBillingClock } from '../../src/lifecycle/billing-clock.js';
import { WebhookDeliveryWorker } from '../../src/webhooks/delivery-worker.js';
import {
  ACTIVATION_FLAGS,
  TEST_CARD,
  activate,
  listInvoices,
  newCustomer,
  newSubscription,
  readCustomer,
  readOverview,
  readSubscription,
} from '../helpers/api-fixtures.js';
import { startSmtpStandIn } from '../helpers/smtp-stand-in.js';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.js';
import { startReceiver } from '../webhooks/receiver.js';

/**
 * Test clocks: a merchant rehearses months of renewals and dunning in one request.
 * Each scenario runs on an account of its own, whose clock starts at real time.
 */

let t: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpStandIn>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  smtp = await startSmtpStandIn();
  receiver = await startReceiver();
  t = await startTestApp({
    app: {
      testClocks: true,
      email: { smtpUrl: smtp.url, from: 'billing@inkwell.test', pollMs: 20, retryBaseMs: 50 },
      webhooks: { allowHttp: true, allowPrivate: true },
      webhookWorker: false,
    },
  });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
  await smtp?.close();
});

const DAY = 86_400_000;
/** Noon UTC on `day` of the month `months` after the current one (a date in the near future, whatever today is). */
function monthsAhead(months: number, day: number): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + months, day, 12));
}

const clockOf = async (account: TestAccount) =>
  (await t.call('GET', '/v1/testclock', undefined, { as: account })).json() as { now: string; advanced: boolean };

async function advance(account: TestAccount, to: Date) {
  const res = await t.call('POST', '/v1/testclock/advance', { to: to.toISOString() }, { as: account });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Record<string, number | string | boolean>;
}

/** An Active customer on Basic monthly (19.99, 10.00 setup fee) with a card, collecting automatically, its first invoice paid. */
async function payingMonthlyCustomer(account: TestAccount, settings: Record<string, unknown> = {}) {
  const customerId = await newCustomer(t, { primaryEmail: `rehearsal.${account.accountId}@example.com` }, account);
  const subscriptionId = await newSubscription(t, customerId, undefined, account);
  const card = await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...TEST_CARD }, { as: account });
  expect(card.statusCode, card.body).toBe(200);
  const setting = (await t.call('GET', `/v1/customerbillingsetting/${customerId}`, undefined, { as: account })).json();
  const put = await t.call('PUT', '/v1/customerbillingsetting', { ...setting, autoCollect: true, ...settings }, { as: account });
  expect(put.statusCode, put.body).toBe(200);
  const activated = await activate(t, customerId, ACTIVATION_FLAGS, '', account);
  expect(activated.statusCode, activated.body).toBe(200);
  const paid = await t.call(
    'POST',
    '/v1/payments',
    { customerId, amount: 29.99, paymentMethod: 'CreditCard', useDefaultPaymentMethod: true },
    { as: account },
  );
  expect(paid.statusCode, paid.body).toBe(200);
  return { customerId, subscriptionId };
}

async function deliverWebhooks() {
  const worker = new WebhookDeliveryWorker(t.database.db, { allowHttp: true, allowPrivate: true, timeoutMs: 2_000 }, t.app.log);
  while ((await worker.runDue(new Date(Date.now() + 1000))) > 0);
}

const payments = async (account: TestAccount, customerId: number) =>
  (await t.call('GET', `/v1/customers/${customerId}/payments`, undefined, { as: account })).json() as Array<Record<string, any>>;

describe("an account's test clock", () => {
  it('starts at real time, and an advance moves only that account\'s "now": activation dates follow it', async () => {
    const account = await t.newAccount();
    const before = await clockOf(account);
    expect(before.advanced).toBe(false);
    expect(Math.abs(new Date(before.now).getTime() - Date.now())).toBeLessThan(60_000);

    const start = monthsAhead(2, 10);
    const summary = await advance(account, start);
    expect(summary).toMatchObject({ now: start.toISOString(), advanced: true, invoicesPosted: 0, paymentsCollected: 0 });
    expect(await clockOf(account)).toEqual({ now: start.toISOString(), advanced: true });

    // It stands still until the next advance, and everything the account does is dated by it.
    const customerId = await newCustomer(t, {}, account);
    const subscriptionId = await newSubscription(t, customerId, undefined, account);
    expect((await activate(t, customerId, ACTIVATION_FLAGS, '', account)).statusCode).toBe(200);
    const customer = await readCustomer(t, customerId, account);
    expect(customer.createdTimestamp).toBe(start.toISOString());
    const subscription = await readSubscription(t, subscriptionId, account);
    expect(subscription.activatedTimestamp?.slice(0, 10)).toBe(start.toISOString().slice(0, 10));
    const [invoice] = await listInvoices(t, customerId, account);
    expect(invoice!.postedTimestamp?.slice(0, 10)).toBe(start.toISOString().slice(0, 10));

    // Another account is still on real time, and its records too.
    const other = await t.newAccount();
    expect((await clockOf(other)).advanced).toBe(false);
    const otherCustomer = await readCustomer(t, await newCustomer(t, {}, other), other);
    expect(Math.abs(new Date(otherCustomer.createdTimestamp).getTime() - Date.now())).toBeLessThan(60_000);
  });

  it('bills a monthly customer for 13 months in one advance: 12 renewals, each collected by the daily automatic collection', async () => {
    const account = await t.newAccount();
    const start = monthsAhead(2, 10);
    await advance(account, start);
    const { customerId, subscriptionId } = await payingMonthlyCustomer(account);

    // The day before the 13th renewal: 12 renewals on the 10th of each month.
    const end = monthsAhead(15, 9);
    const summary = await advance(account, end);
    const days = Math.ceil((end.getTime() - start.getTime()) / DAY);
    expect(summary).toMatchObject({
      from: start.toISOString(),
      now: end.toISOString(),
      days,
      invoicesPosted: 12,
      customersRenewed: 12,
      paymentsCollected: 12,
      paymentsFailed: 0,
      customersSuspended: 0,
    });

    const invoices = await listInvoices(t, customerId, account);
    expect(invoices).toHaveLength(13);
    expect(invoices.every((i) => i.status === 'Paid')).toBe(true);
    expect(invoices.slice(1).map((i) => i.charges[0].startServiceDate)).toEqual(
      Array.from({ length: 12 }, (_, k) =>
        monthsAhead(3 + k, 10)
          .toISOString()
          .slice(0, 10),
      ),
    );
    const collected = (await payments(account, customerId)).filter((p) => p.source === 'Automatic' && p.status === 'Succeeded');
    expect(collected).toHaveLength(12);
    expect((await readSubscription(t, subscriptionId, account)).nextPeriodStartDate).toBe(monthsAhead(15, 10).toISOString().slice(0, 10));
    expect((await readCustomer(t, customerId, account)).status).toBe('Active');
  });

  it('runs dunning on a card that starts declining: suspended after the grace period, cancelled after customerAutoCancel days, each webhook and e-mail once', async () => {
    const account = await t.newAccount();
    const hook = await t.call(
      'POST',
      '/v1/webhookEndpoints',
      { url: receiver.url(`/clock-${account.accountId}`), eventTypes: ['*'] },
      { as: account },
    );
    expect(hook.statusCode, hook.body).toBe(200);
    const start = monthsAhead(2, 10);
    await advance(account, start);
    const { customerId } = await payingMonthlyCustomer(account, {
      customerGracePeriod: 3,
      gracePeriodExtension: 0,
      customerAutoCancel: 10,
    });
    // The card on file starts declining: a new default that validates but whose every charge is declined.
    const declining = await t.call(
      'POST',
      '/v1/paymentmethods/creditcard',
      { customerId, ...TEST_CARD, cardNumber: '4000000000000341', isDefault: true },
      { as: account },
    );
    expect(declining.statusCode, declining.body).toBe(200);
    const renewal = monthsAhead(3, 10);
    await deliverWebhooks(); // the checkout's events
    const fromEvents = receiver.received.length;

    // Two days after the renewal: retried daily, not suspended yet; the overview counts down on the account's time
    // (PoorStanding since 00:00 of the day after the renewal: a day and a half of the 3 days' grace gone).
    let summary = await advance(account, new Date(renewal.getTime() + 2 * DAY));
    expect(summary).toMatchObject({
      invoicesPosted: 1,
      customersRenewed: 1,
      paymentsCollected: 0,
      paymentsFailed: 3,
      customersSuspended: 0,
    });
    expect((await readOverview(t, customerId, account)).daysUntilSuspension).toBe(2);

    // Due on the renewal day, overdue from the next, grace 3 days: suspended at the advance's tick of day 4
    // (noon, like every tick of this advance); cancelled 10 days after the suspension.
    summary = await advance(account, new Date(renewal.getTime() + 40 * DAY));
    expect(summary).toMatchObject({ customersSuspended: 1, customersCancelled: 1, customersReactivated: 0, paymentsCollected: 0 });
    expect((await readCustomer(t, customerId, account)).status).toBe('Cancelled');
    const suspendedAt = renewal.getTime() + 4 * DAY;
    expect(new Date((await readOverview(t, customerId, account)).statusTimestamp).getTime()).toBe(suspendedAt + 10 * DAY);
    const failed = (await payments(account, customerId)).filter((p) => p.status === 'Failed');
    // One attempt a day, from the renewal day (day 0) to the cancellation day (day 14, collected before cancelling) included.
    expect(failed).toHaveLength(15);

    // Webhooks: delivered, verified, each once, dated on the account's clock.
    const secret = hook.json().secret as string;
    await deliverWebhooks();
    const events = receiver.received
      .slice(fromEvents)
      .filter((r) => r.path === `/clock-${account.accountId}`)
      .map((r) => new Webhook(secret).verify(r.body, r.headers) as { id: string; type: string; timestamp: string; data: any });
    const count = (type: string) => events.filter((e) => e.type === type).length;
    expect(count('subscription.renewed')).toBe(1);
    expect(count('invoice.posted')).toBe(1);
    expect(count('invoice.overdue')).toBe(1);
    expect(count('customer.suspended')).toBe(1);
    expect(count('customer.cancelled')).toBe(1);
    expect(count('payment.failed')).toBe(failed.length);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    expect(events.find((e) => e.type === 'customer.suspended')!.timestamp).toBe(new Date(suspendedAt).toISOString());
    expect(events.find((e) => e.type === 'customer.cancelled')!.timestamp).toBe(new Date(suspendedAt + 10 * DAY).toISOString());

    // E-mails: written once each, and sent.
    const outbox = await t.database.db.selectFrom('emailOutbox').select(['emailType']).where('customerId', '=', customerId).execute();
    const mails = (type: string) => outbox.filter((m) => m.emailType === type).length;
    expect(mails('CustomerSuspend')).toBe(1);
    expect(mails('InvoiceOverdue')).toBe(1);
    expect(mails('SubscriptionCancellation')).toBe(1);
    const address = `rehearsal.${account.accountId}@example.com`;
    // A wait, not a timing: a busy machine renders and sends 22 e-mails slowly.
    expect(await smtp.mailsTo(address, outbox.length)).toHaveLength(outbox.length);
  }, 120_000);

  it('keeps accounts apart: an advance and the background clock each move only their own accounts', async () => {
    const advanced = await t.newAccount();
    const realTime = await t.newAccount();
    await advance(advanced, monthsAhead(2, 10));
    const a = await payingMonthlyCustomer(advanced);
    const b = await payingMonthlyCustomer(realTime);

    await advance(advanced, monthsAhead(4, 11));
    expect(await listInvoices(t, a.customerId, advanced)).toHaveLength(3);
    expect(await listInvoices(t, b.customerId, realTime)).toHaveLength(1);
    expect((await clockOf(realTime)).advanced).toBe(false);

    // The background clock (wall time, here 40 days on) renews real-time accounts and leaves advanced ones to their advances.
    const tick = await runBillingClock(t.app.ctx, new Date(Date.now() + 40 * DAY), { kind: 'realTimeAccounts' });
    expect(tick.renewed).toContain(b.customerId);
    expect(tick.renewed).not.toContain(a.customerId);
    expect(await listInvoices(t, a.customerId, advanced)).toHaveLength(3);
  });
});

describe('advance and reset answer clearly', () => {
  it('refuses to go back, to jump more than five years, or a timestamp that is not one', async () => {
    const account = await t.newAccount();
    const past = await t.call('POST', '/v1/testclock/advance', { to: new Date(Date.now() - DAY).toISOString() }, { as: account });
    expect(past.statusCode).toBe(400);
    expect(past.json().Errors[0]).toMatchObject({ Key: 'to' });
    expect(past.json().Errors[0].Value).toMatch(/only moves forward/);
    const far = await t.call('POST', '/v1/testclock/advance', { to: new Date(Date.now() + 6 * 366 * DAY).toISOString() }, { as: account });
    expect(far.statusCode).toBe(400);
    expect(far.json().Errors[0]).toMatchObject({ Key: 'to' });
    for (const to of ['next tuesday', '2027-13-01T00:00:00Z', 12345, null]) {
      const bad = await t.call('POST', '/v1/testclock/advance', { to }, { as: account });
      expect(bad.statusCode, String(to)).toBe(400);
      expect(bad.json().Errors[0].Key).toBe('to');
    }
    expect((await clockOf(account)).advanced).toBe(false);
  });

  it('resets to real time when nothing was recorded since the first advance, and refuses (saying why) once something was', async () => {
    const quiet = await t.newAccount();
    await advance(quiet, monthsAhead(1, 5));
    const reset = await t.call('POST', '/v1/testclock/reset', undefined, { as: quiet });
    expect(reset.statusCode, reset.body).toBe(200);
    expect(reset.json().advanced).toBe(false);
    expect((await clockOf(quiet)).advanced).toBe(false);

    const busy = await t.newAccount();
    await advance(busy, monthsAhead(1, 5));
    await newCustomer(t, {}, busy);
    const refused = await t.call('POST', '/v1/testclock/reset', undefined, { as: busy });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().Errors[0].Value).toMatch(/ahead of real time.*records were made/);
    expect((await clockOf(busy)).advanced).toBe(true);
  });

  it('exists only with RENEW_TEST_CLOCKS=true, which production refuses', async () => {
    const plain = await startTestApp();
    try {
      const res = await plain.call('GET', '/v1/testclock');
      expect(res.statusCode).toBe(404);
    } finally {
      await plain.close();
    }
    expect(loadConfig({ RENEW_TEST_CLOCKS: 'true' }).testClocks).toBe(true);
    expect(() => loadConfig({ RENEW_TEST_CLOCKS: 'true', NODE_ENV: 'production' })).toThrow(
      /RENEW_TEST_CLOCKS=true is refused in production/,
    );
  });
});
