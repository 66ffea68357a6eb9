import { randomUUID } from 'node:crypto';
import type { AppContext } from '../app-context.js';
import { recordChange } from '../audit/audit-log.js';
import { lockCustomer } from '../customers/repository.js';
import { retryOnConflict } from '../db/conflict-retry.js';
import { callGateway } from '../gateway/call-gateway.js';
import { gatewayIdempotencyKey } from '../gateway/payment-gateway.js';
import type { Caller } from '../http/auth.js';
import { Refusal } from '../refusals/refusal.js';
import { findDispute, lockDispute, updateDispute, type DisputeRow } from './repository.js';
import { toDisputeResponse } from './responses.js';
import type { DisputeEvidenceInput, DisputeResponse } from './schemas.js';

export async function getDispute(ctx: AppContext, caller: Caller, id: number): Promise<DisputeResponse> {
  const row = await findDispute(ctx.db, caller.accountId, id);
  if (!row) throw Refusal.notFound('dispute', id);
  return toDisputeResponse(ctx.db, ctx.uris, row);
}

const isClosed = (dispute: Pick<DisputeRow, 'status'>) => dispute.status === 'Won' || dispute.status === 'Lost';

function closedRefusal(id: number, status: string): Refusal {
  return Refusal.conflict(`dispute ${id} is ${status}: it takes no more evidence`, 'disputeId', 'dispute_closed');
}

/**
 * Sends the merchant's evidence to the processor (under the request's Idempotency-Key, namespaced by
 * account: a retry submits once), then records it: the dispute is UnderReview until the processor
 * decides (a disputeClosed event). A closed dispute is refused (409 dispute_closed).
 */
export async function submitDisputeEvidence(
  ctx: AppContext,
  caller: Caller,
  id: number,
  input: DisputeEvidenceInput,
  idempotencyKey?: string,
): Promise<DisputeResponse> {
  const dispute = await findDispute(ctx.db, caller.accountId, id);
  if (!dispute) throw Refusal.notFound('dispute', id);
  if (isClosed(dispute)) throw closedRefusal(id, dispute.status);
  const key = gatewayIdempotencyKey(caller.accountId, idempotencyKey ?? `evidence-${randomUUID()}`);
  const outcome = await callGateway(
    ctx,
    (signal) =>
      ctx.payments.gateway.submitDisputeEvidence({ disputeId: dispute.gatewayDisputeId, text: input.text, idempotencyKey: key }, signal),
    'the evidence may not have reached the processor: retry with the same Idempotency-Key',
  );
  if (outcome.status === 'declined') {
    if (outcome.code === 'dispute_closed') throw closedRefusal(id, 'closed at the processor');
    throw new Refusal('declined', [
      { Key: 'Api Error', Value: `evidence refused: ${outcome.message}`, Code: 'evidence_declined' },
      { Key: 'declineCode', Value: outcome.code, Code: 'evidence_declined' },
    ]);
  }
  const now = await ctx.clock.now(caller.accountId);
  const row = await retryOnConflict(() =>
    ctx.db.transaction().execute(async (trx) => {
      await lockCustomer(trx, caller.accountId, dispute.customerId);
      const locked = await lockDispute(trx, dispute.id);
      if (!locked) throw new Error(`dispute ${dispute.id} is gone`);
      // a closing ingested meanwhile stands; the evidence was still given
      const status = isClosed(locked) ? locked.status : 'UnderReview';
      await updateDispute(trx, locked.id, { status, evidenceSubmittedAt: now });
      await recordChange(trx, caller, {
        entityType: 'Dispute',
        entityId: locked.id,
        action: 'update',
        changes: { status: [locked.status, status], evidenceSubmittedAt: now.toISOString(), evidenceLength: input.text.length },
      });
      return { ...locked, status, evidenceSubmittedAt: now };
    }),
  );
  return toDisputeResponse(ctx.db, ctx.uris, row);
}
