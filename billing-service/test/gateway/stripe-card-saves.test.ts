import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { StripeGateway } from '../../src/gateway/stripe/stripe-gateway.js';
import type { StripeStandIn } from '../stand-ins/stripe/index.js';
import { actionOf, RETURN_URL, signal, stripeFixture, succeeded, testCard } from './stripe-fixture.js';

/** The Stripe adapter's card saves (validateCard, resumeCardValidation) against the stand-in, through the official SDK. */
describe('Stripe adapter: saving cards', () => {
  let standIn: StripeStandIn;
  let gateway: StripeGateway;

  beforeAll(async () => {
    ({ standIn, gateway } = await stripeFixture());
  });
  afterAll(() => standIn.close());

  it('saves 4242 for off-session use: a customer, a card and a SetupIntent, each under a key derived from the save', async () => {
    const card = testCard('4242424242424242');
    const saved = succeeded(await gateway.validateCard(card, signal));
    expect(saved).toMatchObject({ brand: 'Visa', lastFour: '4242' });
    expect(saved.token).toMatch(/^cus_\w+\/pm_\w+$/);
    expect(saved.token.startsWith(`${saved.gatewayCustomerId}/`)).toBe(true);
    const posts = standIn.requests.filter((request) => request.idempotencyKey?.startsWith(card.idempotencyKey ?? '-'));
    expect(posts.map((request) => [request.path, request.idempotencyKey])).toEqual([
      ['/v1/customers', `${card.idempotencyKey}:customer`],
      ['/v1/payment_methods', `${card.idempotencyKey}:payment_method`],
      ['/v1/setup_intents', `${card.idempotencyKey}:setup_intent`],
    ]);
    const setup = posts[2]?.body;
    expect(setup).toMatchObject({ usage: 'off_session', confirm: 'true', return_url: RETURN_URL });
    expect(JSON.stringify(standIn.requests.filter((r) => r.path === '/v1/customers'))).not.toContain('4242424242424242');
  });

  it('a save retried under one key makes one customer and one card (Stripe replays each request)', async () => {
    const card = testCard('5555555555554444');
    const first = succeeded(await gateway.validateCard(card, signal));
    const again = succeeded(await gateway.validateCard(card, signal));
    expect(again).toEqual(first);
    expect(first.brand).toBe('MasterCard');
    const retried = standIn.requests.filter((request) => request.idempotencyKey?.startsWith(card.idempotencyKey ?? '-'));
    expect(retried.map((request) => request.replayed)).toEqual([false, false, false, true, true, true]);
  });

  it.each([
    ['4000000000000002', 'card_declined'],
    ['4000000000009995', 'insufficient_funds'],
    ['4000000000000127', 'incorrect_cvc'],
    ['4000000000000069', 'expired_card'],
    ['4000000000009987', 'card_declined'],
    ['4000000000000119', 'processing_error'],
    ['4000000000000101', 'card_declined'],
  ])('declines %s at the save with %s', async (number, code) => {
    const outcome = await gateway.validateCard(testCard(number), signal);
    expect(outcome).toMatchObject({ status: 'declined', code });
  });

  it('3184: asks for authentication, waits, then saves once the shopper completes the challenge', async () => {
    const before = Date.now();
    const action = actionOf(await gateway.validateCard(testCard('4000002760003184'), signal));
    expect(action.id).toMatch(/^seti_/);
    expect(action.challengeUrl).toBe(`${standIn.url}/challenge/${action.id}`);
    expect(action.expiresAt.getTime()).toBeGreaterThanOrEqual(before - 1000 + 15 * 60_000);
    expect(action.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + 15 * 60_000);
    expect(actionOf(await gateway.resumeCardValidation(action.id, signal))).toEqual(action);
    const back = new URL(standIn.completeChallenge(action.id, 'succeed') ?? '');
    expect(`${back.origin}${back.pathname}`).toBe(RETURN_URL);
    expect(back.searchParams.get('setup_intent')).toBe(action.id);
    const saved = succeeded(await gateway.resumeCardValidation(action.id, signal));
    expect(saved).toMatchObject({ brand: 'Visa', lastFour: '3184' });
    expect(saved.token).toMatch(/^cus_\w+\/pm_\w+$/);
  });

  it('3184: a challenge left unanswered past its 15 minutes is declined authentication_expired', async () => {
    const action = actionOf(await gateway.validateCard(testCard('4000002760003184'), signal));
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 15 * 60_000 + 1000 });
    try {
      expect(await gateway.resumeCardValidation(action.id, signal)).toMatchObject({ status: 'declined', code: 'authentication_expired' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('3184: a failed challenge is declined authentication_failed, and an unknown one authentication_unknown', async () => {
    const action = actionOf(await gateway.validateCard(testCard('4000002760003184'), signal));
    standIn.completeChallenge(action.id, 'fail');
    expect(await gateway.resumeCardValidation(action.id, signal)).toMatchObject({ status: 'declined', code: 'authentication_failed' });
    expect(await gateway.resumeCardValidation('seti_nothing', signal)).toMatchObject({
      status: 'declined',
      code: 'authentication_unknown',
    });
    expect(await gateway.resumeCardValidation('sbxauth_1', signal)).toMatchObject({ status: 'declined', code: 'authentication_unknown' });
  });
});

describe('Stripe adapter: an account Stripe has not cleared for raw card data', () => {
  it('fails the save (an exception: the gateway failed), saying what the account needs', async () => {
    const { standIn, gateway } = await stripeFixture({ rawCardData: false });
    try {
      await expect(gateway.validateCard(testCard('4242424242424242'), signal)).rejects.toThrow(/raw card data.*SAQ D/);
    } finally {
      await standIn.close();
    }
  });
});
