import type { AppContext } from '../app-context.js';
import { recordChange } from '../audit/audit-log.js';
import { lockCustomer } from '../customers/repository.js';
import { retryOnConflict } from '../db/conflict-retry.js';
import type { Queryable } from '../db/database.js';
import type { GatewayEvent } from '../gateway/payment-gateway.js';
import type { Caller } from '../http/auth.js';
import { restoreDisputedPayment, takeBackDisputedPayment } from '../ledger/disputes.js';
import { money } from '../money/money.js';
import { findPayment } from '../payments/repository.js';
import { lockPaymentForRefund } from '../refunds/repository.js';
import { emailDisputeOpened, emitDisputeEvent } from './notices.js';
import {
  findDisputeByGatewayId,
  findPaymentOfCharge,
  insertDispute,
  insertDisputeUnallocations,
  lockDispute,
  updateDispute,
} from './repository.js';

type Opened = Extract<GatewayEvent, { kind: 'disputeOpened' }>;
type Closed = Extract<GatewayEvent, { kind: 'disputeClosed' }>;

/** What ingesting an event did: `recorded` a change, found it `already` done, or `ignored` it (a charge Renew never made). */
export type IngestResult = 'recorded' | 'already' | 'ignored';

/** The service acting on the processor's word: audited as `system`, source `gateway events`. */
export function gatewayEventCaller(accountId: number): Caller {
  return { accountId, keyKind: 'system', auditSource: 'gateway events', rateLimits: { perMinute: 0, perDay: 0 }, keyHash: '' };
}

/**
 * Ingests one of the processor's events. Idempotent on the dispute: an event ingested twice (two
 * instances fetched it, or one froze before acknowledging it) changes nothing and sends nothing the
 * second time, since each change is made under the customer's lock only from the state it expects.
 */
export function ingestGatewayEvent(ctx: AppContext, event: GatewayEvent): Promise<IngestResult> {
  return event.kind === 'disputeOpened' ? ingestOpened(ctx, event) : ingestClosed(ctx, event);
}

/**
 * A dispute opened: recorded, and in the same transaction the payment's money taken back (its
 * invoices open again, the customer's AR rises), audited, announced (webhook, the merchant's e-mail).
 * It takes back what the payment still holds (the processor disputes the charge; refunds made before
 * are not taken twice).
 */
async function ingestOpened(ctx: AppContext, event: Opened): Promise<IngestResult> {
  const payment = await findPaymentOfCharge(ctx.db, event.transactionId);
  if (!payment) return 'ignored';
  const { accountId, customerId } = payment;
  const now = await ctx.clock.now(accountId);
  return retryOnConflict(() =>
    ctx.db.transaction().execute(async (trx): Promise<IngestResult> => {
      if (!(await lockCustomer(trx, accountId, customerId))) throw new Error(`customer ${customerId} of payment ${payment.id} is gone`);
      if (await findDisputeByGatewayId(trx, event.disputeId)) return 'already';
      const { taken, paidBack } = await takeBack(trx, payment, event, now);
      const row = {
        accountId,
        customerId,
        paymentId: payment.id,
        gatewayDisputeId: event.disputeId,
        amount: event.amount.toString(),
        currency: event.currency,
        reason: event.reason,
        status: 'NeedsResponse' as const,
        evidenceDueAt: event.evidenceDueAt,
        fee: event.fee?.toString() ?? null,
        ledgerEntryId: paidBack?.refundEntryId ?? null,
        reversalEntryId: null,
        evidenceSubmittedAt: null,
        createdAt: now,
        closedAt: null,
      };
      const id = await insertDispute(trx, row);
      const reopened = (paidBack?.reopened ?? []).map((r) => ({ invoiceId: r.invoiceId, amount: r.amount.toString() }));
      await insertDisputeUnallocations(trx, id, reopened);
      await recordChange(trx, gatewayEventCaller(accountId), {
        entityType: 'Dispute',
        entityId: id,
        action: 'create',
        changes: {
          paymentId: payment.id,
          gatewayDisputeId: event.disputeId,
          amount: row.amount,
          taken: taken.toString(),
          fee: row.fee,
          reopenedInvoices: reopened,
        },
      });
      await emitDisputeEvent(ctx, trx, { id, accountId, customerId }, 'dispute.created', now);
      await emailDisputeOpened(ctx, trx, { ...row, id, createdAt: now });
      return 'recorded';
    }),
  );
}

