import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '@renew/billing-service';
import type { Catalog } from '@renew/billing-service/catalog';
import { ApiError, API_ERROR_KEY, Refusal, type Caller, type ErrorItem } from '@renew/billing-service/http';
import {
  checkCard,
  claimCaptureGrant,
  collectWithNewCard,
  customerForCollection,
  insertValidatedCard,
  releaseCaptureClaim,
  resolveLocation,
  spendCaptureGrant,
  startCardValidation,
  toCreditCardResponse,
  type CaptureGrant,
  type CapturePermission,
  type CardReadyToStore,
  type CreditCardResponse,
  type TokenlessCapture,
  AuthenticationNeeded,
} from '@renew/billing-service/payments';
import { isDatabaseUnavailable, writeEventually, type CustomerRow, type Queryable } from '@renew/billing-service/db';
import { money } from '@renew/billing-service/money';
import { awaitCardAuthentication, type AuthenticationStarted } from '@renew/billing-service/card-authentications';
import { CaptchaUnavailableError, type CaptchaVerifier } from './captcha/captcha-verifier.js';
import type { UsedCaptchaTokens } from './captcha/used-tokens.js';
import { COLLECTION_AMOUNT, type CaptureInput, type ParameterName, type RawParameters } from './params.js';
import { ShopDomains } from './shop-domains.js';

type ErrorEntry = ErrorItem;

/** An account's card-capture settings (catalogue `capture`) with its shop domains parsed. */
export interface CaptureSettings {
  domains: ShopDomains;
  recaptchaSecret?: string;
  addressVerification: boolean;
  processing: 'builtin' | 'external';
  /** Who a capture without a capture token may put a card on (see authorizeCapture). */
  tokenlessCapture: TokenlessCapture;
  /** The largest first payment when the capture token sets none. */
  maxCollectionAmount: string;
}

export function captureSettingsFrom(catalog: Catalog): CaptureSettings {
  const c = catalog.capture;
  return {
    domains: new ShopDomains(c.allowedShopDomains),
    ...(c.recaptchaSecret ? { recaptchaSecret: c.recaptchaSecret } : {}),
    addressVerification: c.addressVerification,
    processing: c.processing,
    tokenlessCapture: c.tokenlessCapture,
    maxCollectionAmount: c.maxCollectionAmount,
  };
}

export const RISK_FIELDS = ['riskToken', 'clientIp', 'email'] as const satisfies readonly ParameterName[];
export const VERIFIED_ADDRESS_FIELDS = ['address1', 'city', 'countryId', 'postalZip'] as const satisfies readonly ParameterName[];

/** Fields the account's settings make required: the risk signals (built-in processing) and the address (verification). */
export function requirementErrors(raw: RawParameters, settings: CaptureSettings): ErrorEntry[] {
  const errors: ErrorEntry[] = [];
  if (settings.processing === 'builtin') {
    for (const name of RISK_FIELDS) {
      if (raw[name] === undefined)
        errors.push({
          Key: name,
          Value: 'required: the account uses the built-in payment processing, which needs riskToken, clientIp and email',
          Code: 'value_required',
        });
    }
  }
  if (settings.addressVerification) {
    for (const name of VERIFIED_ADDRESS_FIELDS) {
      if (raw[name] === undefined)
        errors.push({ Key: name, Value: 'required: the account verifies card addresses', Code: 'value_required' });
    }
  }
  return errors;
}

/** The checks that need no gateway and no database (Luhn, expiry, CVV length, country and state ids), made before the CAPTCHA token is spent. */
/** `now`: the wall clock unless a test gives one (cards expire on the real calendar). */
export function localCardErrors(input: CaptureInput, now?: Date): ErrorEntry[] {
  const errors: ErrorEntry[] = [];
  const attempt = (check: () => void) => {
    try {
      check();
    } catch (error) {
      // A refusal of another folder without a code yet is a value of bad form (a country or state id).
      if (error instanceof Refusal) errors.push(...error.errors.map((e) => ({ ...e, Code: e.Code ?? ('value_invalid' as const) })));
      else throw error;
    }
  };
  attempt(() => checkCard(input, now));
  attempt(() => resolveLocation({ country: input.countryId, state: input.stateId }, { country: 'countryId', state: 'stateId' }));
  return errors;
}

