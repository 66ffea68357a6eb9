import type { Decline } from './errors.js';

/**
 * Stripe's documented test cards (https://docs.stripe.com/testing) and what each one does. Numbers not listed are
 * refused as Stripe refuses real cards in test mode. The README says which behaviours are guesses.
 */

/** How a card treats Strong Customer Authentication (the "Regulatory (3D Secure)" table of Stripe's testing page). */
export type Authentication =
  /** Never asks. */
  | 'none'
  /** 4000002760003184: every payment and every setup asks, off-session ones included. */
  | 'always'
  /** 4000002500003155: setup and on-session payments ask; off-session payments pass once set up for off-session use. */
  | 'unless_set_up'
  /** 4000008260003178: asks like 3155, then every payment is declined for insufficient funds. */
  | 'then_insufficient_funds';

export interface TestCard {
  brand: string;
  funding: 'credit' | 'debit';
  country: string;
  authentication: Authentication;
  /** Declined when the card is validated: attaching it, confirming a SetupIntent, and every payment. */
  validationDecline?: Decline;
  /** Declined only when charged (4000000000000341 attaches and sets up fine). */
  chargeDecline?: Decline;
  /** 4000000000000259: the payment succeeds and the cardholder disputes it as fraudulent shortly after. */
  disputed?: boolean;
}

export const DECLINES = {
  generic: { code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' },
  insufficientFunds: { code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  lost: { code: 'card_declined', decline_code: 'lost_card', message: 'Your card was declined.' },
  stolen: { code: 'card_declined', decline_code: 'stolen_card', message: 'Your card was declined.' },
  expired: { code: 'expired_card', decline_code: 'expired_card', message: 'Your card has expired.', param: 'exp_month' },
  incorrectCvc: { code: 'incorrect_cvc', decline_code: 'incorrect_cvc', message: "Your card's security code is incorrect.", param: 'cvc' },
  processing: { code: 'processing_error', message: 'An error occurred while processing your card. Try again in a little bit.' },
  authenticationRequired: {
    code: 'authentication_required',
    decline_code: 'authentication_required',
    message: 'Your card was declined. This transaction requires authentication.',
  },
  testModeLiveCard: {
    code: 'card_declined',
    decline_code: 'test_mode_live_card',
    message:
      'Your card was declined. Your request was in test mode, but used a non test (live) card. For a list of valid test cards, visit: https://docs.stripe.com/testing.',
  },
  incorrectNumber: { code: 'incorrect_number', message: 'Your card number is incorrect.', param: 'number' },
} satisfies Record<string, Decline>;

const plain = (brand: string, funding: 'credit' | 'debit' = 'credit', country = 'US'): TestCard => ({
  brand,
  funding,
  country,
  authentication: 'none',
});

export const TEST_CARDS: Readonly<Record<string, TestCard>> = {
  '4242424242424242': plain('visa'),
  '4000056655665556': plain('visa', 'debit'),
  '5555555555554444': plain('mastercard'),
  '2223003122003222': plain('mastercard'),
  '5200828282828210': plain('mastercard', 'debit'),
  '378282246310005': plain('amex'),
  '371449635398431': plain('amex'),
  '6011111111111117': plain('discover'),
  '3056930009020004': plain('diners'),
  '3566002020360505': plain('jcb', 'credit', 'JP'),
  '6200000000000005': plain('unionpay', 'credit', 'CN'),
  '4000000760000002': plain('visa', 'credit', 'BR'),
  '4000002500000003': plain('visa', 'credit', 'FR'),
  '4000008260000000': plain('visa', 'credit', 'GB'),
  '4000000000000002': { ...plain('visa'), validationDecline: DECLINES.generic },
  '4000000000009995': { ...plain('visa'), validationDecline: DECLINES.insufficientFunds },
  '4000000000009987': { ...plain('visa'), validationDecline: DECLINES.lost },
  '4000000000009979': { ...plain('visa'), validationDecline: DECLINES.stolen },
  '4000000000000069': { ...plain('visa'), validationDecline: DECLINES.expired },
  '4000000000000127': { ...plain('visa'), validationDecline: DECLINES.incorrectCvc },
  '4000000000000119': { ...plain('visa'), validationDecline: DECLINES.processing },
  '4000000000000341': { ...plain('visa'), chargeDecline: DECLINES.generic },
  '4000000000000259': { ...plain('visa'), disputed: true },
  '4000002760003184': { ...plain('visa', 'credit', 'DE'), authentication: 'always' },
  '4000002500003155': { ...plain('visa', 'credit', 'FR'), authentication: 'unless_set_up' },
  '4000008260003178': { ...plain('visa', 'credit', 'GB'), authentication: 'then_insufficient_funds' },
};

/** The Luhn checksum every card number carries; Stripe answers `incorrect_number` when it fails. */
export function passesLuhn(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let digit = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

/** The test card for a number, or the decline Stripe answers when the PaymentMethod is created with it. */
export function lookUpCard(number: string): TestCard | Decline {
  const digits = number.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(digits) || !passesLuhn(digits)) return DECLINES.incorrectNumber;
  return TEST_CARDS[digits] ?? DECLINES.testModeLiveCard;
}

export function isTestCard(value: TestCard | Decline): value is TestCard {
  return 'brand' in value;
}
