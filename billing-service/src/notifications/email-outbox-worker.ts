import { wallClockNow } from '../clock/account-clock.js';
import type { FastifyBaseLogger } from 'fastify';
import nodemailer, { type Transporter } from 'nodemailer';
import { PeriodicTask } from '../tasks/periodic-task.js';
import type { Db } from '../db/database.js';
import { InstanceLiveness } from '../db/instance-liveness.js';
import { claimDueEmails, markAttemptFailed, markSent, releaseClaimsOf, type OutboxEmail } from './outbox-repository.js';
import { UnrecordedWrites } from '../tasks/unrecorded-writes.js';

export interface EmailSettings {
  /** smtp://user:pass@host:587 or smtps://… (RENEW_SMTP_URL). */
  smtpUrl: string;
  /** The From address (RENEW_EMAIL_FROM). */
  from: string;
  /** How often the outbox is looked at (default 2 s). */
  pollMs?: number;
  /** First retry delay after a failed send, doubled each time (default 30 s); after 5 attempts the e-mail is Failed. */
  retryBaseMs?: number;
}

export const MAX_EMAIL_ATTEMPTS = 5;

/** Makes the PDF of an invoice an e-mail carries (undefined: the invoice is gone). */
export type InvoicePdfMaker = (accountId: number, invoiceId: number) => Promise<{ filename: string; content: Buffer } | undefined>;

/** Sends the outbox's e-mails over SMTP, a few at a time, retrying failures with growing delays. */
export class EmailOutboxWorker {
  private readonly transport: Transporter;
  /** Its state and run counts are watched by the readiness check and the metrics. */
  readonly task: PeriodicTask;
  private readonly unrecorded = new UnrecordedWrites();

  constructor(
    private readonly db: Db,
    private readonly settings: EmailSettings,
    log: FastifyBaseLogger,
    private readonly invoicePdf?: InvoicePdfMaker,
    /** This process's claims' holder (unset: a private one that never beats, so claims lapse only by their lease). */
    private readonly instance: InstanceLiveness = new InstanceLiveness(db, 'worker'),
  ) {
    this.transport = nodemailer.createTransport(settings.smtpUrl);
    this.task = new PeriodicTask('e-mail outbox', settings.pollMs ?? 2_000, () => this.sendDue(), log);
  }

  start() {
    this.task.start();
  }

  async stop() {
    await this.task.stop();
    this.transport.close();
  }

  /** The invoice PDF the e-mail carries, made now (a failure counts as a failed attempt, retried like a refused send). */
  private async attachmentsOf(email: OutboxEmail) {
    if (email.attachedInvoiceId === null || !this.invoicePdf) return [];
    const file = await this.invoicePdf(email.accountId, email.attachedInvoiceId);
    return file ? [{ filename: file.filename, content: file.content, contentType: 'application/pdf' }] : [];
  }

  private async sendDue() {
    // First what the last run could not write, then this instance's leftover claims (a claim whose
    // answer was lost with the connection): nothing of this instance's is in flight between runs.
    await this.unrecorded.replay();
    await releaseClaimsOf(this.db, this.instance.id);
    for (;;) {
      const now = wallClockNow();
      const emails = await claimDueEmails(this.db, this.instance, now, 10, 5 * 60_000);
      if (emails.length === 0) return;
      for (const email of emails) {
        let failure: Error | undefined;
        try {
          const attachments = await this.attachmentsOf(email);
          await this.transport.sendMail({
            from: this.settings.from,
            to: email.toAddress,
            subject: email.subject,
            text: email.body,
            ...(email.htmlBody ? { html: email.htmlBody } : {}),
            attachments,
          });
        } catch (error) {
          failure = error as Error;
        }
        if (!failure) {
          const sentAt = wallClockNow();
          await this.unrecorded.write(() => markSent(this.db, email.id, sentAt));
          continue;
        }
        const attempts = email.attempts + 1;
        const retryAt =
          attempts >= MAX_EMAIL_ATTEMPTS
            ? null
            : new Date(wallClockNow().getTime() + (this.settings.retryBaseMs ?? 30_000) * 2 ** (attempts - 1));
        await this.unrecorded.write(() => markAttemptFailed(this.db, email.id, failure.message, retryAt));
      }
    }
  }
}
