import { DECLINES } from './cards.js';
import type { Decline } from './errors.js';
import type { PaymentMethodRecord } from './objects.js';

/** What the card's issuer says to one attempt. */
export type Verdict =
  | { kind: 'approve' }
  | { kind: 'decline'; decline: Decline }
  /** The cardholder is present: send them to the issuer's challenge. */
  | { kind: 'challenge' }
  /** Authentication is needed but nobody can do it now (off-session, or error_on_requires_action). */
  | { kind: 'authentication_required'; decline: Decline };

/**
 * A payment attempt with a saved card, following Stripe's testing page: 3184 asks every time; 3155 asks on-session and
 * off-session until it is set up for off-session use; 3178 asks like 3155 and is then declined for insufficient funds.
 */
export function paymentVerdict(method: PaymentMethodRecord, cardholderAbsent: boolean, authenticated: boolean): Verdict {
  const card = method.card;
  if (card.validationDecline) return { kind: 'decline', decline: card.validationDecline };
  if (!authenticated && needsAuthentication(method, cardholderAbsent)) {
    return cardholderAbsent ? { kind: 'authentication_required', decline: DECLINES.authenticationRequired } : { kind: 'challenge' };
  }
  if (card.authentication === 'then_insufficient_funds') return { kind: 'decline', decline: DECLINES.insufficientFunds };
  if (card.chargeDecline) return { kind: 'decline', decline: card.chargeDecline };
  return { kind: 'approve' };
}

function needsAuthentication(method: PaymentMethodRecord, cardholderAbsent: boolean): boolean {
  switch (method.card.authentication) {
    case 'none':
      return false;
    case 'always':
      return true;
    default:
      // On-session payments always ask; off-session ones pass once the card holds an off-session mandate.
      return !cardholderAbsent || !method.setUpForOffSession;
  }
}

/** Saving a card (SetupIntent): cards that can ask for authentication ask for it here (a guess for 3178, see README). */
export function setupVerdict(method: PaymentMethodRecord, authenticated: boolean): Verdict {
  const card = method.card;
  if (card.validationDecline) return { kind: 'decline', decline: card.validationDecline };
  if (!authenticated && card.authentication !== 'none') return { kind: 'challenge' };
  return { kind: 'approve' };
}
