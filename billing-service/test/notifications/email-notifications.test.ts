import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runBillingClock } from '../../src/lifecycle/billing-clock.js';
import { startSmtpStandIn } from '../helpers/smtp-stand-in.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { ACTIVATION_FLAGS, activate, newSubscription } from '../helpers/api-fixtures.js';

let t: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpStandIn>>;
beforeAll(async () => {
  smtp = await startSmtpStandIn();
  t = await startTestApp({ app: { email: { smtpUrl: smtp.url, from: 'billing@inkwell.test', pollMs: 20, retryBaseMs: 50 } } });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

let n = 0;
async function customer(body: Record<string, unknown> = {}) {
  n += 1;
  const email = `grace.${n}@example.com`;
  const res = await t.call('POST', '/v1/customers', { firstName: 'Grace', lastName: 'Hopper', primaryEmail: email, ...body });
  expect(res.statusCode, res.body).toBe(200);
  return { id: res.json().id as number, email };
}

const outbox = (customerId: number) =>
  t.database.db.selectFrom('emailOutbox').selectAll().where('customerId', '=', customerId).orderBy('id').execute();

describe('e-mail notifications', () => {
  it('tells the customer once that an invoice is overdue', async () => {
    const c = await customer();
    await newSubscription(t, c.id);
    await activate(t, c.id, ACTIVATION_FLAGS);
    const [invoice] = (await t.call('GET', `/v1/Customers/${c.id}/Invoices`)).json();
    expect((await runBillingClock(t.app.ctx)).overdueNotices).not.toContain(invoice.id); // due today: not a day late yet
    const tomorrow = new Date(Date.now() + 86_400_000 + 60_000);
    expect((await runBillingClock(t.app.ctx, tomorrow)).overdueNotices).toContain(invoice.id);
    expect((await runBillingClock(t.app.ctx, tomorrow)).overdueNotices).not.toContain(invoice.id);
    const overdue = (await smtp.mailsTo(c.email, 3)).filter((m) => m.subject.endsWith('is overdue'));
    expect(overdue).toHaveLength(1);
    expect(overdue[0]!.text).toContain(`Invoice ${invoice.invoiceNumber} was due on`);
    expect(overdue[0]!.text).toContain('$29.99 is still unpaid');
  });

  it('tells the customer once that the card in use expires at the end of this month', async () => {
    const c = await customer();
    const now = new Date();
    const month = now.getUTCMonth() + 1;
    const year = now.getUTCFullYear() % 100;
    const card = await t.call('POST', '/v1/paymentmethods/creditcard', {
      customerId: c.id,
      cardNumber: '4242424242424242',
      firstName: 'G',
      lastName: 'H',
      expirationMonth: month,
      expirationYear: year,
      cvv: '123',
    });
    expect(card.statusCode, card.body).toBe(200);
    const later = await t.call('POST', '/v1/paymentmethods/creditcard', {
      customerId: c.id,
      cardNumber: '5555555555554444',
      firstName: 'G',
      lastName: 'H',
      expirationMonth: month,
      expirationYear: year + 1,
      cvv: '123',
    });
    await newSubscription(t, c.id);
    await activate(t, c.id, ACTIVATION_FLAGS);
    const first = await runBillingClock(t.app.ctx, now);
    expect(first.expiryNotices).toContain(card.json().id);
    expect(first.expiryNotices).not.toContain(later.json().id);
    expect((await runBillingClock(t.app.ctx, now)).expiryNotices).not.toContain(card.json().id);
    // Activation, invoice posted, card expiry (the invoice due today is not overdue before tomorrow).
    const notices = (await smtp.mailsTo(c.email, 3)).filter((m) => m.subject === 'Inkwell: your card ending 4242 expires soon');
    expect(notices).toHaveLength(1);
    const monthYear = new Intl.DateTimeFormat('en', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(now);
    expect(notices[0]!.text).toContain(`Your Visa card ending 4242 expires at the end of ${monthYear}.`);
  });

  it('tells the customer which subscriptions a cancellation ended', async () => {
    const c = await customer();
    await newSubscription(t, c.id);
    await activate(t, c.id, ACTIVATION_FLAGS);
    // A subscription added later and never started (Draft) is not one the customer had.
    await newSubscription(t, c.id, 21);
    expect((await t.call('POST', '/v1/customercancellation', { customerId: c.id, cancellationOption: 'None' })).statusCode).toBe(204);
    const [cancelled] = (await smtp.mailsTo(c.email, 3)).filter((m) => m.subject === 'Inkwell: your subscription is cancelled');
    expect(cancelled?.text).toContain('Your subscription Basic is cancelled.');
    expect(cancelled?.text).not.toContain('Pro');
  });

  it('tells the customer the account is active and the first invoice is issued, over SMTP', async () => {
    const c = await customer();
    await newSubscription(t, c.id);
    expect((await activate(t, c.id, ACTIVATION_FLAGS)).statusCode).toBe(200);
    const mails = await smtp.mailsTo(c.email, 2);
    expect(mails.map((m) => m.subject)).toEqual([
      'Inkwell: your account is active',
      expect.stringMatching(/^Inkwell: invoice \d+ for \$29\.99$/),
    ]);
    expect(mails[1]!.from).toBe('billing@inkwell.test');
    expect(mails[1]!.text).toContain('Hello Grace Hopper,');
    expect(mails[1]!.text).toMatch(/it is due on [A-Z][a-z]+ \d{1,2}, \d{4}\./);
    expect(mails[1]!.html).toContain('Hello Grace Hopper,');
    // the SMTP server has the mail a moment before the worker records it as sent
    await vi.waitFor(async () => expect((await outbox(c.id)).map((e) => e.status)).toEqual(['Sent', 'Sent']), {
      timeout: 30_000,
      interval: 100,
    });
  });

  it('confirms a payment, and tells of a failed one with the reason', async () => {
    const c = await customer();
    expect(
      (await t.call('POST', '/v1/payments', { customerId: c.id, amount: '12.50', paymentMethod: 'Check', reference: 'CHK-77' })).statusCode,
    ).toBe(200);
    await t.call('POST', '/v1/paymentmethods/creditcard', {
      customerId: c.id,
      cardNumber: '4000000000009995',
      firstName: 'G',
      lastName: 'H',
      expirationMonth: 12,
      expirationYear: 40,
      cvv: '123',
    });
    expect((await t.call('POST', '/v1/payments', { customerId: c.id, amount: 5, useDefaultPaymentMethod: true })).statusCode).toBe(402);
    const mails = await smtp.mailsTo(c.email, 2);
    expect(mails.map((m) => m.subject)).toEqual(['Inkwell: payment of $12.50 received', 'Inkwell: your payment of $5.00 failed']);
    expect(mails[0]!.text).toContain('(CHK-77)');
    expect(mails[1]!.text).toMatch(/could not be collected: .*insufficient funds/i);
  });

  it("follows the customer's e-mail preferences, and writes nothing for a customer without an address", async () => {
    const c = await customer();
    const put = await t.call('PUT', '/v1/CustomerEmailPreferences', {
      customerId: c.id,
      preferences: [{ emailType: 'InvoicePost', enabled: false }],
    });
    expect(put.statusCode, put.body).toBe(200);
    await newSubscription(t, c.id);
    await activate(t, c.id, ACTIVATION_FLAGS);
    expect((await outbox(c.id)).map((e) => e.emailType)).toEqual(['CustomerActivation']);

    const silent = await customer({ primaryEmail: null });
    await t.call('POST', '/v1/payments', { customerId: silent.id, amount: 1, paymentMethod: 'Cash' });
    expect(await outbox(silent.id)).toEqual([]);
  });

  it('keeps an e-mail the SMTP server refuses and sends it once the server takes mail again', async () => {
    const c = await customer();
    smtp.refuse(true);
    try {
      await t.call('POST', '/v1/payments', { customerId: c.id, amount: 3, paymentMethod: 'Cash' });
      const deadline = Date.now() + 60_000; // a wait, not a timing: a busy machine is slow
      while (Date.now() < deadline && !(await outbox(c.id))[0]?.lastError) await new Promise((resolve) => setTimeout(resolve, 25));
      const [pending] = await outbox(c.id);
      expect(pending).toMatchObject({ status: 'Pending' });
      expect(pending!.attempts).toBeGreaterThanOrEqual(1);
      expect(pending!.lastError).toMatch(/mailbox unavailable/);
    } finally {
      smtp.refuse(false);
    }
    expect((await smtp.mailsTo(c.email, 1)).map((m) => m.subject)).toEqual(['Inkwell: payment of $3.00 received']);
    // The worker records the send after the server has taken the mail: the row follows a moment later.
    await vi.waitFor(async () => expect((await outbox(c.id))[0]!.status).toBe('Sent'), { timeout: 60_000, interval: 25 });
  });

  it('tells a customer suspended by the billing clock why', async () => {
    const c = await customer();
    await newSubscription(t, c.id);
    await activate(t, c.id, ACTIVATION_FLAGS);
    await runBillingClock(t.app.ctx, new Date(Date.now() + 10 * 86_400_000));
    const mails = await smtp.mailsTo(c.email, 4);
    expect(mails.map((m) => m.subject)).toEqual([
      'Inkwell: your account is active',
      expect.stringMatching(/^Inkwell: invoice \d+ for \$29\.99$/),
      expect.stringMatching(/^Inkwell: invoice \d+ is overdue$/),
      'Inkwell: your account is suspended',
    ]);
    expect(mails.find((m) => m.subject.endsWith('suspended'))!.text).toContain('an invoice stayed overdue for 7 days');
  });
});
