import { auditInsert } from '../audit/audit-log.js';
import { ledgerEntryInsert } from '../ledger/entries.js';
import { paymentMethodInsert } from '../payment-methods/repository.js';
import { sql, type Insertable, type QueryCreator, type Selectable, type SqlBool } from 'kysely';
import type { Queryable } from '../db/database.js';
import { isStorableId } from '../db/ids.js';
import type { InstanceLiveness } from '../db/instance-liveness.js';
import { insertJsonRows } from '../db/json-rows.js';
import { reusableQuery, reusableWriteByShape } from '../db/reusable-query.js';
import type { Database, PaymentMethodsTable, PaymentsNeedingAttentionTable, PaymentsTable } from '../db/schema.js';
import { lockedOpenInvoiceEntries, type LockedOpenInvoiceEntry } from '../ledger/allocation.js';
import { enabledEndpointsJson, rememberEnabledEndpoints } from '../outbox/webhook-repository.js';

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
export type NewPayment = Omit<Insertable<PaymentsTable>, 'id' | 'createdAt'> & {
  [K in 'ledgerEntryId' | 'paymentMethodId' | 'reference' | 'gatewayTransactionId' | 'declineCode' | 'declineMessage']: PaymentsTable[K];
};

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
    idempotencyKey: string | null,
  ) =>
    db
      .insertInto('payments')
      .values({
        accountId,
        customerId,
        ledgerEntryId,
        paymentMethodType,
        paymentMethodId,
        source,
        reference,
        amount,
        currency,
        status,
        gatewayTransactionId,
        declineCode,
        declineMessage,
        effectiveAt,
        idempotencyKey,
        // a client's key has a life (24 hours); the service's own keys have no row there and live for ever
        idempotencyKeyAt: sql<Date | null>`(select k.created_at from idempotency_keys k where k.account_id = ${accountId} and k.key = ${idempotencyKey})`,
      })
      .returning('id'),
);

/**
 * The payment made under `key` during the key's present life, if one was: since the client's key was
 * claimed (a key forgotten after 24 hours and used again starts afresh), or, for the service's own
 * keys (bulk records, the billing clock), since `otherwiseSince`.
 */
export async function findPaymentByIdempotencyKey(db: Queryable, accountId: number, key: string, otherwiseSince: Date) {
  return db
    .selectFrom('payments as p')
    .select(['p.id', 'p.status', 'p.declineCode', 'p.declineMessage'])
    .where('p.accountId', '=', accountId)
    .where('p.idempotencyKey', '=', key)
    .where((eb) =>
      eb(
        'p.createdAt',
        '>=',
        eb.fn.coalesce(
          eb.selectFrom('idempotencyKeys as k').select('k.createdAt').where('k.accountId', '=', accountId).where('k.key', '=', key),
          eb.val(otherwiseSince),
        ),
      ),
    )
    .orderBy('p.id', 'desc')
    .executeTakeFirst();
}

/** Whether a payment records the gateway's charge `transactionId` (a commit whose answer was lost may have made one). */
export async function isChargeRecorded(db: Queryable, accountId: number, transactionId: string): Promise<boolean> {
  return (await findPaymentOfCharge(db, accountId, transactionId)) !== undefined;
}

/** The payment that records the gateway's charge `transactionId`, if one does. */
export async function findPaymentOfCharge(db: Queryable, accountId: number, transactionId: string): Promise<{ id: number } | undefined> {
  return db
    .selectFrom('payments')
    .select('id')
    .where('accountId', '=', accountId)
    .where('gatewayTransactionId', '=', transactionId)
    .executeTakeFirst();
}

/** Whether an insert failed because a payment under the same idempotency key (in the key's life) exists (index payments_idempotency_once). */
export function isDuplicateKeyedPayment(error: unknown): boolean {
  const e = error as { code?: unknown; constraint?: unknown; message?: unknown } | null;
  return (
    e?.code === '23505' &&
    (e.constraint === 'payments_idempotency_once' || (typeof e.message === 'string' && e.message.includes('payments_idempotency_once')))
  );
}

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
    p.idempotencyKey ?? null,
  );
  if (!row) throw new Error('an insert returning its row answers that row');
  return row.id;
}

/** The rows of a collection's new card with its payment (insertCardWithPayment). */
type CardWithPaymentRows = {
  card: Insertable<PaymentMethodsTable> & { isDefault: boolean; modifiedAt: Date };
  payment: { source: string; amount: string; currency: string; gatewayTransactionId: string };
  audit: { actor: string; source: string; cardChanges: string; paymentChanges: string };
};

