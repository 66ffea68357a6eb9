import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '@renew/billing-service';
import {
  authenticationFailed,
  awaitPaymentAuthentication,
  paymentAuthentication,
  type AuthenticationStarted,
  cardToStore,
  completedCapture,
  recordCompletion,
  recordedFailure,
  recordFailure,
  resumeAuthentication,
  startCompletion,
  stillWaiting,
} from '@renew/billing-service/card-authentications';
import { ApiError } from '@renew/billing-service/http';
import { AuthenticationNeeded } from '@renew/billing-service/payments';
import { storeCapturedCard, type CapturedCard } from './capture.js';
import { CAPTURE_AUDIT_SOURCE } from './public-key.js';

/**
 * Completes a capture whose card's bank asked the shopper to authenticate (3-D Secure), once they have
 * answered the challenge: the card is stored (and the first payment taken) as the capture would have
 * done. A retry answers as the first completion did; a failed or abandoned challenge stores and charges nothing.
 * When the bank asks for the first payment's own challenge too, the answer is that challenge (202 again).
 */
export async function completeCapture(
  ctx: AppContext,
  publicId: string,
  log: FastifyBaseLogger,
): Promise<CapturedCard | AuthenticationStarted> {
  const start = await startCompletion(ctx, publicId, CAPTURE_AUDIT_SOURCE);
  if (start.state === 'succeeded') return completedCapture(ctx, start.row);
  if (start.state === 'failed') throw recordedFailure(start.row);
  const { claimed } = start;
  const outcome = await resumeAuthentication(ctx, claimed);
  if (outcome.status === 'requiresAction') return stillWaiting(ctx, claimed);
  if (outcome.status === 'declined') throw await authenticationFailed(ctx, claimed, outcome);
  const { row } = claimed;
  const card = await cardToStore(ctx, claimed, outcome.value);
  try {
    return await storeCapturedCard(ctx, claimed.caller, card, {
      amount: row.collectionAmount ?? undefined,
      // the token is spent now, with the card or before its payment, as the capture itself would have
      grant: row.captureTokenId === null ? null : { tokenId: row.captureTokenId, customerId: row.customerId, maxCollectionAmount: null },
      log,
      customerId: row.customerId,
      authenticatedBy: paymentAuthentication(row),
      customerPresent: true,
      afterStored: (trx, stored) => recordCompletion(trx, claimed, stored),
    });
  } catch (error) {
    if (error instanceof AuthenticationNeeded) return awaitPaymentAuthentication(ctx, claimed, error.action);
    // The first payment declined after the challenge (the card is kept removed, beside the failed payment): the capture failed.
    const declineCode = error instanceof ApiError ? error.errors.find((e) => e.Key === 'declineCode')?.Value : undefined;
    if (declineCode) await recordFailure(ctx, claimed, declineCode);
    throw error;
  }
}
