import { randomBytes } from 'node:crypto';
import { wallClockNow } from '../clock/account-clock.js';
import type { Queryable } from '../db/database.js';
import { money, type Money } from '../money/money.js';
import type { GatewayEvent, SettledOutcome } from './payment-gateway.js';
import {
  acknowledgeSandboxDisputes,
  decideSandboxDispute,
  findDueSandboxDisputes,
  findSandboxDispute,
  scheduleSandboxDispute,
  type SandboxDisputeRow,
} from './sandbox-disputes.js';

/**
 * The sandbox processor's disputes, as Stripe's test card 4000 0000 0000 0259 and its test evidence
 * behave: a charge of the card is disputed (fraudulent, its full amount) `delayMs` after it succeeds;
 * evidence whose text holds `winning_evidence` wins it, `losing_evidence` loses it, any other leaves it
 * under review. Its times are the processor's own wall clock, never an account's test clock.
 */
const EVIDENCE_DAYS = 7;
/** Stripe's documented dispute fee (README "Test cards"), in the charge's currency. */
const DISPUTE_FEE = '15.00';

export async function scheduleDisputeOf(
  db: Queryable,
  charge: { transactionId: string; amount: Money; currency: string },
  delayMs: number,
): Promise<void> {
  const now = wallClockNow().getTime();
  await scheduleSandboxDispute(db, {
    id: `sbxdp_${randomBytes(12).toString('hex')}`,
    transactionId: charge.transactionId,
    amount: charge.amount.toString(),
    currency: charge.currency,
    reason: 'fraudulent',
    fee: DISPUTE_FEE,
    evidenceDueAt: new Date(now + EVIDENCE_DAYS * 86_400_000),
    openedAt: new Date(now + delayMs),
  });
}

/** The events due now, each dispute's opening before its closing; ids `<dispute>.opened`, `<dispute>.closed`. */
export async function dueDisputeEvents(db: Queryable, limit: number): Promise<GatewayEvent[]> {
  const rows = await findDueSandboxDisputes(db, wallClockNow(), limit);
  return rows.map(eventOf);
}

function eventOf(row: SandboxDisputeRow): GatewayEvent {
  const common = { disputeId: row.id, transactionId: row.transactionId };
  if (row.openedAcknowledgedAt === null) {
    return {
      kind: 'disputeOpened',
      eventId: `${row.id}.opened`,
      ...common,
      amount: money(row.amount),
      currency: row.currency,
      reason: row.reason,
      evidenceDueAt: row.evidenceDueAt,
      fee: money(row.fee),
    };
  }
  return { kind: 'disputeClosed', eventId: `${row.id}.closed`, ...common, outcome: row.status === 'Won' ? 'won' : 'lost' };
}

export async function acknowledgeDisputeEvents(db: Queryable, eventIds: string[]): Promise<void> {
  const of = (suffix: string) => eventIds.filter((id) => id.endsWith(suffix)).map((id) => id.slice(0, -suffix.length));
  await acknowledgeSandboxDisputes(db, { opened: of('.opened'), closed: of('.closed') }, wallClockNow());
}

/** Evidence on a dispute: decided by its text as Stripe's test evidence is; a retry under one key answers as the first time. */
export async function submitEvidence(
  db: Queryable,
  request: { disputeId: string; text: string; idempotencyKey: string },
  /** How long after winning or losing evidence the closing event is due. */
  delayMs: number,
): Promise<SettledOutcome<{ disputeId: string }>> {
  const found = await findSandboxDispute(db, request.disputeId);
  if (!found) return declined('dispute_unknown', 'the gateway knows no such dispute');
  const accepted: SettledOutcome<{ disputeId: string }> = { status: 'succeeded', value: { disputeId: found.id } };
  if (found.evidenceKey === request.idempotencyKey) return accepted;
  const status = request.text.includes('winning_evidence') ? 'Won' : request.text.includes('losing_evidence') ? 'Lost' : 'UnderReview';
  const closedAt = status === 'UnderReview' ? null : new Date(wallClockNow().getTime() + delayMs);
  if (await decideSandboxDispute(db, found.id, { status, evidenceKey: request.idempotencyKey, closedAt })) return accepted;
  const now = await findSandboxDispute(db, request.disputeId);
  if (now?.evidenceKey === request.idempotencyKey) return accepted;
  return declined('dispute_closed', 'the dispute is closed: it takes no more evidence');
}

function declined(code: string, message: string) {
  return { status: 'declined' as const, code, message };
}
