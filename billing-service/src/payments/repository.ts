import { sql, type Insertable, type Selectable } from 'kysely';
import type { Queryable } from '../db/database.js';
import { isStorableId } from '../db/ids.js';
import { insertJsonRows } from '../db/json-rows.js';
import { reusableQuery } from '../db/reusable-query.js';
import type { PaymentsTable } from '../db/schema.js';

export type PaymentRow = Selectable<PaymentsTable> & { unallocated: string | null };

export function selectPayments(db: Queryable, accountId: number) {
  return db
    .selectFrom('payments')
    .leftJoin('ledgerEntries', 'ledgerEntries.id', 'payments.ledgerEntryId')
    .selectAll('payments')
    .select(sql<string | null>`ledger_entries.open_amount`.as('unallocated'))
    .where('payments.accountId', '=', accountId);
}

export async function findPayment(db: Queryable, accountId: number, id: number): Promise<PaymentRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return selectPayments(db, accountId).where('payments.id', '=', id).executeTakeFirst();
}

/** Every column a payment is created with (all of them but the generated ones). */
export type NewPayment = Omit<Insertable<PaymentsTable>, 'id' | 'createdAt'> & { [K in 'ledgerEntryId' | 'paymentMethodId' | 'reference' | 'gatewayTransactionId' | 'declineCode' | 'declineMessage']: PaymentsTable[K] };

// On every payment: compiled once (see reusableQuery; its arguments must be plain values, hence one per column).
const insertPaymentRow = reusableQuery(
  (
    db: Queryable,
    accountId: NewPayment['accountId'],
    customerId: NewPayment['customerId'],
    ledgerEntryId: NewPayment['ledgerEntryId'],
    paymentMethodType: NewPayment['paymentMethodType'],
    paymentMethodId: NewPayment['paymentMethodId'],
    source: NewPayment['source'],
    reference: NewPayment['reference'],
    amount: NewPayment['amount'],
    currency: NewPayment['currency'],
    status: NewPayment['status'],
    gatewayTransactionId: NewPayment['gatewayTransactionId'],
    declineCode: NewPayment['declineCode'],
    declineMessage: NewPayment['declineMessage'],
    effectiveAt: NewPayment['effectiveAt'],
  ) =>
    db
      .insertInto('payments')
      .values({ accountId, customerId, ledgerEntryId, paymentMethodType, paymentMethodId, source, reference,
        amount, currency, status, gatewayTransactionId, declineCode, declineMessage, effectiveAt })
      .returning('id'),
);

export async function insertPayment(db: Queryable, p: NewPayment): Promise<number> {
  const [row] = await insertPaymentRow(
    db,
    p.accountId,
    p.customerId,
    p.ledgerEntryId,
    p.paymentMethodType,
    p.paymentMethodId,
    p.source,
    p.reference,
    p.amount,
    p.currency,
    p.status,
    p.gatewayTransactionId,
    p.declineCode,
    p.declineMessage,
    p.effectiveAt,
  );
  return row!.id;
}

/** Where the payments' money went: their allocations with each invoice's number, total and balance. */
export async function findAllocations(db: Queryable, ledgerEntryIds: number[]) {
  if (ledgerEntryIds.length === 0) return [];
  return db
    .selectFrom('ledgerAllocations')
    .innerJoin('ledgerEntries as invoiceEntry', 'invoiceEntry.id', 'ledgerAllocations.invoiceEntryId')
    .innerJoin('invoices', 'invoices.id', 'invoiceEntry.invoiceId')
    .select([
      'ledgerAllocations.sourceEntryId',
      'ledgerAllocations.amount',
      'invoices.id as invoiceId',
      'invoices.invoiceNumber',
      'invoices.total as invoiceTotal',
      'invoiceEntry.openAmount as outstandingBalance',
    ])
    .where('ledgerAllocations.sourceEntryId', 'in', ledgerEntryIds)
    .orderBy('ledgerAllocations.id')
    .execute();
}

/** A customer's posted invoices with their ledger entries and what is still open on each. */
export async function findOpenInvoiceEntries(db: Queryable, customerId: number, invoiceIds: number[]) {
  // An id no integer column can hold names no invoice (and must not reach the database as one).
  const storable = invoiceIds.filter(isStorableId);
  if (storable.length === 0) return [];
  return db
    .selectFrom('ledgerEntries')
    .select(['id', 'invoiceId', 'openAmount'])
    .where('customerId', '=', customerId)
    .where('entryType', '=', 'invoice')
    .where('invoiceId', 'in', storable)
    .execute();
}

/** Several payments in one statement (a batch); their ids in the order given. */
export function insertPayments(db: Queryable, payments: NewPayment[]): Promise<number[]> {
  const rows = payments.map((p) => ({
    account_id: p.accountId,
    customer_id: p.customerId,
    ledger_entry_id: p.ledgerEntryId,
    payment_method_type: p.paymentMethodType,
    payment_method_id: p.paymentMethodId,
    source: p.source,
    reference: p.reference,
    amount: String(p.amount),
    currency: p.currency,
    status: p.status,
    gateway_transaction_id: p.gatewayTransactionId,
    decline_code: p.declineCode,
    decline_message: p.declineMessage,
    effective_at: p.effectiveAt,
  }));
  return insertJsonRows(db, 'payments', PAYMENT_COLUMNS, rows, true);
}

const PAYMENT_COLUMNS =
  'account_id integer, customer_id integer, ledger_entry_id bigint, payment_method_type text, payment_method_id integer, source text, reference text, ' +
  'amount numeric, currency text, status text, gateway_transaction_id text, decline_code text, decline_message text, effective_at timestamptz';