/**
 * The ledger's side of a dispute opened: what the payment still holds (less its refunds, succeeded or
 * waiting for the gateway, counted under the payment's row lock as refunds count them) is taken back.
 */
async function takeBack(trx: Queryable, payment: NonNullable<Awaited<ReturnType<typeof findPaymentOfCharge>>>, event: Opened, now: Date) {
  const refunded = money(await lockPaymentForRefund(trx, payment.id));
  const left = money(payment.amount).minus(refunded);
  const taken = event.amount.lessThan(left) ? event.amount : left;
  if (!taken.greaterThan(0) || payment.ledgerEntryId === null) return { taken, paidBack: null };
  const paidBack = await takeBackDisputedPayment(trx, {
    accountId: payment.accountId,
    customerId: payment.customerId,
    paymentEntryId: payment.ledgerEntryId,
    amount: taken,
    effectiveAt: now,
    description: `dispute ${event.disputeId} of payment ${payment.id}`,
  });
  return { taken, paidBack };
}

/** A dispute closed: won, the money comes back and pays the invoices again; lost, it stays taken back. */
async function ingestClosed(ctx: AppContext, event: Closed): Promise<IngestResult> {
  const known = await findDisputeByGatewayId(ctx.db, event.disputeId);
  if (!known) return 'ignored';
  const { accountId, customerId } = known;
  const now = await ctx.clock.now(accountId);
  return retryOnConflict(() =>
    ctx.db.transaction().execute(async (trx): Promise<IngestResult> => {
      await lockCustomer(trx, accountId, customerId);
      const dispute = await lockDispute(trx, known.id);
      if (!dispute) throw new Error(`dispute ${known.id} is gone`);
      if (dispute.status === 'Won' || dispute.status === 'Lost') return 'already';
      const status = event.outcome === 'won' ? 'Won' : 'Lost';
      const restored = status === 'Won' ? await restore(ctx, trx, dispute, now) : null;
      await updateDispute(trx, dispute.id, { status, closedAt: now, reversalEntryId: restored?.reversalEntryId ?? null });
      await recordChange(trx, gatewayEventCaller(accountId), {
        entityType: 'Dispute',
        entityId: dispute.id,
        action: 'update',
        changes: { status: [dispute.status, status], ...(restored ? { reversalEntryId: restored.reversalEntryId } : {}) },
      });
      await emitDisputeEvent(ctx, trx, dispute, 'dispute.closed', now);
      return 'recorded';
    }),
  );
}

/** A dispute won: the ledger gives the money back; invoices it pays in full are announced (invoice.paid). */
async function restore(
  ctx: AppContext,
  trx: Queryable,
  dispute: { id: number; accountId: number; customerId: number; paymentId: number; ledgerEntryId: number | null },
  now: Date,
) {
  if (dispute.ledgerEntryId === null) return null;
  const payment = await findPayment(trx, dispute.accountId, dispute.paymentId);
  if (!payment?.ledgerEntryId) throw new Error(`payment ${dispute.paymentId} of dispute ${dispute.id} has no ledger entry`);
  const restored = await restoreDisputedPayment(trx, {
    accountId: dispute.accountId,
    customerId: dispute.customerId,
    paymentEntryId: payment.ledgerEntryId,
    disputeEntryId: dispute.ledgerEntryId,
    effectiveAt: now,
    description: `dispute ${dispute.id} won`,
  });
  await ctx.webhooks?.paidInvoices(
    trx,
    dispute.accountId,
    dispute.customerId,
    restored.allocations.map((a) => a.invoiceId),
    now,
  );
  return restored;
}
