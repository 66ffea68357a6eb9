import type { ErrorResponse } from '../checkout-contract.js';
import type { MessageId } from './i18n/localization.js';

/** The gateway's decline codes (billing-service/src/gateway) a shopper can act on, as Stripe's Checkout tells them. */
const DECLINES: ReadonlyMap<string, MessageId> = new Map([
  ['insufficient_funds', 'decline.insufficient_funds'],
  ['expired_card', 'decline.expired_card'],
  ['incorrect_cvc', 'decline.incorrect_cvc'],
  ['incorrect_number', 'decline.incorrect_number'],
  ['processing_error', 'decline.processing_error'],
]);

/**
 * A decline in the shopper's words, chosen by the `declineCode` the capture host answers, never by
 * its English text; any other code (card_declined, which lost, stolen and fraud cards are told as) or none: the generic one.
 */
export function declineMessage(errors: ErrorResponse['Errors']): MessageId {
  const code = errors.find((e) => e.Key === 'declineCode')?.Value ?? '';
  return DECLINES.get(code) ?? 'card.declined';
}
