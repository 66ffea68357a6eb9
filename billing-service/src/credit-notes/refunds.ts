import type { AppContext } from '../app-context.js';
import { lockCustomer } from '../customers/repository.js';
import { transactionWithRetry } from '../db/conflict-retry.js';
import type { Caller } from '../http/auth.js';
import { allocateAvailableFunds } from '../ledger/allocation.js';
import { Refusal } from '../refusals/refusal.js';
import { recordRefund } from '../refunds/service.js';
import { findCreditNote, findRefundPlans, recordPlannedRefund, recordRefusedRefund } from './repository.js';

/**
 * The refunds a credit note with `refund: true` asked for, made after its transaction committed (a card refund asks
 * the gateway, outside any transaction). Each is made under a key of its own (`credit-note-{id}-payment-{id}`), so a
 * second run (a client's retry after a lost answer, which reads the note back through here) finds the refund the
 * first made and never refunds twice. Then the note's credit pays what the refunds reopened (a refund takes back
 * the newest invoices its payment paid first) or stays the customer's credit. A refund the gateway refuses is kept
 * (refundIds) and its amount stays the customer's credit. A request that ended before its refunds did (the process died,
 * the gateway did not answer) leaves them to the background task in refund-worker.ts, which runs this again.
 */
export async function refundCreditNote(ctx: AppContext, caller: Caller, creditNoteId: number, now: Date): Promise<void> {
  const plans = (await findRefundPlans(ctx.db, [creditNoteId])).filter((p) => p.refundId === null && p.refused === null);
  for (const plan of plans) {
    try {
      const outcome = await recordRefund(
        ctx,
        caller,
        { originalPaymentId: plan.paymentId, amount: plan.amount, reference: `credit note ${creditNoteId}` },
        now,
        { idempotencyKey: `credit-note-${creditNoteId}-payment-${plan.paymentId}` },
      );
      await recordPlannedRefund(ctx.db, creditNoteId, plan.paymentId, outcome.refund.id);
    } catch (error) {
      // The gateway away or silent: the refund is unfinished (Pending at most), not refused. The request answers
      // 502; its retry, or the background task, finishes it under the same key.
      if (!(error instanceof Refusal) || error.byGateway) throw error;
      // a payment disputed or refunded since: nothing to refund on it; its part stays the customer's credit
      await recordRefusedRefund(ctx.db, creditNoteId, plan.paymentId, error.message);
    }
  }
  if (plans.length === 0) return;
  const note = await findCreditNote(ctx.db, caller.accountId, creditNoteId);
  if (!note) throw new Error(`credit note ${creditNoteId} is gone (credit notes are never deleted)`);
  await transactionWithRetry(ctx.db, async (trx) => {
    await lockCustomer(trx, caller.accountId, note.customerId);
    const allocations = await allocateAvailableFunds(trx, caller.accountId, note.customerId, now, 'OldestToNewest', note.ledgerEntryId);
    await ctx.webhooks?.paidInvoices(
      trx,
      caller.accountId,
      note.customerId,
      allocations.map((a) => a.invoiceId ?? null),
      now,
    );
  });
}
