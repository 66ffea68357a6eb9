import type { Catalog } from '../catalog/schema.js';
import type { Queryable } from '../db/database.js';
import { isEmailEnabled } from '../email-preferences/enabled.js';
import { renderEmail, type NotificationEvent } from './email-templates.js';
import { insertOutboxEmail } from './outbox-repository.js';

export interface NotifiedCustomer {
  id: number;
  accountId: number;
  firstName: string | null;
  lastName: string | null;
  companyName: string | null;
  primaryEmail: string | null;
}

/**
 * Puts the e-mail of an event in the outbox, in the caller's transaction: it
 * commits with the event or not at all. Nothing is written when e-mail is off
 * (no SMTP server configured), the customer has no address, or the customer's
 * preference for the type (else the account default) says no.
 */
export class Notifier {
  constructor(
    private readonly catalog: Catalog,
    readonly enabled: boolean,
  ) {}

  async enqueue(trx: Queryable, customer: NotifiedCustomer, event: NotificationEvent): Promise<void> {
    const to = customer.primaryEmail?.split(/[,;]/)[0]?.trim();
    if (!this.enabled || !to) return;
    if (!(await isEmailEnabled(trx, this.catalog, customer.id, event.type))) return;
    const name = [customer.firstName, customer.lastName].filter(Boolean).join(' ') || customer.companyName || 'customer';
    const { subject, body } = renderEmail(this.catalog.account.name, name, event);
    const attachedInvoiceId = event.type === 'InvoicePost' ? event.invoiceId : null;
    await insertOutboxEmail(trx, { accountId: customer.accountId, customerId: customer.id, emailType: event.type, toAddress: to, subject, body, attachedInvoiceId });
  }
}
