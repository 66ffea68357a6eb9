import { renderEmail, type EmailToRender } from './email-templates.js';

/**
 * What an outbox e-mail says, kept in its row (email_outbox.content) when it is enqueued: everything
 * decided then (the language, the name it greets, the merchant's branding, the event's fields and
 * amounts, the invoice's lines, the button's link minted in that transaction). The worker writes it
 * out as text and HTML when it sends: MJML never runs inside the transaction that records a payment.
 */
export type EmailContent = EmailToRender;

/** An e-mail as the worker hands it to SMTP. */
export interface EmailMessage {
  subject: string;
  text: string;
  /** null: a plain-text e-mail. */
  html: string | null;
}

/**
 * The message of an outbox row: written from its content now, or, for a row whose text was written when it
 * was enqueued (before migration 0036, or a notice to the account itself), that text as it is.
 */
export async function messageOf(row: {
  content: Record<string, unknown> | null;
  subject: string | null;
  body: string | null;
  htmlBody: string | null;
}): Promise<EmailMessage> {
  if (row.content) {
    const { subject, text, html } = await renderEmail(row.content as unknown as EmailContent);
    return { subject, text, html };
  }
  // The table's check constraint (content, or subject and body) makes both present here.
  return { subject: row.subject ?? '', text: row.body ?? '', html: row.htmlBody };
}