export interface CaptchaCheck {
  verifier: CaptchaVerifier;
  usedTokens: UsedCaptchaTokens;
  /** The service's secret (RENEW_RECAPTCHA_SECRET); the account's own wins. */
  serviceSecret?: string;
}

/**
 * Spends the token (a second use is refused before any call to the CAPTCHA
 * service), verifies it with the account's secret or the service's, and
 * checks where it was solved against the account's shop domains.
 * With `forCustomer` the customer's row is read in the statement that spends
 * the token, and returned (undefined when the account has no such customer).
 */
export async function verifyCaptcha(
  check: CaptchaCheck,
  token: string,
  remoteIp: string,
  settings: CaptureSettings,
  forCustomer?: { accountId: number; customerId: number },
): Promise<CustomerRow | undefined> {
  const secret = settings.recaptchaSecret ?? check.serviceSecret;
  if (check.verifier.mode === 'google' && !secret) {
    throw new ApiError(503, [
      { Key: API_ERROR_KEY, Value: 'the CAPTCHA check is not configured on this service (no reCAPTCHA secret)', Code: 'internal_error' },
    ]);
  }
  const claim = forCustomer
    ? await check.usedTokens.claimReadingCustomer(token, forCustomer.accountId, forCustomer.customerId)
    : { claimed: await check.usedTokens.claim(token), customer: undefined };
  if (!claim.claimed) {
    throw ApiError.badRequest('this CAPTCHA token was already used; solve the CAPTCHA again', 'recaptcha', 'captcha_failed');
  }
  let result: Awaited<ReturnType<CaptchaVerifier['verify']>>;
  try {
    result = await check.verifier.verify(token, remoteIp, secret ?? '');
  } catch (error) {
    if (!(error instanceof CaptchaUnavailableError)) throw error;
    // Not checked at all: the shopper may try again with the same token.
    await check.usedTokens.release(token).catch(() => undefined);
    throw new ApiError(error.timedOut ? 504 : 502, [
      {
        Key: API_ERROR_KEY,
        Value: `${error.message}; nothing was stored, try again`,
        Code: error.timedOut ? 'gateway_timed_out' : 'gateway_unavailable',
      },
    ]);
  }
  if (!result.success) {
    const codes = result.errorCodes.length > 0 ? ` (${result.errorCodes.join(', ')})` : '';
    throw ApiError.badRequest(
      `the CAPTCHA was not solved or the token is not valid${codes}; solve the CAPTCHA again`,
      'recaptcha',
      'captcha_failed',
    );
  }
  if (check.verifier.mode === 'google' && !settings.domains.allowsHostname(result.hostname)) {
    throw ApiError.badRequest(
      `the CAPTCHA was solved on ${result.hostname ?? 'an unknown site'}, which is not one of the account's shop domains`,
      'recaptcha',
      'captcha_failed',
    );
  }
  return claim.customer;
}

/** A collection that could not be made or was declined: in words, with the gateway's decline code when there is one. */
function collectionFailure(failure: { message: string; declineCode?: string }): ErrorEntry[] {
  const { message, declineCode } = failure;
  return [
    {
      Key: API_ERROR_KEY,
      Value: `payment failed: ${message}${declineCode ? ` (${declineCode})` : ''}; the card was not kept`,
      Code: 'card_declined',
    },
    ...(declineCode ? [{ Key: 'declineCode', Value: declineCode, Code: 'card_declined' as const }] : []),
  ];
}

/**
 * makeDefault without a capture token, on a customer who has a card: the tokenless rule (draftOnly) never lets the
 * public key, which every shop hands out, take a customer's default card; refused rather than stored as a non-default.
 */
const MAY_NOT_MOVE_DEFAULT = {
  message:
    "this customer already has a default card, which a capture without a capture token cannot replace: the shop's server mints one with POST /v1/captureTokens (or send makeDefault false to add the card beside the default)",
  code: 'capture_token_required',
} as const;

/** The stored card, and the first payment's id when one was collected. */
export interface CapturedCard {
  card: CreditCardResponse;
  paymentId: number | null;
}

