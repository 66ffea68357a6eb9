import { sql } from 'kysely';
import type { Queryable } from '../db/database.js';
import { money, type Money } from '../money/money.js';
import { recordAllocation } from './allocation.js';
import { addLedgerEntry } from './entries.js';

export interface PaidBack {
  refundEntryId: number;
  /** Invoices the payment had paid that owe this much again (newest first). */
  reopened: Array<{ invoiceId: number; amount: Money }>;
}

/**
 * Pays `amount` of a payment back, in the caller's transaction (which holds the customer's lock).
 * It comes first out of what the payment still holds unallocated; beyond that the payment's
 * allocations to invoices are undone, newest invoice first (latest due date, then latest entry), so
 * those invoices are open again by that much. Then a `refund` entry is added and the payment's money
 * allocated to it, so every entry's amount − open stays the sum of its allocations. Asking for more
 * than the payment holds is a bug (the caller checks under the payment's lock): it throws.
 */
export async function payBackPayment(
  db: Queryable,
  refund: {
    accountId: number;
    customerId: number;
    paymentEntryId: number;
    amount: Money;
    effectiveAt: Date;
    description: string | null;
    /** `dispute`: the processor took the money back (a chargeback) rather than the merchant paying it back. */
    entryType?: 'refund' | 'dispute';
  },
): Promise<PaidBack> {
  const { accountId, paymentEntryId } = refund;
  const payment = await db
    .selectFrom('ledgerEntries')
    .select('openAmount')
    .where('id', '=', paymentEntryId)
    .where('accountId', '=', accountId)
    .where('entryType', '=', 'payment')
    .forUpdate()
    .executeTakeFirst();
  if (!payment) throw new Error(`ledger: no payment entry ${paymentEntryId}`);
  let short = refund.amount.minus(payment.openAmount);
  const reopened = new Map<number, Money>();
  if (short.greaterThan(0)) {
    const allocations = await db
      .selectFrom('ledgerAllocations')
      .innerJoin('ledgerEntries as invoiceEntry', 'invoiceEntry.id', 'ledgerAllocations.invoiceEntryId')
      .select(['ledgerAllocations.id', 'ledgerAllocations.amount', 'ledgerAllocations.invoiceEntryId', 'invoiceEntry.invoiceId'])
      .where('ledgerAllocations.sourceEntryId', '=', paymentEntryId)
      .where('invoiceEntry.entryType', '=', 'invoice')
      .orderBy('invoiceEntry.dueAt', 'desc')
      .orderBy('invoiceEntry.id', 'desc')
      .orderBy('ledgerAllocations.id', 'desc')
      .forUpdate()
      .execute();
    for (const allocation of allocations) {
      if (!short.greaterThan(0)) break;
      const allocated = money(allocation.amount);
      const take = allocated.lessThan(short) ? allocated : short;
      await undoAllocation(db, accountId, allocation.id, paymentEntryId, allocation.invoiceEntryId, take, refund.effectiveAt);
      const invoiceId = allocation.invoiceId;
      if (invoiceId !== null) reopened.set(invoiceId, (reopened.get(invoiceId) ?? money(0)).plus(take));
      short = short.minus(take);
    }
    if (short.greaterThan(0))
      throw new Error(
        `ledger: payment entry ${paymentEntryId} holds ${short.toString()} less than the refund of ${refund.amount.toString()}`,
      );
  }
  await writeOffAgain(db, accountId, reopened, refund.effectiveAt);
  const refundEntryId = await addLedgerEntry(db, {
    accountId,
    customerId: refund.customerId,
    entryType: refund.entryType ?? 'refund',
    amount: refund.amount,
    effectiveAt: refund.effectiveAt,
    description: refund.description,
  });
  await recordAllocation(db, accountId, paymentEntryId, refundEntryId, refund.amount, refund.effectiveAt);
  return { refundEntryId, reopened: [...reopened].map(([invoiceId, amount]) => ({ invoiceId, amount })) };
}

/**
 * Takes `amount` of an allocation back: the source and the invoice each hold that much open again; one
 * that held nothing open is reopened `at` (an overdue invoice reopened puts the customer in PoorStanding then).
 */
export async function undoAllocation(
  db: Queryable,
  accountId: number,
  allocationId: number,
  sourceEntryId: number,
  invoiceEntryId: number,
  amount: Money,
  at: Date,
) {
  const value = amount.toString();
  const shrunk = await db
    .updateTable('ledgerAllocations')
    .set({ amount: sql`amount - ${value}::numeric` })
    .where('id', '=', allocationId)
    .where('amount', '>', value)
    .returning('id')
    .execute();
  if (shrunk.length === 0) {
    const removed = await db
      .deleteFrom('ledgerAllocations')
      .where('id', '=', allocationId)
      .where('amount', '=', value)
      .returning('id')
      .execute();
    if (removed.length === 0) throw new Error(`ledger: allocation ${allocationId} holds less than ${value}`);
  }
  const reopened = await db
    .updateTable('ledgerEntries')
    .set({
      openAmount: sql`open_amount + ${value}::numeric`,
      openedAt: sql`case when open_amount = 0 then ${at}::timestamptz else opened_at end`,
    })
    .where('id', 'in', [sourceEntryId, invoiceEntryId])
    .where('accountId', '=', accountId)
    .where(sql<boolean>`open_amount + ${value}::numeric <= amount`)
    .returning('id')
    .execute();
  if (reopened.length !== 2)
    throw new Error(`ledger: undoing ${value} of allocation ${allocationId} would leave an open amount above its entry's amount`);
}

/**
 * A written-off invoice stays closed (issue 40): what a refund or a dispute takes back of a payment to it is written
 * off too (its write_off entry grows by that much and pays it), so it owes nothing again. Such invoices leave
 * `reopened`. A void invoice never had money allocated, so nothing reopens one.
 */
async function writeOffAgain(db: Queryable, accountId: number, reopened: Map<number, Money>, at: Date) {
  if (reopened.size === 0) return;
  const closings = await db
    .selectFrom('ledgerEntries as w')
    .innerJoin('ledgerEntries as i', (join) => join.onRef('i.invoiceId', '=', 'w.invoiceId').on('i.entryType', '=', 'invoice'))
    .select(['w.id', 'w.invoiceId', 'i.id as invoiceEntryId'])
    .where('w.entryType', '=', 'write_off')
    .where('w.invoiceId', 'in', [...reopened.keys()])
    .forUpdate()
    .execute();
  for (const closing of closings) {
    const amount = closing.invoiceId === null ? undefined : reopened.get(closing.invoiceId);
    if (!amount || closing.invoiceId === null) continue;
    const value = amount.toString();
    await db
      .updateTable('ledgerEntries')
      .set({ amount: sql`amount + ${value}::numeric`, openAmount: sql`open_amount + ${value}::numeric` })
      .where('id', '=', closing.id)
      .execute();
    await recordAllocation(db, accountId, closing.id, closing.invoiceEntryId, amount, at);
    reopened.delete(closing.invoiceId);
  }
}
