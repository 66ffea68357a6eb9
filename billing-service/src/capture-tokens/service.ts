import { Refusal } from '../refusals/refusal.js';
import { createHash, randomBytes } from 'node:crypto';
import { wallClockNow } from '../clock/account-clock.js';
import type { AppContext } from '../app-context.js';
import { recordChange } from '../audit/audit-log.js';
import { findCustomerRow, findCustomerRowOnce } from '../customers/repository.js';
import type { Queryable } from '../db/database.js';
import type { CustomerRow } from '../db/schema.js';
import type { Caller } from '../http/auth.js';
import { money, toJsonAmount, type Money } from '../money/money.js';
import { amountInCurrency } from '../money/amount-in-currency.js';
import { findCaptureToken, insertCaptureToken, spendCaptureToken, unspendCaptureToken } from './repository.js';
import { CAPTURE_TOKEN_DEFAULT_SECONDS, type CaptureTokenResponse, type CreateCaptureTokenInput } from './schemas.js';

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
const NOT_VALID = 'is not valid: unknown, expired or already used; ask the shop for a new one';

/**
 * Mints a capture token (private key): the card-capture host may then put one card on this
 * customer, whatever its status, and make it the default, once, before the token expires.
 * The token is shown once; only its hash is kept.
 */
/** `portalSessionId`: minted by that portal session (the customer portal's card form). */
export async function createCaptureToken(
  ctx: AppContext,
  caller: Caller,
  input: CreateCaptureTokenInput,
  now = wallClockNow(),
  minted: { portalSessionId?: number } = {},
): Promise<CaptureTokenResponse> {
  const customer = await findCustomerRow(ctx.db, caller.accountId, input.customerId);
  if (!customer) throw Refusal.notFound('customer', input.customerId);
  const maxCollectionAmount =
    input.maxCollectionAmount != null ? amountInCurrency(input.maxCollectionAmount, customer.currency, 'maxCollectionAmount') : null;
  const token = `ct_${randomBytes(32).toString('base64url')}`;
  const expiresAt = new Date(now.getTime() + (input.expiresInSeconds ?? CAPTURE_TOKEN_DEFAULT_SECONDS) * 1000);
  await ctx.db.transaction().execute(async (trx) => {
    await insertCaptureToken(trx, {
      accountId: caller.accountId,
      customerId: customer.id,
      tokenHash: hashToken(token),
      maxCollectionAmount: maxCollectionAmount?.toString() ?? null,
      expiresAt,
      portalSessionId: minted.portalSessionId ?? null,
    });
    await recordChange(trx, caller, {
      entityType: 'Customer',
      entityId: customer.id,
      action: 'update',
      changes: { captureToken: 'issued', expiresAt: expiresAt.toISOString(), maxCollectionAmount: maxCollectionAmount?.toString() ?? null },
    });
  });
  return {
    token,
    customerId: customer.id,
    maxCollectionAmount: maxCollectionAmount ? toJsonAmount(maxCollectionAmount) : null,
    expiresTimestamp: expiresAt.toISOString(),
  };
}

// Capture tokens are short-lived credentials: they expire on the wall clock, not an account's test clock.

/** What a valid capture token allows: this customer, up to this first payment (null: the account's cap). */
export interface CaptureGrant {
  tokenId: number;
  customerId: number;
  maxCollectionAmount: Money | null;
}

/** Checks a token the capture host was given (400 keyed `captureToken` when it cannot be used). */
export async function checkCaptureToken(
  db: Queryable,
  accountId: number,
  token: string,
  customerId: number,
  now = wallClockNow(),
): Promise<CaptureGrant> {
  const row = token.length <= 200 ? await findCaptureToken(db, accountId, hashToken(token)) : undefined;
  if (!row || row.spentAt !== null || row.expiresAt.getTime() <= now.getTime())
    throw Refusal.invalid(NOT_VALID, 'captureToken', 'capture_token_invalid');
  if (row.customerId !== customerId) throw Refusal.invalid('was issued for another customer', 'captureToken', 'capture_token_invalid');
  return {
    tokenId: row.id,
    customerId: row.customerId,
    maxCollectionAmount: row.maxCollectionAmount === null ? null : money(row.maxCollectionAmount),
  };
}