/** A capture's answer: the stored card, or the challenge its bank asks the shopper to answer first (3-D Secure). */
export type CaptureOutcome = CapturedCard | { authentication: AuthenticationStarted };

/** What storing a captured card needs beyond the card: the first payment, the capture token, and a completion's own steps. */
export interface StoreOptions {
  amount: string | undefined;
  grant: CaptureGrant | null;
  log: FastifyBaseLogger;
  customerId: number;
  /** A completion: the shopper can answer the payment's own challenge when the bank asks again (AuthenticationNeeded). */
  customerPresent?: boolean;
  /** The completed challenge that authorised the first payment (a completed 3-D Secure capture). */
  authenticatedBy?: string;
  /** Runs in the transaction that stores the card (and payment): a completion records itself there. */
  afterStored?: (trx: Queryable, stored: { paymentMethodId: number; paymentId: number | null }) => Promise<void>;
}

/**
 * Validates the card with the gateway and stores it on the customer (only its
 * token, brand, last four and expiry are kept). With a collection amount the
 * card is charged first and stored together with the payment, in one
 * transaction; a failed collection is a 400 and leaves no usable card (the
 * declined card is recorded as removed, next to the failed payment).
 */
export async function captureCard(
  ctx: AppContext,
  caller: Caller,
  input: CaptureInput,
  log: FastifyBaseLogger,
  request: { settings: CaptureSettings; clientIp: string /** Who the card may go to (authorizeCapture). */; permission: CapturePermission },
): Promise<CaptureOutcome> {
  const amount = input.paymentCollectOptions?.collectionAmount;
  const { permission } = request;
  if (amount !== undefined) {
    // The amount must fit the customer's currency (USD two decimals, JPY none) and the cap.
    await customerForCollection(ctx, caller, input.customerId, amount, COLLECTION_AMOUNT);
    if (money(amount).greaterThan(permission.maxCollectionAmount)) {
      throw ApiError.badRequest(`must be at most ${permission.maxCollectionAmount.toString()}`, COLLECTION_AMOUNT, 'value_invalid');
    }
  }

  const started = await validateCapturedCard(ctx, caller, input, request);
  if ('awaiting' in started) {
    // Nothing is stored or charged, nor the capture token spent, until the shopper has answered the bank's challenge.
    const authentication = await awaitCardAuthentication(ctx, caller, started.awaiting, {
      collectionAmount: amount ?? null,
      captureTokenId: permission.grant?.tokenId ?? null,
    });
    return { authentication };
  }
  return storeCapturedCard(ctx, caller, started.ready, { amount, grant: permission.grant, log, customerId: input.customerId });
}

/**
 * Stores a card the gateway saved: without a payment the capture token is spent in the transaction that
 * stores the card (two captures with one token store one card); with one, collectOnNewCard.
 */
export async function storeCapturedCard(
  ctx: AppContext,
  caller: Caller,
  card: CardReadyToStore,
  options: StoreOptions,
): Promise<CapturedCard> {
  const { amount, grant } = options;
  if (amount === undefined) {
    const stored = await ctx.db.transaction().execute(async (trx) => {
      if (grant) await spendCaptureGrant(trx, grant);
      const inserted = await insertValidatedCard(trx, caller, card, {
        webhooks: ctx.webhooks,
        now: await ctx.clock.now(caller.accountId, trx),
      });
      await options.afterStored?.(trx, { paymentMethodId: inserted.id, paymentId: null });
      return inserted;
    });
    return { card: toCreditCardResponse(stored, ctx.uris), paymentId: null };
  }
  return collectOnNewCard(ctx, caller, card, { ...options, amount });
}

