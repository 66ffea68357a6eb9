import { randomBytes } from 'node:crypto';
import type { AppContext } from '../app-context.js';
import { wallClockNow } from '../clock/account-clock.js';
import { findCustomerRow } from '../customers/repository.js';
import { newClaimToken } from '../db/claims.js';
import type { Queryable } from '../db/database.js';
import { callGateway } from '../gateway/call-gateway.js';
import type { GatewayOutcome, ValidatedCard } from '../gateway/payment-gateway.js';
import type { Caller } from '../http/auth.js';
import { findPaymentMethod } from '../payment-methods/repository.js';
import type { CreditCardResponse } from '../payment-methods/schemas.js';
import {
  cardDeclined,
  toCreditCardResponse,
  withGatewayCard,
  type CardAwaitingAuthentication,
  type CardReadyToStore,
  type DefaultMoveRefusal,
} from '../payment-methods/service.js';
import { Refusal } from '../refusals/refusal.js';
import {
  claimCardAuthentication,
  findCardAuthentication,
  insertCardAuthentication,
  settleCardAuthentication,
  type CardAuthenticationRow,
} from './repository.js';

/** What the capture host answers (202) for a card whose bank asks the shopper to authenticate. */
export interface AuthenticationStarted {
  id: string;
  status: 'RequiresAction';
  challengeUrl: string;
  expiresTimestamp: string;
}

/** How long a completion holds its claim before another request may take it over (the holder froze or died). */
const COMPLETION_LEASE_MS = 60_000;

/**
 * Keeps a capture that waits for its shopper's 3-D Secure challenge: the card as it will be stored (no
 * number, no CVV: the gateway holds the card), and the capture's amount and capture token, so that
 * completing it does what the capture would have done. Its id is the shopper's handle on it: random, 128 bits.
 */
export async function awaitCardAuthentication(
  ctx: AppContext,
  caller: Caller,
  awaiting: CardAwaitingAuthentication,
  capture: { collectionAmount: string | null; captureTokenId: number | null },
): Promise<AuthenticationStarted> {
  const publicId = `cauth_${randomBytes(16).toString('hex')}`;
  await insertCardAuthentication(ctx.db, {
    publicId,
    accountId: caller.accountId,
    customerId: awaiting.customer.id,
    gatewayActionId: awaiting.action.id,
    challengeUrl: awaiting.action.challengeUrl,
    expiresAt: awaiting.action.expiresAt,
    card: JSON.stringify(awaiting.values),
    makeDefault: awaiting.wantsDefault,
    mayNotMoveDefault: awaiting.mayNotMoveDefault ? JSON.stringify(awaiting.mayNotMoveDefault) : null,
    collectionAmount: capture.collectionAmount,
    captureTokenId: capture.captureTokenId,
  });
  return toStarted(publicId, awaiting.action.challengeUrl, awaiting.action.expiresAt);
}

function toStarted(id: string, challengeUrl: string, expiresAt: Date): AuthenticationStarted {
  return { id, status: 'RequiresAction', challengeUrl, expiresTimestamp: expiresAt.toISOString() };
}

/** A completion this request holds: the card to store once the gateway says the shopper authenticated. */
export interface ClaimedAuthentication {
  row: CardAuthenticationRow;
  claim: { publicId: string; token: string };
  caller: Caller;
}

export type CompletionStart =
  | { state: 'claimed'; claimed: ClaimedAuthentication }
  | { state: 'succeeded'; row: CardAuthenticationRow }
  | { state: 'failed'; row: CardAuthenticationRow };

/**
 * Takes a capture awaiting authentication for completion. One that already ended answers as it ended (a
 * retry gets the first answer); one another request is completing right now is a 409.
 */
export async function startCompletion(ctx: AppContext, publicId: string, auditSource: string): Promise<CompletionStart> {
  const now = wallClockNow();
  const token = newClaimToken();
  const claimed = await claimCardAuthentication(ctx.db, publicId, { token, now, until: new Date(now.getTime() + COMPLETION_LEASE_MS) });
  if (claimed)
    return {
      state: 'claimed',
      claimed: { row: claimed, claim: { publicId, token }, caller: captureCaller(claimed.accountId, auditSource) },
    };
  const row = await findCardAuthentication(ctx.db, publicId);
  if (!row) throw unknownAuthentication();
  if (row.status === 'Succeeded') return { state: 'succeeded', row };
  if (row.status === 'Failed' || row.status === 'Expired') return { state: 'failed', row };
  throw Refusal.conflict('this capture is being completed by another request: ask again in a moment', 'id', 'authentication_pending');
}

/** The gateway's word on the challenge: still waiting, declined (failed, expired), or the saved card. */
export function resumeAuthentication(ctx: AppContext, claimed: ClaimedAuthentication): Promise<GatewayOutcome<ValidatedCard>> {
  return callGateway(
    ctx,
    (signal) => ctx.payments.gateway.resumeCardValidation(claimed.row.gatewayActionId, signal),
    'nothing was stored or charged; ask again',
  );
}

