import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '@renew/billing-service';
import { ApiError, API_ERROR_KEY, Refusal, type Caller } from '@renew/billing-service/http';
import type { CapturePermission } from '@renew/billing-service/payments';
import {
  beginPortalCardAttempt,
  finishPortalCardAttempt,
  portalCardGate,
  PORTAL_CARD_DECLINES_PER_HOUR,
} from '@renew/billing-service/portal';
import { captureCard, verifyCaptcha, type CaptchaCheck, type CaptureOutcome, type CaptureSettings } from '../capture.js';
import type { CaptureInput } from '../params.js';
import { ShopDomains } from '../shop-domains.js';

/*
 * The portal's card form against card testing (README "Customer portal"): the rules are billing-service's
 * (portal/card-attempts.ts); here they meet HTTP: 429 with Retry-After, the CAPTCHA checked as /api/paymentsv2
 * checks a shop's, and each attempt's outcome reported once it is known.
 */

/** 429: the customer's cards were declined too often within the hour. */
export function cardAttemptsExhausted(reply: FastifyReply, retryAfterSeconds: number): ApiError {
  reply.header('Retry-After', String(retryAfterSeconds));
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return new ApiError(429, [
    {
      Key: API_ERROR_KEY,
      Value: `cards were declined ${PORTAL_CARD_DECLINES_PER_HOUR} times within an hour: try again in ${minutes} minute${minutes === 1 ? '' : 's'}`,
      Code: 'card_attempts_exhausted',
    },
  ]);
}

function captchaRequired(): ApiError {
  return ApiError.badRequest('a card was declined within the hour: solve the CAPTCHA, then try again', 'recaptcha', 'captcha_required');
}

/** What the card form must show before the customer types a card: refused (429) or whether the CAPTCHA is needed. */
export async function portalCardFormGate(ctx: AppContext, reply: FastifyReply, customerId: number): Promise<{ captchaRequired: boolean }> {
  const gate = await portalCardGate(ctx.db, customerId);
  if (gate.state === 'exhausted') throw cardAttemptsExhausted(reply, gate.retryAfterSeconds);
  return { captchaRequired: gate.state === 'captcha' };
}

/**
 * Before anything is spent: 429 when the customer has no attempts left; the CAPTCHA, when a decline is less than an
 * hour old, verified as a shop's is (one use, the account's secret), solved on this host (the portal's page).
 * Returns whether one was solved.
 */
export async function admitPortalCardAttempt(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  check: { captcha: CaptchaCheck; settings: CaptureSettings; customerId: number; recaptcha: string | undefined },
): Promise<boolean> {
  const { captchaRequired: needed } = await portalCardFormGate(ctx, reply, check.customerId);
  if (!needed) return false;
  if (!check.recaptcha) throw captchaRequired();
  await verifyCaptcha(check.captcha, check.recaptcha, request.ip, { ...check.settings, domains: new ShopDomains([request.hostname]) });
  return true;
}

/** A decline by the card's bank (at the save, at the first payment, or its authentication failed): what card testers try. */
function isDecline(error: unknown): boolean {
  const items = error instanceof ApiError || error instanceof Refusal ? error.errors : [];
  return items.some((e) => e.Code === 'card_declined' || e.Code === 'authentication_failed');
}

/**
 * One attempt of the portal's card form: begun under the customer's lock (the capture token spent: one token, one
 * attempt), the card captured as any capture is (the token already spent, so captureCard gets no grant), the outcome
 * recorded: a decline counts towards the hour's budget.
 */
export async function capturePortalCard(
  ctx: AppContext,
  caller: Caller,
  input: CaptureInput,
  log: FastifyBaseLogger,
  attempt: { reply: FastifyReply; settings: CaptureSettings; clientIp: string; permission: CapturePermission; captchaSolved: boolean },
): Promise<CaptureOutcome> {
  const { permission, reply } = attempt;
  if (!permission.grant) throw new Error('a portal capture always comes with its capture token');
  const begun = await beginPortalCardAttempt(ctx, {
    accountId: caller.accountId,
    customerId: permission.customer.id,
    grant: permission.grant,
    captchaSolved: attempt.captchaSolved,
  });
  if ('refused' in begun)
    throw begun.refused.state === 'exhausted' ? cardAttemptsExhausted(reply, begun.refused.retryAfterSeconds) : captchaRequired();
  try {
    const captured = await captureCard(ctx, caller, input, log, {
      settings: attempt.settings,
      clientIp: attempt.clientIp,
      permission: { ...permission, grant: null },
    });
    await finishPortalCardAttempt(ctx, begun.attemptId, 'authentication' in captured ? 'challenged' : 'stored');
    return captured;
  } catch (error) {
    await finishPortalCardAttempt(ctx, begun.attemptId, isDecline(error) ? 'declined' : 'failed').catch((failed: unknown) =>
      log.error({ err: failed }, 'the outcome of a portal card attempt was not recorded (it counts as a decline for the hour)'),
    );
    throw error;
  }
}
