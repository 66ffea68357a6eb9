/** A refused card or payment in the customer's language (issue 38): never the server's English words. */
import { ApiFailure, PortalNotice } from './portal-api.js';
import type { PortalText } from './portal-text.js';

/** The gateway's decline codes a customer can act on, and their words. */
const DECLINES: ReadonlyMap<string, keyof PortalText> = new Map([
  ['insufficient_funds', 'declineInsufficientFunds'],
  ['expired_card', 'declineExpiredCard'],
  ['incorrect_cvc', 'declineIncorrectCvc'],
  ['incorrect_number', 'declineIncorrectNumber'],
  ['processing_error', 'declineProcessingError'],
]);

/**
 * The decline's message, chosen by the gateway's `declineCode` (billing-service/src/gateway: the sandbox's
 * and Stripe's codes); a decline with an unknown code or none is `declineOther`, a failed bank
 * confirmation (3-D Secure) `bankFailed`. Undefined: the failure is not a decline.
 */
export function declineText(text: PortalText, error: unknown): string | undefined {
  if (!(error instanceof ApiFailure)) return undefined;
  const code = error.errors.find((e) => e.Key === 'declineCode')?.Value;
  if (code === undefined && !error.errors.some((e) => e.Code === 'card_declined')) return undefined;
  if (code?.startsWith('authentication_')) return text.bankFailed;
  return text[DECLINES.get(code ?? '') ?? 'declineOther'];
}

/** The codes of other refusals the portal can meet, and their words; any other: refusalOther. */
const REFUSALS: ReadonlyMap<string, keyof PortalText> = new Map([
  ['value_required', 'refusalCheckInput'],
  ['value_invalid', 'refusalCheckInput'],
  ['request_malformed', 'refusalCheckInput'],
  ['state_conflict', 'refusalStateConflict'],
  ['not_found', 'refusalNotFound'],
  ['portal_action_not_allowed', 'refusalNotAllowed'],
  ['forbidden', 'refusalNotAllowed'],
  ['payment_in_progress', 'refusalPaymentInProgress'],
  ['rate_limited', 'refusalTooMany'],
  ['captcha_required', 'captchaNeeded'],
  ['captcha_failed', 'captchaNeeded'],
  ['card_attempts_exhausted', 'cardAttemptsExhausted'],
  ['gateway_unavailable', 'refusalUnavailable'],
  ['gateway_timed_out', 'refusalUnavailable'],
  ['database_unavailable', 'refusalUnavailable'],
]);

/**
 * What the customer reads when something fails: a decline by its code, a refusal by its `Code`, a notice as it is,
 * a request that never reached the service as such; the server's English `Value` is never shown (issue 38).
 */
export function problemText(text: PortalText, error: unknown): string {
  const decline = declineText(text, error);
  if (decline) return decline;
  if (error instanceof PortalNotice) return error.message;
  if (error instanceof ApiFailure) {
    if (error.status === 429) return text[REFUSALS.get(error.errors[0]?.Code ?? '') ?? 'refusalTooMany'];
    const known = error.errors.map((e) => (e.Code ? REFUSALS.get(e.Code) : undefined)).find((word) => word !== undefined);
    return text[known ?? 'refusalOther'];
  }
  // fetch's own failure: the request never reached the service.
  if (error instanceof TypeError) return text.refusalUnavailable;
  return text.refusalOther;
}

/** A form field's own problem in the customer's words (the browser's bubble would speak the browser's language). */
export function fieldProblemText(text: PortalText, validity: ValidityState): string {
  if (validity.valueMissing) return text.fieldRequired;
  if (validity.rangeUnderflow || validity.rangeOverflow || validity.stepMismatch) return text.fieldOutOfRange;
  return text.fieldInvalid;
}