/** The gateway's check of the card, with the risk signals and who may move the default card. */
async function validateCapturedCard(
  ctx: AppContext,
  caller: Caller,
  input: CaptureInput,
  request: { clientIp: string; permission: CapturePermission },
) {
  const { permission } = request;
  // The risk signals go to the gateway whenever all three were sent (required with built-in processing);
  // the address is the one the request came from (through trusted proxies), not what the browser says.
  const risk =
    input.riskToken !== undefined && input.clientIp !== undefined && input.email !== undefined
      ? { riskToken: input.riskToken, clientIp: request.clientIp, email: input.email }
      : null;
  return startCardValidation(
    ctx,
    caller,
    {
      customerId: input.customerId,
      cardNumber: input.cardNumber,
      expirationMonth: input.expirationMonth,
      expirationYear: input.expirationYear,
      cvv: input.cvv,
      firstName: input.firstName,
      lastName: input.lastName,
      address1: input.address1 ?? null,
      address2: input.address2 ?? null,
      city: input.city ?? null,
      countryId: input.countryId ?? null,
      stateId: input.stateId ?? null,
      postalZip: input.postalZip ?? null,
      email: input.email ?? null,
      isDefault: null,
    },
    {
      makeDefault: input.makeDefault === true,
      ...(permission.mayMoveDefault ? {} : { mayNotMoveDefault: MAY_NOT_MOVE_DEFAULT }),
      risk,
    },
  );
}

/**
 * Charges the validated card and stores it with its payment (collectWithNewCard), spending the capture
 * token's claim; a decline or a refusal before any charge gives the token back.
 */
async function collectOnNewCard(
  ctx: AppContext,
  caller: Caller,
  card: CardReadyToStore,
  options: StoreOptions & { amount: string },
): Promise<CapturedCard> {
  const { amount, grant, log, customerId } = options;
  // The token is claimed (committed) before the charge: of captures racing with one token, only one reaches the gateway.
  const claim = grant ? await claimCaptureGrant(ctx.db, grant) : null;
  // Nothing was charged: the shopper may use the token again. A charge whose outcome is unknown keeps it spent.
  const giveBack = async () => {
    if (claim) await releaseCaptureClaim(ctx.db, claim);
  };
  let outcome: Awaited<ReturnType<typeof collectWithNewCard>>;
  let charged = false;
  try {
    // one transaction stores the card with its payment: a failed collection keeps no usable card
    outcome = await collectWithNewCard(ctx, caller, card, { amount, source: 'SelfServicePortal' }, await ctx.clock.now(caller.accountId), {
      log,
      // A charge paid back after a database outage (answered 503): the token is the shopper's again, for the retry.
      onUnrecordedCharge: (settled) => {
        charged = true;
        if (settled === 'paid back') void writeEventually(giveBack, 10 * 60_000);
      },
      // the gateway's key is the claim's: a retry of it is recognised, a later claim (after a decline) is a new charge
      ...(claim ? { idempotencyKey: `capture-token-${claim.tokenId}-${claim.claimedAt.getTime()}` } : {}),
      ...(options.authenticatedBy ? { authenticatedBy: options.authenticatedBy } : {}),
      ...(options.customerPresent ? { customerPresent: true } : {}),
      ...(options.afterStored ? { afterStored: options.afterStored } : {}),
    });
  } catch (error) {
    // The bank asks the shopper to authenticate the payment itself: nothing stored or charged, the token theirs again.
    if (error instanceof AuthenticationNeeded) {
      await giveBack();
      throw error;
    }
    if (error instanceof Refusal && error.hasCode(MAY_NOT_MOVE_DEFAULT.code)) {
      // A default card appeared meanwhile (checked again under the customer's lock): the charge was refunded.
      await giveBack();
      throw error;
    }
    if (error instanceof Refusal) {
      // Refused before any charge (an amount, a rule): the token may be used again; the gateway unavailable: the outcome is unknown.
      if (!error.byGateway) await giveBack();
      throw new ApiError(400, collectionFailure({ message: error.errors[0]?.Value ?? 'unknown reason' }));
    }
    // The database went away (a restart): 503, retryable. A charge made meanwhile is settled once the
    // database answers (onUnrecordedCharge: paid back, the token given back); one that was recorded
    // after all keeps the token spent (the card and payment are there). Nothing charged: given back.
    if (isDatabaseUnavailable(error)) {
      if (!charged) void writeEventually(giveBack, 10 * 60_000);
      throw error;
    }
    log.error({ err: error, customerId }, 'collection after card capture failed');
    throw new ApiError(400, collectionFailure({ message: 'the payment could not be processed' }));
  }
  if (outcome.status === 'Declined') {
    await giveBack();
    throw new ApiError(400, collectionFailure(outcome));
  }
  return { card: toCreditCardResponse(outcome.card, ctx.uris), paymentId: outcome.payment.id };
}
