import type Stripe from 'stripe';
import type { World } from './context.js';

/** The part of `next_action` a card challenge uses, the same for PaymentIntents and SetupIntents. */
type ChallengeAction = Pick<Stripe.PaymentIntent.NextAction, 'type' | 'redirect_to_url' | 'use_stripe_sdk'> &
  Pick<Stripe.SetupIntent.NextAction, 'type' | 'redirect_to_url' | 'use_stripe_sdk'>;

/** Where the issuer's challenge page for an intent lives: served by the stand-in itself. */
export function challengeUrl(world: World, intentId: string): string {
  return `${world.baseUrl}/challenge/${intentId}`;
}

/**
 * The `next_action` of an intent waiting for 3-D Secure. With a `return_url` Stripe answers `redirect_to_url` (the
 * flow a server-side integration uses); without one it answers `use_stripe_sdk`, whose content is Stripe.js's business
 * and undocumented (the stand-in puts the challenge address there; a guess, see README).
 */
export function nextAction(world: World, intentId: string, returnUrl: string | null): ChallengeAction {
  const url = challengeUrl(world, intentId);
  if (returnUrl) return { type: 'redirect_to_url', redirect_to_url: { url, return_url: returnUrl } };
  return { type: 'use_stripe_sdk', use_stripe_sdk: { type: 'three_d_secure_redirect', stripe_js: url } };
}

/** The return_url an intent waiting for a challenge was given, if any. */
export function returnUrlOf(action: Stripe.PaymentIntent.NextAction | Stripe.SetupIntent.NextAction | null): string | null {
  return action?.redirect_to_url?.return_url ?? null;
}