// Compiled once per shape of the card's values (see reusableWriteByShape).
const cardWithPaymentStatement = reusableWriteByShape((db: Queryable, rows: CardWithPaymentRows) => {
  const { accountId, customerId, modifiedAt: now } = rows.card;
  const { source, amount, currency, gatewayTransactionId } = rows.payment;
  const { actor, source: auditSource, cardChanges, paymentChanges } = rows.audit;
  // the CTEs below (CamelCasePlugin writes newCard as new_card)
  const cardId = sql<number>`(select id from new_card)`;
  const entryId = sql<number>`(select id from new_entry)`;
  const paymentId = sql<number>`(select id from new_payment)`;
  return db
    .with('newCard', (qc) => paymentMethodInsert(qc as unknown as QueryCreator<Database>, rows.card).returningAll())
    .with('newEntry', (qc) =>
      ledgerEntryInsert(qc as unknown as QueryCreator<Database>, {
        accountId,
        customerId,
        entryType: 'payment',
        amount,
        invoiceId: null,
        dueAt: null,
        effectiveAt: now,
        openedAt: now,
        description: null,
      }).returning('id'),
    )
    .with('newPayment', (qc) =>
      qc
        .insertInto('payments')
        .values({
          accountId,
          customerId,
          ledgerEntryId: entryId,
          paymentMethodType: 'CreditCard',
          paymentMethodId: cardId,
          source,
          reference: null,
          amount,
          currency,
          status: 'Succeeded',
          gatewayTransactionId,
          declineCode: null,
          declineMessage: null,
          effectiveAt: now,
        })
        .returning('id'),
    )
    .with('newAudit', (qc) =>
      auditInsert(qc as unknown as QueryCreator<Database>, [
        { accountId, actor, source: auditSource, entityType: 'PaymentMethod', entityId: cardId, action: 'create', changes: cardChanges },
        { accountId, actor, source: auditSource, entityType: 'Payment', entityId: paymentId, action: 'create', changes: paymentChanges },
      ]),
    )
    .selectFrom('newCard')
    .selectAll('newCard')
    .select([
      paymentId.as('paymentId'),
      entryId.as('ledgerEntryId'),
      // what the rest of the transaction needs, read here rather than in two statements more
      lockedOpenInvoiceEntries(accountId, customerId).as('openInvoices'),
      enabledEndpointsJson(accountId).as('webhookEndpoints'),
    ]);
});

/**
 * Stores a validated card, the ledger entry and the succeeded payment of its first charge, and the
 * audit entries of both, in one statement (the caller's transaction holds the customer's lock, taken
 * in an earlier statement). The same statement locks the customer's open invoice entries for the
 * payment's allocation and reads the account's webhook endpoints for the transaction's events.
 */
