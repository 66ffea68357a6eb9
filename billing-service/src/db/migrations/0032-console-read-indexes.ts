import { sql, type Kysely } from 'kysely';

/**
 * Indexes for the merchant console's reads (src/console/reads), so that each page of one account's rows is a
 * short index walk at 1,000,000 customers: payments failures first then newest (and the failures alone), webhook
 * deliveries and e-mails newest first (all, or of one status, or of one endpoint), a customer's webhook events
 * and an event's deliveries, the dunning list's overdue open invoices and Collection customers, and the
 * account's activated subscriptions and their recurring invoice lines that the revenue history reads.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create index payments_account_failures_first on payments (account_id, (status <> 'Failed'), id desc);
    create index payments_account_failed on payments (account_id, id desc) where status = 'Failed';
    create index webhook_deliveries_account on webhook_deliveries (account_id, id desc);
    create index webhook_deliveries_account_status on webhook_deliveries (account_id, status, id desc);
    create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, id desc);
    create index webhook_deliveries_event on webhook_deliveries (event_id);
    create index webhook_events_customer on webhook_events (customer_id, id desc);
    create index email_outbox_account on email_outbox (account_id, id desc);
    create index email_outbox_account_status on email_outbox (account_id, status, id desc);
    create index ledger_entries_open_invoices on ledger_entries (account_id, due_at) where entry_type = 'invoice' and open_amount > 0;
    create index customers_account_collection on customers (account_id) where customer_account_status = 'Collection';
    create index subscriptions_account_activated on subscriptions (account_id, activated_at) where activated_at is not null;
    create index invoice_charges_recurring_subscription on invoice_charges (subscription_id, start_service_date) where kind = 'Recurring';
  `.execute(db);
}
