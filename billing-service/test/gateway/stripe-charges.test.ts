import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StripeGateway } from '../../src/gateway/stripe/stripe-gateway.js';
import type { StripeStandIn } from '../stand-ins/stripe/index.js';
import { actionOf, chargeOf, gatewayFor, savedToken, settingsOf, signal, stripeFixture, succeeded, testCard } from './stripe-fixture.js';

/** The Stripe adapter's charges: PaymentIntents on and off session, 3-D Secure, authenticatedBy, idempotency. */
describe('Stripe adapter: charges', () => {
  let standIn: StripeStandIn;
  let gateway: StripeGateway;
  const paymentIntentPosts = () => standIn.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payment_intents');

  beforeAll(async () => {
    ({ standIn, gateway } = await stripeFixture());
  });
  afterAll(() => standIn.close());

  it('charges 4242 on and off session in minor units; the PaymentIntent id is the transaction', async () => {
    const token = await savedToken(standIn, gateway, '4242424242424242');
    const onSession = chargeOf(token, '10.50');
    const paid = succeeded(await gateway.charge(onSession, signal));
    expect(paid.transactionId).toMatch(/^pi_/);
    const sent = paymentIntentPosts().at(-1);
    expect(sent?.idempotencyKey).toBe(onSession.idempotencyKey);
    expect(sent?.body).toMatchObject({ amount: '1050', currency: 'eur', confirm: 'true', off_session: 'false' });
    const yen = succeeded(await gateway.charge(chargeOf(token, '500', { currency: 'JPY', offSession: true }), signal));
    expect(yen.transactionId).not.toBe(paid.transactionId);
    expect(paymentIntentPosts().at(-1)?.body).toMatchObject({ amount: '500', currency: 'jpy', off_session: 'true' });
  });

  it('a charge retried under one key moves money once and answers the same transaction', async () => {
    const token = await savedToken(standIn, gateway, '4242424242424242');
    const request = chargeOf(token, '20.00', { offSession: true });
    const first = succeeded(await gateway.charge(request, signal));
    const again = succeeded(await gateway.charge(request, signal));
    expect(again.transactionId).toBe(first.transactionId);
    expect(
      paymentIntentPosts()
        .filter((r) => r.idempotencyKey === request.idempotencyKey)
        .map((r) => r.replayed),
    ).toEqual([false, true]);
  });

  it('declines 0341 (card_declined), an unknown token (invalid_token) and an amount below Stripe’s minimum (amount_invalid)', async () => {
    const token = await savedToken(standIn, gateway, '4000000000000341');
    expect(await gateway.charge(chargeOf(token, '5.00', { offSession: true }), signal)).toMatchObject({
      status: 'declined',
      code: 'card_declined',
    });
    expect(await gateway.charge(chargeOf('sbx_ok_1', '5.00'), signal)).toMatchObject({ status: 'declined', code: 'invalid_token' });
    expect(await gateway.charge(chargeOf('cus_nobody/pm_nothing', '5.00'), signal)).toMatchObject({
      status: 'declined',
      code: 'invalid_token',
    });
    const good = await savedToken(standIn, gateway, '4242424242424242');
    expect(await gateway.charge(chargeOf(good, '0.10'), signal)).toMatchObject({ status: 'declined', code: 'amount_invalid' });
  });

  it('3155 authenticated at the save renews off-session with no challenge; on-session its bank asks again', async () => {
    const token = await savedToken(standIn, gateway, '4000002500003155');
    succeeded(await gateway.charge(chargeOf(token, '12.00', { offSession: true }), signal));
    const action = actionOf(await gateway.charge(chargeOf(token, '12.00'), signal));
    expect(action.id).toMatch(/^pi_/);
    expect(action.challengeUrl).toBe(`${standIn.url}/challenge/${action.id}`);
  });

  it('3184 off-session is declined authentication_required; on-session the completed challenge is the charge (authenticatedBy)', async () => {
    const token = await savedToken(standIn, gateway, '4000002760003184');
    expect(await gateway.charge(chargeOf(token, '30.00', { offSession: true }), signal)).toMatchObject({
      status: 'declined',
      code: 'authentication_required',
    });
    const action = actionOf(await gateway.charge(chargeOf(token, '30.00'), signal));
    // Not answered yet: the same challenge.
    const waiting = await gateway.charge(chargeOf(token, '30.00', { authenticatedBy: action.id }), signal);
    expect(actionOf(waiting)).toEqual(action);
    standIn.completeChallenge(action.id, 'succeed');
    const posted = paymentIntentPosts().length;
    const paid = succeeded(await gateway.charge(chargeOf(token, '30.00', { authenticatedBy: action.id }), signal));
    expect(paid.transactionId).toBe(action.id);
    expect(paymentIntentPosts()).toHaveLength(posted);
    // An authentication of another amount is not this charge's: a new PaymentIntent, which asks again.
    const other = actionOf(await gateway.charge(chargeOf(token, '31.00', { authenticatedBy: action.id }), signal));
    expect(other.id).not.toBe(action.id);
  });

  it.each([
    ['4000002760003184', 'fail', 'authentication_required', 'authentication_failed'],
    ['4000008260003178', 'succeed', 'insufficient_funds', 'insufficient_funds'],
  ] as const)('%s: challenge answered %s; off-session %s, then the authenticated charge %s', async (number, answer, offSession, after) => {
    const token = await savedToken(standIn, gateway, number);
    expect(await gateway.charge(chargeOf(token, '9.00', { offSession: true }), signal)).toMatchObject({ code: offSession });
    const action = actionOf(await gateway.charge(chargeOf(token, '9.00'), signal));
    standIn.completeChallenge(action.id, answer);
    const outcome = await gateway.charge(chargeOf(token, '9.00', { authenticatedBy: action.id }), signal);
    expect(outcome).toMatchObject({ status: 'declined', code: after });
  });

  it("a capture's first payment after the save's challenge (authenticatedBy the SetupIntent) is charged on its mandate", async () => {
    const saved = actionOf(await gateway.validateCard(testCard('4000002500003155'), signal));
    standIn.completeChallenge(saved.id, 'succeed');
    const token = succeeded(await gateway.resumeCardValidation(saved.id, signal)).token;
    const first = succeeded(await gateway.charge(chargeOf(token, '15.00', { authenticatedBy: saved.id }), signal));
    expect(first.transactionId).toMatch(/^pi_/);
    expect(paymentIntentPosts().at(-1)?.body).toMatchObject({ off_session: 'true' });
    const other = await savedToken(standIn, gateway, '4242424242424242');
    expect(await gateway.charge(chargeOf(other, '15.00', { authenticatedBy: saved.id }), signal)).toMatchObject({
      code: 'authentication_unknown',
    });
  });

  it('a gateway that cannot be reached, or refuses the key, throws (the port: the gateway failed)', async () => {
    const token = await savedToken(standIn, gateway, '4242424242424242');
    const wrongKey = gatewayFor(standIn, 'sk_test_not_this_account');
    await expect(wrongKey.charge(chargeOf(token, '1.00'), signal)).rejects.toThrow();
    const closed = await stripeFixture();
    await closed.standIn.close();
    await expect(closed.gateway.charge(chargeOf(token, '1.00'), signal)).rejects.toThrow();
    // Stripe's own failure (500 api_error): thrown, after the SDK's one retry under the same key.
    const keys: Array<string | undefined> = [];
    const failing = createServer((request, response) => {
      keys.push(request.headers['idempotency-key'] as string | undefined);
      response
        .writeHead(500, { 'content-type': 'application/json' })
        .end('{"error":{"type":"api_error","message":"An unknown error occurred"}}');
    });
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    try {
      const broken = new StripeGateway({ ...settingsOf(standIn), apiBase: `http://127.0.0.1:${(failing.address() as AddressInfo).port}` });
      const request = chargeOf(token, '1.00');
      await expect(broken.charge(request, signal)).rejects.toThrow(/unknown error/);
      expect(keys).toEqual([request.idempotencyKey, request.idempotencyKey]);
    } finally {
      await new Promise((resolve) => failing.close(resolve));
    }
  });
});