export async function insertCardWithPayment(
  db: Queryable,
  card: CardWithPaymentRows['card'],
  payment: CardWithPaymentRows['payment'],
  /** Who made the change and the changes of each row as audit-log's auditEntry gives them (the entity ids are the new rows'). */
  audit: CardWithPaymentRows['audit'],
): Promise<{ card: Selectable<PaymentMethodsTable>; paymentId: number; ledgerEntryId: number; openInvoices: LockedOpenInvoiceEntry[] }> {
  const [row] = await cardWithPaymentStatement(db, { card, payment, audit });
  if (!row) throw new Error('the card and payment statement answers the rows it inserted');
  const { paymentId, ledgerEntryId, openInvoices, webhookEndpoints, ...stored } = row;
  rememberEnabledEndpoints(db, card.accountId, webhookEndpoints);
  return { card: stored, paymentId: Number(paymentId), ledgerEntryId: Number(ledgerEntryId), openInvoices };
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

/**
 * Whose allocation reservations an allocation check counts: the live ones (their holder's heartbeat
 * runs, held_until not past; `instance` judges), except those of the charge `ownChargeKey` (its own,
 * or an earlier run's under the same key).
 */
export interface ReservationsCounted {
  instance: InstanceLiveness;
  ownChargeKey: string | null;
}

/** SQL: true for a reservation (alias `r`) that still holds its amount and is not `ownChargeKey`'s. */
function liveReservation(counted: ReservationsCounted) {
  const notOwn = counted.ownChargeKey === null ? sql`` : sql`and r.charge_key <> ${counted.ownChargeKey}`;
  return sql<SqlBool>`(r.held_until > now() and not ${counted.instance.holderGone('r.held_by')} ${notOwn})`;
}

/**
 * A customer's posted invoices with their ledger entries, what is still open on each, and how much of
 * that live allocation reservations of other charges hold (`reserved`).
 */
export async function findOpenInvoiceEntries(db: Queryable, customerId: number, invoiceIds: number[], counted: ReservationsCounted) {
  // An id no integer column can hold names no invoice (and must not reach the database as one).
  const storable = invoiceIds.filter(isStorableId);
  if (storable.length === 0) return [];
  return (
    db
      .selectFrom('ledgerEntries as e')
      .select(['e.id', 'e.invoiceId', 'e.openAmount'])
      // a Void or WrittenOff invoice owes nothing and takes no payment (issue 40)
      .select(sql<string>`(select i.status from invoices i where i.id = e.invoice_id)`.as('invoiceStatus'))
      .select(
        sql<string>`coalesce((select sum(r.amount) from allocation_reservations r where r.invoice_entry_id = e.id and ${liveReservation(counted)}), 0)::text`.as(
          'reserved',
        ),
      )
      .where('e.customerId', '=', customerId)
      .where('e.entryType', '=', 'invoice')
      .where('e.invoiceId', 'in', storable)
      .execute()
  );
}

/**
 * Holds `parts` of the customer's invoices for the charge `chargeKey` until `heldForMs` from now (the
 * database's clock), in the name of `counted.instance`. Replaces the charge's earlier reservation (a
 * retry under its key) and drops the customer's reservations that no longer hold. The caller holds
 * the customer's lock and has checked the parts against what is open and reserved.
 */
export async function reserveAllocations(
  db: Queryable,
  counted: ReservationsCounted & { ownChargeKey: string },
  reservation: { accountId: number; customerId: number; heldForMs: number; parts: Array<{ invoiceEntryId: number; amount: string }> },
): Promise<void> {
  const { accountId, customerId, heldForMs, parts } = reservation;
  await db
    .deleteFrom('allocationReservations as r')
    .where('r.customerId', '=', customerId)
    .where(
      sql<SqlBool>`(r.charge_key = ${counted.ownChargeKey} or not ${liveReservation({ instance: counted.instance, ownChargeKey: null })})`,
    )
    .execute();
  if (parts.length === 0) return;
  const heldUntil = sql<Date>`now() + ${heldForMs} * interval '1 millisecond'`;
  await db
    .insertInto('allocationReservations')
    .values(
      parts.map((p) => ({
        accountId,
        customerId,
        chargeKey: counted.ownChargeKey,
        invoiceEntryId: p.invoiceEntryId,
        amount: p.amount,
        heldBy: counted.instance.id,
        heldUntil,
      })),
    )
    .execute();
}

/** Lets go of the reservation of the charge `chargeKey` (its outcome is recorded, or it was never made). */
export async function releaseAllocations(db: Queryable, chargeKey: string): Promise<void> {
  await db.deleteFrom('allocationReservations').where('chargeKey', '=', chargeKey).execute();
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

/** A charge the gateway made that was neither recorded nor paid back (a failed compensation): an operator's to settle. */
export async function insertPaymentNeedingAttention(db: Queryable, row: Insertable<PaymentsNeedingAttentionTable>) {
  return db.insertInto('paymentsNeedingAttention').values(row).returningAll().executeTakeFirstOrThrow();
}

/** The refunds of these payments, oldest first (for the payment's own answer: a read of the refunds table, written by refunds/). */
export async function findRefundsOfPayments(db: Queryable, paymentIds: number[]) {
  if (paymentIds.length === 0) return [];
  return db
    .selectFrom('refunds')
    .select(['id', 'paymentId', 'amount', 'status', 'effectiveAt'])
    .where('paymentId', 'in', paymentIds)
    .orderBy('id')
    .execute();
}

/**
 * Ends the customer's payments still waiting for authentication (at most one): a later payment was recorded,
 * so that charge will never be made. They become Failed, keeping their `authentication_required` code.
 */
export async function closeAwaitingPayments(db: Queryable, customerId: number): Promise<number[]> {
  const rows = await db
    .updateTable('payments')
    .set({ status: 'Failed', declineMessage: 'replaced by a later payment before the customer authenticated this one' })
    .where('customerId', '=', customerId)
    .where('status', '=', 'RequiresAction')
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/** The customer's payment waiting for authentication, locked (the caller's transaction completes or closes it). */
export async function lockAwaitingPayment(db: Queryable, accountId: number, paymentId: number) {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('id', '=', paymentId)
    .where('accountId', '=', accountId)
    .where('status', '=', 'RequiresAction')
    .forUpdate()
    .executeTakeFirst();
}

/** The payment waiting for the customer's authentication, if one does (the portal offers it). */
export async function findAwaitingPayment(db: Queryable, customerId: number) {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('customerId', '=', customerId)
    .where('status', '=', 'RequiresAction')
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

/** An awaiting payment, authenticated and charged: Succeeded with its ledger entry and the processor's transaction. */
export async function markAwaitingPaymentSucceeded(
  db: Queryable,
  paymentId: number,
  done: { ledgerEntryId: number; gatewayTransactionId: string; effectiveAt: Date },
): Promise<void> {
  await db
    .updateTable('payments')
    .set({ status: 'Succeeded', declineCode: null, declineMessage: null, ...done })
    .where('id', '=', paymentId)
    .where('status', '=', 'RequiresAction')
    .executeTakeFirstOrThrow();
}

/** An awaiting payment whose charge the bank declined after the customer authenticated it. */
export async function markAwaitingPaymentDeclined(db: Queryable, paymentId: number, declined: { code: string; message: string }) {
  await db
    .updateTable('payments')
    .set({ status: 'Failed', declineCode: declined.code, declineMessage: declined.message })
    .where('id', '=', paymentId)
    .where('status', '=', 'RequiresAction')
    .execute();
}
