import { merchantBranding } from '../catalog/branding.js';
import { CUSTOMER_LANGUAGES, type Catalog, type CustomerLanguage } from '../catalog/schema.js';
import type { Queryable } from '../db/database.js';
import { isEmailEnabled } from '../email-preferences/enabled.js';
import { findInvoice, findInvoiceLines } from '../invoices/repository.js';
import type { AccountNotice, CustomerNotifier, NotificationEvent, NotifiedCustomer, RequestedEmail } from '../outbox/notifications.js';
import type { EmailActionLinks } from './email-action-links.js';
import type { EmailContent } from './email-content.js';
import { ACTION_FLOWS, type EmailBranding, type InvoiceLines } from './email-templates.js';
import { insertOutboxEmail, insertOutboxEmails, type NewOutboxEmail } from './outbox-repository.js';

export type { NotifiedCustomer };

/**
 * Puts the e-mail of an event in the outbox, in the caller's transaction: it
 * commits with the event or not at all. Nothing is written when e-mail is off
 * (no SMTP server configured), the customer has no address, or the customer's
 * preference for the type (else the account default) says no. What the e-mail
 * says is decided here (the customer's language and name, the event's fields, the
 * invoice's lines, the link of its button, asked of `links` in the same
 * transaction) and kept in the row; the worker writes the text and HTML when it
 * sends, outside the transaction.
 */
export class Notifier implements CustomerNotifier {
  private readonly branding: EmailBranding;

  constructor(
    private readonly catalog: Catalog,
    readonly enabled: boolean,
    private readonly links?: EmailActionLinks,
  ) {
    this.branding = merchantBranding(catalog);
  }

  async enqueue(trx: Queryable, customer: NotifiedCustomer, event: NotificationEvent): Promise<void> {
    const email = await this.outboxEmail(trx, customer, event, new Map());
    if (email) await insertOutboxEmail(trx, email);
  }

  /** Several e-mails, each as enqueue decides, in one insert (a batch of payments); a preference is read once per customer and type. */
  async enqueueMany(trx: Queryable, emails: Array<{ customer: NotifiedCustomer; event: NotificationEvent }>): Promise<void> {
    if (!this.enabled) return;
    const preferences = new Map<string, Promise<boolean>>();
    const rows: NewOutboxEmail[] = [];
    for (const { customer, event } of emails) {
      const email = await this.outboxEmail(trx, customer, event, preferences);
      if (email) rows.push(email);
    }
    await insertOutboxEmails(trx, rows);
  }

  /**
   * An e-mail the customer asked for (a portal sign-in link): sent whatever the preferences say (it answers
   * the customer's own request), when e-mail is on and there is an address; written as the others are, in the
   * customer's language, else the language of the page it was asked from, else the account's default.
   */
  async enqueueRequested(
    trx: Queryable,
    customer: NotifiedCustomer,
    email: RequestedEmail,
    fallbackLanguage?: string | null,
  ): Promise<void> {
    // A new address's confirmation goes to that address: the e-mail proves it is the customer's.
    const to = email.type === 'EmailChangeConfirmation' ? email.newEmail : customer.primaryEmail?.split(/[,;]/)[0]?.trim();
    if (!this.enabled || !to) return;
    const language = this.languageOf({ language: customer.language ?? fallbackLanguage ?? null });
    await insertOutboxEmail(trx, {
      accountId: customer.accountId,
      customerId: customer.id,
      emailType: email.type,
      toAddress: to,
      content: { branding: this.branding, language, customerName: nameOf(customer), event: email },
      attachedInvoiceId: null,
    });
  }

  async enqueueAccountNotice(trx: Queryable, notice: AccountNotice): Promise<void> {
    const to = this.catalog.account.email;
    if (!this.enabled || !to) return;
    await insertOutboxEmail(trx, { ...notice, customerId: null, toAddress: to });
  }

  /** The language a customer's e-mails are written in. */
  languageOf(customer: Pick<NotifiedCustomer, 'language'>): CustomerLanguage {
    const language = customer.language as CustomerLanguage | null;
    return language && CUSTOMER_LANGUAGES.includes(language) ? language : this.catalog.emails.defaultLanguage;
  }

  private async outboxEmail(
    trx: Queryable,
    customer: NotifiedCustomer,
    event: NotificationEvent,
    preferences: Map<string, Promise<boolean>>,
  ) {
    const to = customer.primaryEmail?.split(/[,;]/)[0]?.trim();
    if (!this.enabled || !to) return null;
    const key = `${customer.id} ${event.type}`;
    if (!preferences.has(key)) preferences.set(key, isEmailEnabled(trx, this.catalog, customer.id, event.type));
    if (!(await preferences.get(key))) return null;
    const language = this.languageOf(customer);
    const flow = ACTION_FLOWS[event.type];
    const actionUrl =
      flow && this.links ? await this.links.linkFor({ accountId: customer.accountId, customerId: customer.id, flow, language }, trx) : null;
    const invoice = event.type === 'InvoicePost' ? await invoiceLines(trx, customer.accountId, event.invoiceId) : undefined;
    // What the e-mail says, as decided now; the worker writes it out when it sends (email-content.ts).
    const content: EmailContent = { branding: this.branding, language, customerName: nameOf(customer), event, invoice, actionUrl };
    return {
      accountId: customer.accountId,
      customerId: customer.id,
      emailType: event.type,
      toAddress: to,
      content,
      attachedInvoiceId: event.type === 'InvoicePost' ? event.invoiceId : null,
    };
  }
}

/** The name an e-mail greets the customer by; null: greeted without one. */
function nameOf(customer: NotifiedCustomer): string | null {
  return [customer.firstName, customer.lastName].filter(Boolean).join(' ') || customer.companyName || null;
}

/** The lines and totals of an invoice just posted in this transaction, as its e-mail lists them. */
async function invoiceLines(trx: Queryable, accountId: number, invoiceId: number): Promise<InvoiceLines | undefined> {
  const invoice = await findInvoice(trx, accountId, invoiceId);
  if (!invoice) return undefined;
  const { charges, taxes } = await findInvoiceLines(trx, [invoiceId]);
  return {
    currency: invoice.currency,
    lines: charges.map((c) => ({ name: c.name, quantity: String(c.quantity), amount: String(c.amount) })),
    subtotal: String(invoice.subtotal),
    totalDiscount: String(invoice.totalDiscount),
    taxes: taxes.map((t) => ({ name: t.name, rate: String(t.rate), amount: String(t.amount) })),
    total: String(invoice.total),
  };
}
