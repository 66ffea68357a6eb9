import { type Account, NO_REQUEST } from './account.js';
import type { World } from './context.js';
import { newId, nowSeconds } from './objects.js';

/** Stripe gives the merchant about a week to answer a test dispute (a guess; real issuers set the date). */
const EVIDENCE_DAYS = 7;

/**
 * Card 4000000000000259: "the charge succeeds, only to be disputed as fraudulent". Stripe opens the dispute shortly
 * after the payment; the stand-in waits `disputeDelayMs` and sends `charge.dispute.created`.
 */
export function scheduleDispute(world: World, account: Account, chargeId: string): void {
  world.later(world.disputeDelayMs, () => openDispute(account, chargeId));
}

export function openDispute(account: Account, chargeId: string): void {
  const charge = account.charge(chargeId);
  const created = nowSeconds();
  const dispute = {
    id: newId('du'),
    object: 'dispute' as const,
    amount: charge.amount,
    charge: charge.id,
    created,
    currency: charge.currency,
    evidence: {},
    evidence_details: { due_by: created + EVIDENCE_DAYS * 86_400, has_evidence: false, past_due: false, submission_count: 0 },
    is_charge_refundable: false,
    livemode: false,
    metadata: {},
    payment_intent: charge.payment_intent,
    reason: 'fraudulent',
    status: 'needs_response' as const,
  };
  account.disputes.set(dispute.id, dispute);
  charge.disputed = true;
  account.emit('charge.dispute.created', dispute, NO_REQUEST);
}

/** The card network's ruling, which Stripe reports with `charge.dispute.closed`. */
export function closeDispute(account: Account, disputeId: string, outcome: 'won' | 'lost'): void {
  const dispute = account.disputes.get(disputeId);
  if (!dispute) throw new Error(`No dispute ${disputeId} in this stand-in`);
  if (dispute.status === 'won' || dispute.status === 'lost') throw new Error(`Dispute ${disputeId} is already closed (${dispute.status})`);
  dispute.status = outcome;
  account.emit('charge.dispute.closed', dispute, NO_REQUEST);
}
