import type { Queryable } from '../db/database.js';
import { money, type Money } from '../money/money.js';
import { allocateAvailableFunds, recordAllocation, type Allocation } from './allocation.js';
import { addLedgerEntry } from './entries.js';
import { payBackPayment, undoAllocation, type PaidBack } from './refunds.js';

/**
 * A dispute opened: the processor took `amount` of the payment back. As a refund (payBackPayment): its
 * unallocated money first, then its invoices newest first, which open again; the money goes to a
 * `dispute` entry. In the caller's transaction, which holds the customer's lock.
 */
export function takeBackDisputedPayment(
  db: Queryable,
  dispute: { accountId: number; customerId: number; paymentEntryId: number; amount: Money; effectiveAt: Date; description: string },
): Promise<PaidBack> {
  return payBackPayment(db, { ...dispute, entryType: 'dispute' });
}

/**
 * A dispute won: the processor gave the money back. The payment's allocation to the dispute entry is
 * undone (the payment holds the money again), a `dispute_reversal` entry settles the dispute entry, and
 * the payment's money pays the customer's open invoices again (oldest due first: those the dispute
 * reopened, unless something else paid them meanwhile). Answers the reversal entry and what it paid.
 */
export async function restoreDisputedPayment(
  db: Queryable,
  dispute: {
    accountId: number;
    customerId: number;
    paymentEntryId: number;
    disputeEntryId: number;
    effectiveAt: Date;
    description: string;
  },
): Promise<{ reversalEntryId: number; allocations: Allocation[] }> {
  const { accountId, paymentEntryId, disputeEntryId, effectiveAt } = dispute;
  const allocation = await db
    .selectFrom('ledgerAllocations')
    .select(['id', 'amount'])
    .where('sourceEntryId', '=', paymentEntryId)
    .where('invoiceEntryId', '=', disputeEntryId)
    .forUpdate()
    .executeTakeFirst();
  if (!allocation) throw new Error(`ledger: dispute entry ${disputeEntryId} holds nothing of payment entry ${paymentEntryId}`);
  const amount = money(allocation.amount);
  await undoAllocation(db, accountId, allocation.id, paymentEntryId, disputeEntryId, amount, effectiveAt);
  const reversalEntryId = await addLedgerEntry(db, {
    accountId,
    customerId: dispute.customerId,
    entryType: 'dispute_reversal',
    amount,
    effectiveAt,
    description: dispute.description,
  });
  await recordAllocation(db, accountId, reversalEntryId, disputeEntryId, amount, effectiveAt);
  const allocations = await allocateAvailableFunds(db, accountId, dispute.customerId, effectiveAt, 'OldestToNewest', paymentEntryId);
  return { reversalEntryId, allocations };
}

/**
 * What open or lost disputes hold of each of these payment entries (a dispute won holds nothing): money
 * the processor took back, which a refund cannot pay back again.
 */
export async function heldByDisputes(db: Queryable, paymentEntryIds: number[]): Promise<Map<number, Money>> {
  if (paymentEntryIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('ledgerAllocations')
    .innerJoin('ledgerEntries as target', 'target.id', 'ledgerAllocations.invoiceEntryId')
    .select(['ledgerAllocations.sourceEntryId', 'ledgerAllocations.amount'])
    .where('ledgerAllocations.sourceEntryId', 'in', paymentEntryIds)
    .where('target.entryType', '=', 'dispute')
    .execute();
  const held = new Map<number, Money>();
  for (const row of rows) held.set(row.sourceEntryId, (held.get(row.sourceEntryId) ?? money(0)).plus(row.amount));
  return held;
}
