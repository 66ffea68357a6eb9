import type { CustomerLanguage } from '../catalog/schema.js';
import type { Queryable } from '../db/database.js';

/** The task an e-mail's button opens: the card update, paying what is open, the list of invoices, confirming a payment with the bank. */
export type EmailActionFlow = 'paymentMethodUpdate' | 'payInvoices' | 'invoices' | 'authenticatePayment';

/**
 * Where an e-mail's button leads (the customer portal, when one is wired in). Asked when the
 * e-mail is enqueued (the link is kept in its outbox row), inside the transaction of the event it tells of: `db` is that transaction,
 * so a link the implementation stores commits with the e-mail or not at all. Use `db`, not
 * another connection: the transaction may hold the customer's row lock, and a second connection
 * waiting on it would wait forever. null: no link, and the e-mail has no button.
 */
export interface EmailActionLinks {
  linkFor(
    input: { accountId: number; customerId: number; flow: EmailActionFlow; language: CustomerLanguage },
    db: Queryable,
  ): Promise<string | null>;
}
