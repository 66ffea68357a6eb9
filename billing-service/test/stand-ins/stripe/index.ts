/** The Stripe stand-in's public surface for tests (README.md beside this file says how to point the SDK at it). */
export { DECLINES, TEST_CARDS, type TestCard } from './cards.js';
export type { ChallengeOutcome } from './challenge.js';
export type { EventObject } from './objects.js';
export type { RecordedRequest } from './server.js';
export { type StripeAccountKeys, type StripeStandIn, type StripeStandInOptions, startStripeStandIn } from './stand-in.js';
export { signatureHeader } from './webhooks.js';
