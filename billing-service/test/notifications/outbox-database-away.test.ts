import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpStandIn } from '../helpers/smtp-stand-in.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * An e-mail sent while the database goes away: the SMTP server took it, but "Sent" could not be
 * written. The worker holds that write and makes it first in its next run, so the e-mail is not
 * sent a second time (before, the failed write counted as a failed send and was retried).
 */
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

describe('the e-mail outbox when the database goes away mid-send', () => {
  it('records the sent e-mail once the database answers, and sends it once', async () => {
    // The first "Sent" write is refused as a restarting database refuses it (57P03); later ones go through.
    await sql`create sequence sent_writes`.execute(t.database.db);
    await sql`create function refuse_first_sent() returns trigger language plpgsql as $$
      begin
        if new.status = 'Sent' and old.status = 'Pending' and nextval('sent_writes') = 1 then
          raise exception 'the database system is starting up' using errcode = '57P03';
        end if;
        return new;
      end $$`.execute(t.database.db);
    await sql`create trigger refuse_first_sent before update on email_outbox for each row execute function refuse_first_sent()`.execute(
      t.database.db,
    );
    try {
      const address = 'ada.once@example.com';
      const created = await t.call('POST', '/v1/customers', { firstName: 'Ada', primaryEmail: address });
      const customerId = created.json().id as number;
      const paid = await t.call('POST', '/v1/payments', { customerId, amount: 12, paymentMethod: 'Cash' });
      expect(paid.statusCode).toBe(200);
      const deadline = Date.now() + 60_000; // a wait, not a timing: a busy machine is slow
      let rows: Array<{ status: string; attempts: number }> = [];
      for (;;) {
        rows = await t.database.db.selectFrom('emailOutbox').select(['status', 'attempts']).where('customerId', '=', customerId).execute();
        if ((rows.length > 0 && rows.every((r) => r.status === 'Sent')) || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((r) => r.status === 'Sent' && r.attempts === 1)).toBe(true);
      // give a wrong retry its chance to send again
      await new Promise((resolve) => setTimeout(resolve, 500));
      const mails = smtp.received.filter((m) => m.to.includes(address));
      expect(mails).toHaveLength(rows.length);
      expect(
        Number((await sql<{ n: string }>`select last_value as n from sent_writes`.execute(t.database.db)).rows[0]!.n),
      ).toBeGreaterThanOrEqual(2);
    } finally {
      await sql`drop trigger refuse_first_sent on email_outbox`.execute(t.database.db);
    }
  });
});