/** Spends the token in the transaction that stores the card: two captures with one token store one card. */
export async function spendCaptureGrant(trx: Queryable, grant: CaptureGrant, now = wallClockNow()): Promise<void> {
  if (!(await spendCaptureToken(trx, grant.tokenId, now))) throw Refusal.invalid(NOT_VALID, 'captureToken', 'capture_token_invalid');
}

/**
 * Claims the token in its own committed statement before the gateway charges anything: of captures
 * racing with one token, one charges, the others get the used-token 400 (they would otherwise all
 * charge, and all but one be refunded). Returns the claim, to give back if nothing was charged.
 */
export async function claimCaptureGrant(
  db: Queryable,
  grant: CaptureGrant,
  now = wallClockNow(),
): Promise<{ tokenId: number; claimedAt: Date }> {
  await spendCaptureGrant(db, grant, now);
  return { tokenId: grant.tokenId, claimedAt: now };
}

/** Gives a claim back when its charge was declined or never made: the shopper may try again with the token. */
export async function releaseCaptureClaim(db: Queryable, claim: { tokenId: number; claimedAt: Date }): Promise<void> {
  await unspendCaptureToken(db, claim.tokenId, claim.claimedAt);
}

export type TokenlessCapture = 'draftOnly' | 'never' | 'any';

/** What the card-capture host may do for one request: the customer, the token to spend, the first payment's cap. */
export interface CapturePermission {
  customer: CustomerRow;
  grant: CaptureGrant | null;
  /** false: the new card becomes the default only if the customer has none; makeDefault asking to move it is refused (a tokenless capture never moves it). */
  mayMoveDefault: boolean;
  maxCollectionAmount: Money;
}

const TOKEN_NEEDED = "a capture token is needed to add a card to this customer: the shop's server gets one with POST /v1/captureTokens";

/**
 * Who the public key may put a card on. With a capture token: its customer, whatever its status,
 * default card included. Without one, as the account's `capture.tokenlessCapture` says: never
 * (default): nobody; draftOnly: a Draft customer only, never moving a default card; any: every customer
 * of the account (the spec's behaviour, unsafe). Refusals never tell whether the customer exists
 * or what its status is.
 */
export async function authorizeCapture(
  ctx: AppContext,
  caller: Caller,
  request: { customerId: number; captureToken?: string | undefined },
  policy: { tokenlessCapture: TokenlessCapture; maxCollectionAmount: string },
  now = wallClockNow(),
): Promise<CapturePermission> {
  const accountCap = money(policy.maxCollectionAmount);
  // Once per transaction or read scope: the capture host's CAPTCHA statement may have read it already.
  const readCustomer = (id: number) => findCustomerRowOnce(ctx.db, caller.accountId, id);
  if (request.captureToken !== undefined) {
    const grant = await checkCaptureToken(ctx.db, caller.accountId, request.captureToken, request.customerId, now);
    const customer = await readCustomer(grant.customerId);
    if (!customer) throw Refusal.invalid(NOT_VALID, 'captureToken', 'capture_token_invalid');
    return { customer, grant, mayMoveDefault: true, maxCollectionAmount: grant.maxCollectionAmount ?? accountCap };
  }
  if (policy.tokenlessCapture === 'never') throw Refusal.invalid(TOKEN_NEEDED, 'captureToken', 'capture_token_required');
  const customer = await readCustomer(request.customerId);
  if (!customer || (policy.tokenlessCapture === 'draftOnly' && customer.status !== 'Draft'))
    throw Refusal.invalid(TOKEN_NEEDED, 'captureToken', 'capture_token_required');
  return { customer, grant: null, mayMoveDefault: policy.tokenlessCapture === 'any', maxCollectionAmount: accountCap };
}
