/**
 * What the card-capture host needs from payments (`@renew/billing-service/payments`):
 * the card checks, validating and storing a card, a first payment with a new card,
 * and the gateway (interface and sandbox).
 */
export { checkCard, type CardInput } from '../gateway/card-checks.js';
export { customerForCollection } from './check-request.js';
export { collectWithNewCard } from './collect-with-new-card.js';
export { AuthenticationNeeded } from './record-steps.js';
/** One capture's reads of the customer shared (db/transaction-cache.ts): the scope, and a row the CAPTCHA's statement read. */
export { readScope } from '../db/transaction-cache.js';
export { rememberCustomerRow } from '../customers/repository.js';
export { amountInCurrency } from '../money/amount-in-currency.js';
export { SandboxGateway } from '../gateway/sandbox-gateway.js';
export type { CardToValidate, GatewayOutcome, PaymentGateway, ValidatedCard } from '../gateway/payment-gateway.js';
export { SANDBOX_CHALLENGE_PATH } from '../gateway/sandbox-gateway.js';
export { StripeGateway } from '../gateway/stripe/stripe-gateway.js';
export { StripeWebhookSignatureError } from '../gateway/stripe/stripe-webhooks.js';
export { STRIPE_RETURN_PATH } from '../gateway/stripe/stripe-settings.js';
export {
  insertValidatedCard,
  startCardValidation,
  toCreditCardResponse,
  validateCard,
  type CardReadyToStore,
} from '../payment-methods/service.js';
export { cardholderFields, type CreditCardResponse } from '../payment-methods/schemas.js';
/** A card's address: country and state ids (ISO 3166) checked and resolved. */
export { resolveLocation } from '../geo/resolve-location.js';
/** Capture tokens: who the public key may put a card on, spending the token with the card, or claiming it before a charge. */
export {
  authorizeCapture,
  claimCaptureGrant,
  releaseCaptureClaim,
  spendCaptureGrant,
  type CaptureGrant,
  type CapturePermission,
  type TokenlessCapture,
} from '../capture-tokens/service.js';
