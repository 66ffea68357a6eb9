import type { Catalog } from '../catalog/schema.js';
import type { Queryable } from '../db/database.js';
import { isEmailEnabled } from '../email-preferences/enabled.js';
import type { CustomerNotifier, NotificationEvent, NotifiedCustomer } from '../outbox/notifications.js';
import { renderEmail } from './email-templates.js';
import { insertOutboxEmail, insertOutboxEmails } from './outbox-repository.js';

export type { NotifiedCustomer };

/**
 * Puts the e-mail of an event in the outbox, in the caller's transaction: it
 * commits with the event or not at all. Nothing is written when e-mail is off
 * (no SMTP server configured), the customer has no address, or the customer's
 * preference for the type (else the account default) says no.
 */
export class Notifier implements CustomerNotifier {
  constructor(
    private readonly catalog: Catalog,
    readonly enabled: boolean,
  ) {}

  async enqueue(trx: Queryable, customer: NotifiedCustomer, event: NotificationEvent): Promise<void> {
    const email = await this.outboxEmail(trx, customer, event, new Map());
    if (email) await insertOutboxEmail(trx, email);
  }

  /** Several e-mails, each as enqueue decides, in one insert (a batch of payments); a preference is read once per customer and type. */
  async enqueueMany(trx: Queryable, emails: Array<{ customer: NotifiedCustomer; event: NotificationEvent }>): Promise<void> {
    if (!this.enabled) return;
    const preferences = new Map<string, Promise<boolean>>();
    const rows = [];
    for (const { customer, event } of emails) {
      const email = await this.outboxEmail(trx, customer, event, preferences);
      if (email) rows.push(email);
    }
    await insertOutboxEmails(trx, rows);
  }

  /**
   * An e-mail the customer asked for (a portal sign-in link), already written: sent whatever the
   * preferences say (it answers the customer's own request), when e-mail is on and there is an address.
   */
  async enqueueRequested(trx: Queryable, customer: NotifiedCustomer, email: { emailType: string; subject: string; body: string }): Promise<void> {
    const to = customer.primaryEmail?.split(/[,;]/)[0]?.trim();
    if (!this.enabled || !to) return;
    await insertOutboxEmail(trx, { accountId: customer.accountId, customerId: customer.id, emailType: email.emailType, toAddress: to, subject: email.subject, body: email.body, attachedInvoiceId: null });
  }

  private async outboxEmail(trx: Queryable, customer: NotifiedCustomer, event: NotificationEvent, preferences: Map<string, Promise<boolean>>) {
    const to = customer.primaryEmail?.split(/[,;]/)[0]?.trim();
    if (!this.enabled || !to) return null;
    const key = `${customer.id} ${event.type}`;
    if (!preferences.has(key)) preferences.set(key, isEmailEnabled(trx, this.catalog, customer.id, event.type));
    if (!(await preferences.get(key))) return null;
    const name = [customer.firstName, customer.lastName].filter(Boolean).join(' ') || customer.companyName || 'customer';
    const { subject, body } = renderEmail(this.catalog.account.name, name, event);
    const attachedInvoiceId = event.type === 'InvoicePost' ? event.invoiceId : null;
    return { accountId: customer.accountId, customerId: customer.id, emailType: event.type, toAddress: to, subject, body, attachedInvoiceId };
  }
}
