/** A refused card or payment in the customer's language (issue 38): never the server's English words. */
import { ApiFailure } from './portal-api.js';
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
