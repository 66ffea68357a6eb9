import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InstanceLiveness } from '../../src/db/instance-liveness.js';
import { invoicePdf } from '../../src/invoices/pdf/invoice-pdf.js';
import { EmailOutboxWorker, type EmailSettings } from '../../src/notifications/email-outbox-worker.js';
import { claimDueEmails, holdClaim, markAttemptFailed, markSent, releaseClaimsOf } from '../../src/notifications/outbox-repository.js';
import { ACTIVATION_FLAGS, activate, newCustomer, newSubscription } from '../helpers/api-fixtures.js';
import { startSmtpStandIn } from '../helpers/smtp-stand-in.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/*
 * The e-mail outbox worker (issue 35). The outbox keeps what an e-mail says: the transaction that records a payment writes the e-mail's
 * data (its language, the name it greets, the event's fields), never its text; the worker writes the text and
 * HTML when it sends, from what was decided then, whatever the customer became since. Rows written before
 * (their text already in the row) are still sent as they are.
 *
 * A paused holder of an e-mail claim (SIGSTOP, a long GC pause, a frozen VM: issue 35) must not send the
 * e-mail another instance took over meanwhile, nor record anything about it. Every claim carries a new
 * token; right before the SMTP send the worker checks it still holds it, and its outcome is written only
 * under it. Two workers of one database (each its own instance), the first paused between its claim and
 * the send (inside the making of the invoice PDF the e-mail carries).
 */
let t: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpStandIn>>;
let settings: EmailSettings;
beforeAll(async () => {
  smtp = await startSmtpStandIn();
  settings = { smtpUrl: smtp.url, from: 'billing@inkwell.test', retryBaseMs: 50 };
  // No background worker: the workers the tests build are the only senders.
  t = await startTestApp({ app: { backgroundTasks: false, email: settings } });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

async function sendOutbox() {
  const worker = new EmailOutboxWorker(t.database.db, settings, t.app.log);
  try {
    return await worker.runDue();
  } finally {
    await worker.stop();
  }
}

const outboxOf = (customerId: number) =>
  t.database.db.selectFrom('emailOutbox').selectAll().where('customerId', '=', customerId).orderBy('id').execute();

describe('the e-mail outbox keeps what an e-mail says; the worker writes it when it sends', () => {
  it('a payment stores no rendered text; the e-mail goes later to the address, name and language of that moment', async () => {
    const created = await t.call('POST', '/v1/customers', {
      firstName: 'Grace',
      lastName: 'Hopper',
      primaryEmail: 'grace.then@example.com',
    });
    const customer = created.json();
    const paid = await t.call('POST', '/v1/payments', {
      customerId: customer.id,
      amount: '12.50',
      paymentMethod: 'Check',
      reference: 'CHK-77',
    });
    expect(paid.statusCode, paid.body).toBe(200);

    const [row] = await outboxOf(customer.id);
    expect(row).toMatchObject({
      emailType: 'PaymentReceived',
      toAddress: 'grace.then@example.com',
      subject: null,
      body: null,
      htmlBody: null,
    });
    expect(row!.content).toMatchObject({
      language: 'en',
      customerName: 'Grace Hopper',
      branding: { name: 'Inkwell' },
      event: { type: 'PaymentReceived', currency: 'USD', reference: 'CHK-77' },
    });

    // Before the worker sends it, the customer moves to another address, name and language.
    const moved = await t.call('PUT', '/v1/customers', {
      ...customer,
      firstName: 'Ada',
      primaryEmail: 'ada.now@example.com',
      language: 'fr',
    });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(await sendOutbox()).toBe(1);

    const [mail] = await smtp.mailsTo('grace.then@example.com', 1);
    expect(mail!.subject).toBe('Inkwell: payment of $12.50 received');
    expect(mail!.text).toContain('Hello Grace Hopper,');
    expect(mail!.text).toContain('(CHK-77)');
    expect(mail!.html).toContain('<html lang="en"');
    expect(mail!.html).toContain('Hello Grace Hopper,');
    expect(smtp.received.filter((m) => m.to.includes('ada.now@example.com'))).toEqual([]);
    expect(await outboxOf(customer.id)).toMatchObject([{ status: 'Sent', attempts: 1, claimedBy: null, claimToken: null }]);
  });

  it('sends a row written before the outbox kept content as its text was written then', async () => {
    const created = await t.call('POST', '/v1/customers', { firstName: 'Old', primaryEmail: 'old.row@example.com' });
    const customerId = created.json().id as number;
    // As the code before migration 0036 wrote it: the e-mail already rendered, no content.
    await sql`
      insert into email_outbox (account_id, customer_id, email_type, to_address, subject, body, html_body)
      values (${t.account.accountId}, ${customerId}, 'PaymentReceived', 'old.row@example.com',
        'Inkwell: payment of $7.00 received', 'Hello Old,\n\nWe received your payment of $7.00.',
        '<html lang="en"><body><p>Hello Old, we received your payment of $7.00.</p></body></html>')
    `.execute(t.database.db);
    expect(await sendOutbox()).toBe(1);
    const [mail] = await smtp.mailsTo('old.row@example.com', 1);
    expect(mail).toMatchObject({
      subject: 'Inkwell: payment of $7.00 received',
      text: 'Hello Old,\n\nWe received your payment of $7.00.',
    });
    expect(mail!.html).toContain('<p>Hello Old, we received your payment of $7.00.</p>');
    expect(await outboxOf(customerId)).toMatchObject([{ status: 'Sent', attempts: 1 }]);
  });

  it('refuses a row with neither content nor text', async () => {
    const write = sql`
      insert into email_outbox (account_id, customer_id, email_type, to_address)
      values (${t.account.accountId}, null, 'PaymentReceived', 'nobody@example.com')
    `.execute(t.database.db);
    await expect(write).rejects.toThrow(/email_outbox_content_or_text/);
  });
});

const pdf = (accountId: number, invoiceId: number) => invoicePdf(t.app.ctx, accountId, invoiceId);

/** A worker whose first invoice PDF waits until `resume()`: paused with its claim in hand, before the send. */
function pausedWorker(instance: InstanceLiveness) {
  let resume!: () => void;
  let pausedNow!: () => void;
  const resumed = new Promise<void>((resolve) => (resume = resolve));
  const paused = new Promise<void>((resolve) => (pausedNow = resolve));
  const worker = new EmailOutboxWorker(
    t.database.db,
    settings,
    t.app.log,
    async (accountId, invoiceId) => {
      pausedNow();
      await resumed;
      return pdf(accountId, invoiceId);
    },
    instance,
  );
  return { worker, paused, resume };
}

let n = 0;
/** An activated customer: its activation e-mail and its first invoice's (which carries the PDF) wait in the outbox. */
async function activatedCustomer() {
  n += 1;
  const address = `fenced.${n}@example.com`;
  const customerId = await newCustomer(t, { firstName: 'Grace', lastName: 'Hopper', primaryEmail: address });
  await newSubscription(t, customerId);
  expect((await activate(t, customerId, ACTIVATION_FLAGS)).statusCode).toBe(200);
  return { customerId, address };
}

const invoiceEmailOf = (customerId: number) =>
  t.database.db
    .selectFrom('emailOutbox')
    .selectAll()
    .where('customerId', '=', customerId)
    .where('emailType', '=', 'InvoicePost')
    .executeTakeFirstOrThrow();

/** The mails the address got, once the worker runs are over (nothing is in flight: no waiting needed). */
const mailsTo = (address: string) => smtp.received.filter((m) => m.to.includes(address));

describe('a paused holder of an e-mail claim', () => {
  it('whose lease ran out while paused: resumed while the new holder is itself mid-way, it leaves the e-mail; the new holder sends it once', async () => {
    const { customerId, address } = await activatedCustomer();
    const first = pausedWorker(new InstanceLiveness(t.database.db, 'worker'));
    const second = pausedWorker(new InstanceLiveness(t.database.db, 'worker'));
    try {
      const firstRun = first.worker.runDue();
      await first.paused;
      const firstClaim = await invoiceEmailOf(customerId);
      expect(firstClaim).toMatchObject({ status: 'Pending', claimedBy: expect.any(String), claimToken: expect.any(String) });

      // Six minutes on (past the 5-minute lease), the second worker takes the e-mail over, and pauses too.
      const secondRun = second.worker.runDue(new Date(Date.now() + 6 * 60_000));
      await second.paused;
      const secondClaim = await invoiceEmailOf(customerId);
      expect(secondClaim.claimedBy).not.toBe(firstClaim.claimedBy);
      expect(secondClaim.claimToken).not.toBe(firstClaim.claimToken);

      // The first resumes: the e-mail is still Pending, but no longer its own.
      first.resume();
      expect(await firstRun).toBe(2); // it had claimed both e-mails; it sent the activation's
      expect(mailsTo(address).map((m) => m.subject)).toEqual(['Inkwell: your account is active']);
      expect(await invoiceEmailOf(customerId)).toEqual(secondClaim);

      second.resume();
      expect(await secondRun).toBe(1);
      const mails = mailsTo(address);
      expect(mails.map((m) => m.subject)).toEqual([
        'Inkwell: your account is active',
        expect.stringMatching(/^Inkwell: invoice \d+ for \$29\.99$/),
      ]);
      expect(mails[1]!.attachments.map((a) => a.contentType)).toEqual(['application/pdf']);
      expect(await invoiceEmailOf(customerId)).toMatchObject({ status: 'Sent', attempts: 1, claimedBy: null, claimToken: null });
    } finally {
      await first.worker.stop();
      await second.worker.stop();
    }
  });

  it('whose heartbeat went stale while paused: the other takes the e-mail over at once and sends it; the first, resumed, neither sends nor records', async () => {
    const { customerId, address } = await activatedCustomer();
    // The first beats once, then is silent (paused); the second judges a holder dead after 300 ms without a beat.
    const firstInstance = new InstanceLiveness(t.database.db, 'worker', { heartbeatMs: 600_000 });
    const secondInstance = new InstanceLiveness(t.database.db, 'worker', { heartbeatMs: 25, staleAfterMs: 300 });
    await firstInstance.start();
    await secondInstance.start();
    const first = pausedWorker(firstInstance);
    const second = new EmailOutboxWorker(t.database.db, settings, t.app.log, pdf, secondInstance);
    try {
      const firstRun = first.worker.runDue();
      await first.paused;
      const deadline = Date.now() + 30_000; // a wait, not a timing: the second's own beats must run 300 ms unbroken
      while (!secondInstance.mayJudgeOthers && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(await second.runDue()).toBe(1);
      const sent = await invoiceEmailOf(customerId);
      expect(sent).toMatchObject({ status: 'Sent', attempts: 1, claimedBy: null, claimToken: null });

      first.resume();
      await firstRun;
      expect(await invoiceEmailOf(customerId)).toEqual(sent);
      expect(mailsTo(address).filter((m) => /invoice \d+ for/.test(m.subject))).toHaveLength(1);
    } finally {
      await first.worker.stop();
      await second.stop();
      await firstInstance.stop();
      await secondInstance.stop();
    }
  });

  it('that resumes after its re-check, mid-send: its outcome and its release are refused; the new holder records its own', async () => {
    const { customerId } = await activatedCustomer();
    const db = t.database.db;
    const firstInstance = new InstanceLiveness(db, 'worker');
    const secondInstance = new InstanceLiveness(db, 'worker');
    const now = Date.now();
    const firstClaims = await claimDueEmails(db, firstInstance, new Date(now), 10, 60_000);
    const firstClaim = firstClaims.find((e) => e.customerId === customerId && e.emailType === 'InvoicePost')!;
    expect(await holdClaim(db, firstInstance, firstClaim, new Date(now + 60_000))).toBe(true);
    // The lease runs out; the second takes the e-mail over (a new token).
    const secondClaims = await claimDueEmails(db, secondInstance, new Date(now + 120_000), 10, 60_000);
    const secondClaim = secondClaims.find((e) => e.id === firstClaim.id)!;
    expect(secondClaim.claimToken).not.toBe(firstClaim.claimToken);

    expect(await holdClaim(db, firstInstance, firstClaim, new Date(now + 180_000))).toBe(false);
    expect(await markSent(db, firstClaim, new Date(now))).toBe(false);
    expect(await markAttemptFailed(db, firstClaim, 'mailbox unavailable', null)).toBe(false);
    await releaseClaimsOf(db, firstInstance.id);
    expect(await invoiceEmailOf(customerId)).toMatchObject({
      status: 'Pending',
      attempts: 0,
      lastError: null,
      claimedBy: secondInstance.id,
      claimToken: secondClaim.claimToken,
    });

    const sentAt = new Date(now + 130_000);
    expect(await markSent(db, secondClaim, sentAt)).toBe(true);
    expect(await invoiceEmailOf(customerId)).toMatchObject({ status: 'Sent', attempts: 1, sentAt, claimedBy: null, claimToken: null });
    // The second's other claims: let go (made due again); the sent e-mail stays as the second recorded it.
    await releaseClaimsOf(db, secondInstance.id);
    expect(await invoiceEmailOf(customerId)).toMatchObject({ status: 'Sent', sentAt });
  });
});
