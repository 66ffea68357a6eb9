import type { AppContext } from '../app-context.js';
import { spendCaptureGrant, type CaptureGrant } from '../capture-tokens/service.js';
import { wallClockNow } from '../clock/account-clock.js';
import { lockCustomer } from '../db/customer-lock.js';
import type { Queryable } from '../db/database.js';
import type { PortalCardOutcome } from '../db/schema.js';
import { countedCardAttemptStarts, finishCardAttempt, insertCardAttempt } from './card-attempts-repository.js';

/*
 * Card testing through the portal (README "Customer portal", issue 38): the first card attempt needs no CAPTCHA
 * (the session, opened by a one-use link, stands in for it); while a decline of the customer's is less than an
 * hour old, each attempt needs a solved reCAPTCHA; after PORTAL_CARD_DECLINES_PER_HOUR declines within an hour,
 * card attempts are refused until the oldest of them is an hour old. Counted per customer, whatever the session,
 * in the database (instances share it), on the wall clock (a test clock moves billing, not abuse limits).
 * One capture token, one attempt: a portal attempt spends its token before the gateway is called, whatever the
 * outcome, so a declined card cannot be retried on the same token.
 */

export const PORTAL_CARD_DECLINES_PER_HOUR = 3;
const WINDOW_MS = 3_600_000;

export type PortalCardGate = { state: 'open' } | { state: 'captcha' } | { state: 'exhausted'; retryAfterSeconds: number };

/** What the customer's next card attempt needs: nothing, a solved CAPTCHA, or to wait (declines and unfinished attempts count). */
export async function portalCardGate(db: Queryable, customerId: number, now = wallClockNow()): Promise<PortalCardGate> {
  const starts = await countedCardAttemptStarts(db, customerId, new Date(now.getTime() - WINDOW_MS));
  const oldestCounted = starts[PORTAL_CARD_DECLINES_PER_HOUR - 1];
  if (oldestCounted) {
    // Free again once the oldest of the newest three is an hour old.
    const retryAfterSeconds = Math.max(1, Math.ceil((oldestCounted.getTime() + WINDOW_MS - now.getTime()) / 1000));
    return { state: 'exhausted', retryAfterSeconds };
  }
  return starts.length > 0 ? { state: 'captcha' } : { state: 'open' };
}

/**
 * Starts a card attempt, fenced under the customer's lock: the gate is read again (attempts racing each other
 * are counted one after the other, an unfinished one counting as a decline), the capture token spent and the
 * attempt recorded with it. `refused`: the gate that stands (nothing spent).
 */
export async function beginPortalCardAttempt(
  ctx: AppContext,
  attempt: { accountId: number; customerId: number; grant: CaptureGrant; captchaSolved: boolean },
  now = wallClockNow(),
): Promise<{ attemptId: number } | { refused: Exclude<PortalCardGate, { state: 'open' }> }> {
  return ctx.db.transaction().execute(async (trx) => {
    await lockCustomer(trx, attempt.accountId, attempt.customerId);
    const gate = await portalCardGate(trx, attempt.customerId, now);
    if (gate.state === 'exhausted' || (gate.state === 'captcha' && !attempt.captchaSolved)) return { refused: gate };
    await spendCaptureGrant(trx, attempt.grant, now);
    const attemptId = await insertCardAttempt(trx, {
      accountId: attempt.accountId,
      customerId: attempt.customerId,
      captureTokenId: attempt.grant.tokenId,
      captchaSolved: attempt.captchaSolved,
      startedAt: now,
    });
    return { attemptId };
  });
}

/** The attempt's outcome, written once (a decline counts; stored, challenged and failed ones do not). */
export async function finishPortalCardAttempt(ctx: AppContext, attemptId: number, outcome: PortalCardOutcome): Promise<void> {
  await finishCardAttempt(ctx.db, attemptId, outcome, wallClockNow());
}