/** The card to store, as the capture validated it, with the token the gateway gave once the shopper authenticated. */
export async function cardToStore(ctx: AppContext, claimed: ClaimedAuthentication, saved: ValidatedCard): Promise<CardReadyToStore> {
  const { row } = claimed;
  const customer = await findCustomerRow(ctx.db, row.accountId, row.customerId);
  if (!customer) throw unknownAuthentication();
  return withGatewayCard(
    {
      customer,
      values: row.card as CardAwaitingAuthentication['values'],
      wantsDefault: row.makeDefault,
      ...(row.mayNotMoveDefault ? { mayNotMoveDefault: row.mayNotMoveDefault as DefaultMoveRefusal } : {}),
    },
    saved,
  );
}

/** Still waiting for the shopper: the claim is let go, and the answer is 409 with the challenge to answer. */
export async function stillWaiting(ctx: AppContext, claimed: ClaimedAuthentication): Promise<never> {
  await settleCardAuthentication(ctx.db, claimed.claim, { status: 'Pending' });
  throw Refusal.conflict(
    'the challenge has not been answered yet: answer it on its page, then complete again',
    'id',
    'authentication_pending',
  );
}

/**
 * The card is authenticated, but its bank asks the shopper to authenticate the first payment too (a processor
 * whose bank wants every payment confirmed): the payment's challenge is kept, the claim let go, and the answer is
 * 202 again with that challenge; completing again after it stores the card and takes the payment it authorised.
 */
export async function awaitPaymentAuthentication(
  ctx: AppContext,
  claimed: ClaimedAuthentication,
  action: { id: string; challengeUrl: string; expiresAt: Date },
): Promise<AuthenticationStarted> {
  await settleCardAuthentication(ctx.db, claimed.claim, { status: 'Pending', paymentAction: action });
  return toStarted(claimed.row.publicId, action.challengeUrl, action.expiresAt);
}

/** The challenge that authorised the first payment: the payment's own when the bank asked for one, else the card's. */
export function paymentAuthentication(row: CardAuthenticationRow): string {
  return row.paymentActionId ?? row.gatewayActionId;
}

/** The shopper failed (or let expire) the challenge, or the card was declined after it: recorded, then the 400 to answer. */
export async function authenticationFailed(
  ctx: AppContext,
  claimed: ClaimedAuthentication,
  outcome: { code: string; message: string },
): Promise<Refusal> {
  await recordFailure(ctx, claimed, outcome.code);
  return cardDeclined(outcome);
}

/** The completion ended without a card: the challenge failed or expired, or the first payment after it was declined. */
export async function recordFailure(ctx: AppContext, claimed: ClaimedAuthentication, declineCode: string): Promise<void> {
  const status = declineCode === 'authentication_expired' ? 'Expired' : 'Failed';
  await settleCardAuthentication(ctx.db, claimed.claim, { status, declineCode, now: wallClockNow() });
}

/** A completed capture's answer again (a retry): the card it stored, and its first payment. */
export async function completedCapture(
  ctx: AppContext,
  row: CardAuthenticationRow,
): Promise<{ card: CreditCardResponse; paymentId: number | null }> {
  const stored = row.paymentMethodId === null ? undefined : await findPaymentMethod(ctx.db, row.accountId, row.paymentMethodId);
  if (!stored) throw new Error(`card authentication ${row.publicId} succeeded without its card`);
  return { card: toCreditCardResponse(stored, ctx.uris), paymentId: row.paymentId };
}

/**
 * Marks the completion done in the transaction that stored the card (and its payment): only while this
 * request still holds the claim; otherwise the transaction rolls back (a charge made is paid back).
 */
export async function recordCompletion(
  trx: Queryable,
  claimed: ClaimedAuthentication,
  stored: { paymentMethodId: number; paymentId: number | null },
): Promise<void> {
  const settled = await settleCardAuthentication(trx, claimed.claim, { status: 'Succeeded', ...stored, now: wallClockNow() });
  if (!settled) throw Refusal.conflict('this capture was completed by another request meanwhile', 'id', 'authentication_pending');
}

/** A failed completion's answer again (a retry), from what was recorded. */
export function recordedFailure(row: CardAuthenticationRow): Refusal {
  return cardDeclined({ code: row.declineCode ?? 'authentication_failed', message: 'the authentication or the payment after it failed' });
}

function unknownAuthentication(): Refusal {
  return new Refusal('not_found', [{ Key: 'id', Value: 'no capture awaits authentication under this id', Code: 'authentication_unknown' }]);
}

/** The completion acts for the account that started the capture, as its public key did. */
function captureCaller(accountId: number, auditSource: string): Caller {
  return { accountId, keyKind: 'public', auditSource, rateLimits: { perMinute: 0, perDay: 0 }, keyHash: '' };
}
