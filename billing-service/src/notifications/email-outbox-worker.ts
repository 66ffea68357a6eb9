import { wallClockNow } from '../clock/account-clock.js';
import type { FastifyBaseLogger } from 'fastify';
import nodemailer, { type Transporter } from 'nodemailer';
import { PeriodicTask } from '../tasks/periodic-task.js';
import type { Db } from '../db/database.js';
import { InstanceLiveness } from '../db/instance-liveness.js';
import { messageOf, type EmailMessage } from './email-content.js';
import {
  claimDueEmails,
  holdClaim,
  markAttemptFailed,
  markSent,
  releaseClaimsOf,
  type ClaimedEmail,
  type OutboxEmail,
} from './outbox-repository.js';
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
/** How long a claim is this worker's before another may take it over (renewed right before each send). */
const LEASE_MS = 5 * 60_000;

/** Makes the PDF of an invoice an e-mail carries (undefined: the invoice is gone). */
export type InvoicePdfMaker = (accountId: number, invoiceId: number) => Promise<{ filename: string; content: Buffer } | undefined>;

type PdfAttachment = { filename: string; content: Buffer; contentType: string };

/** Sends the outbox's e-mails over SMTP, a few at a time, retrying failures with growing delays. */
export class EmailOutboxWorker {
  private readonly transport: Transporter;
  /** Its state and run counts are watched by the readiness check and the metrics. */
  readonly task: PeriodicTask;
  private readonly unrecorded = new UnrecordedWrites();

  constructor(
    private readonly db: Db,
    private readonly settings: EmailSettings,
    private readonly log: FastifyBaseLogger,
    private readonly invoicePdf?: InvoicePdfMaker,
    /** This process's claims' holder (unset: a private one that never beats, so claims lapse only by their lease). */
    private readonly instance: InstanceLiveness = new InstanceLiveness(db, 'worker'),
  ) {
    this.transport = nodemailer.createTransport(settings.smtpUrl);
    this.task = new PeriodicTask('e-mail outbox', settings.pollMs ?? 2_000, () => this.runDue().then(() => undefined), log);
  }

  start() {
    this.task.start();
  }

  async stop() {
    await this.task.stop();
    this.transport.close();
  }

  /** The invoice PDF the e-mail carries, made now (a failure counts as a failed attempt, retried like a refused send). */
  private async attachmentsOf(email: OutboxEmail): Promise<PdfAttachment[]> {
    if (email.attachedInvoiceId === null || !this.invoicePdf) return [];
    const file = await this.invoicePdf(email.accountId, email.attachedInvoiceId);
    return file ? [{ filename: file.filename, content: file.content, contentType: 'application/pdf' }] : [];
  }

  /**
   * Sends what is due until nothing is; `now` fixes the clock of the claims and their leases (tests).
   * Returns how many e-mails it claimed. Between runs nothing of this instance's is in flight.
   */
  async runDue(now?: Date): Promise<number> {
    // First what the last run could not write, then this instance's leftover claims (a claim whose
    // answer was lost with the connection).
    await this.unrecorded.replay();
    await releaseClaimsOf(this.db, this.instance.id);
    const clock = () => now ?? wallClockNow();
    let claimed = 0;
    for (;;) {
      const emails = await claimDueEmails(this.db, this.instance, clock(), 10, LEASE_MS);
      if (emails.length === 0) return claimed;
      claimed += emails.length;
      for (const email of emails) await this.send(email, clock);
    }
  }

  /**
   * One claimed e-mail: written out (its content rendered now), checked to be still this claim's right
   * before the SMTP send, sent, and its outcome recorded; every write is fenced by the claim's token,
   * so a holder that was paused while another instance took the e-mail over sends and records nothing.
   */
  private async send(email: ClaimedEmail, clock: () => Date) {
    let failure: Error | undefined;
    let prepared: [EmailMessage, PdfAttachment[]] | undefined;
    try {
      prepared = await Promise.all([messageOf(email), this.attachmentsOf(email)]);
    } catch (error) {
      failure = error as Error;
    }
    if (prepared) {
      const [message, attachments] = prepared;
      // (a database error here ends the run, as any: the claim is released by the next one)
      if (!(await holdClaim(this.db, this.instance, email, new Date(clock().getTime() + LEASE_MS)))) {
        this.log.warn({ emailId: email.id }, 'e-mail outbox: another instance took this e-mail over; left to it');
        return;
      }
      try {
        await this.transport.sendMail({
          from: this.settings.from,
          to: email.toAddress,
          subject: message.subject,
          text: message.text,
          ...(message.html ? { html: message.html } : {}),
          attachments,
        });
      } catch (error) {
        failure = error as Error;
      }
    }
    if (!failure) {
      const sentAt = wallClockNow();
      await this.unrecorded.write(async () => {
        // (paused between the re-check and the server's answer: the new holder may send it too)
        if (!(await markSent(this.db, email, sentAt))) this.log.warn({ emailId: email.id }, 'e-mail outbox: sent after losing the claim');
      });
      return;
    }
    const attempts = email.attempts + 1;
    const retryAt =
      attempts >= MAX_EMAIL_ATTEMPTS
        ? null
        : new Date(wallClockNow().getTime() + (this.settings.retryBaseMs ?? 30_000) * 2 ** (attempts - 1));
    await this.unrecorded.write(() => markAttemptFailed(this.db, email, failure.message, retryAt));
  }
}
