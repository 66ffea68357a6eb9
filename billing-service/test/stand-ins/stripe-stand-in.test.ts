import type Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StripeStandIn, startStripeStandIn } from './stripe/index.js';
import { customerWithCard, failureOf, pay, savedCard, sdkFor } from './stripe-sdk.js';

/** The stand-in driven by the official `stripe` SDK, the way the Stripe adapter will drive Stripe. */
describe('the Stripe stand-in: cards, SetupIntents and PaymentIntents', () => {
  let standIn: StripeStandIn;
  let stripe: Stripe;
  const returnUrl = 'https://capture.example/return?flow=checkout';

  beforeAll(async () => {
    standIn = await startStripeStandIn();
    stripe = sdkFor(standIn);
  });
  afterAll(() => standIn.close());

  it('creates and reads a customer, and answers a missing one with resource_missing', async () => {
    const created = await stripe.customers.create({ email: 'ada@example.com', name: 'Ada', metadata: { renew: 'cus_1' } });
    expect(created.id).toMatch(/^cus_/);
    const read = await stripe.customers.retrieve(created.id);
    expect(read).toMatchObject({ id: created.id, email: 'ada@example.com', name: 'Ada', metadata: { renew: 'cus_1' } });
    const missing = await failureOf(stripe.customers.retrieve('cus_nothing'));
    expect([missing.statusCode, missing.code, missing.type]).toEqual([404, 'resource_missing', 'StripeInvalidRequestError']);
  });

  it('makes a PaymentMethod from a raw card and never answers with its number', async () => {
    const { customer, paymentMethod } = await customerWithCard(stripe, '4242424242424242');
    const attached = await stripe.paymentMethods.attach(paymentMethod, { customer });
    expect(attached.customer).toBe(customer);
    const read = await stripe.paymentMethods.retrieve(paymentMethod);
    expect(read.card).toMatchObject({ brand: 'visa', last4: '4242', exp_month: 12, funding: 'credit' });
    expect(JSON.stringify(read)).not.toContain('4242424242424242');
    const wrongDigit = await failureOf(
      stripe.paymentMethods.create({ type: 'card', card: { number: '4242424242424241', exp_month: 1, exp_year: 2040 } }),
    );
    expect([wrongDigit.statusCode, wrongDigit.code]).toEqual([402, 'incorrect_number']);
    const liveCard = await failureOf(
      stripe.paymentMethods.create({ type: 'card', card: { number: '4532015112830366', exp_month: 1, exp_year: 2040 } }),
    );
    expect(liveCard.decline_code).toBe('test_mode_live_card');
  });

  it('saves a 3155 card through a challenge, then charges it off-session without one', async () => {
    const { customer, paymentMethod } = await customerWithCard(stripe, '4000002500003155');
    const setup = await stripe.setupIntents.create({
      customer,
      payment_method: paymentMethod,
      usage: 'off_session',
      confirm: true,
      return_url: returnUrl,
    });
    expect(setup.status).toBe('requires_action');
    expect(setup.next_action?.type).toBe('redirect_to_url');
    expect(setup.next_action?.redirect_to_url).toEqual({ url: `${standIn.url}/challenge/${setup.id}`, return_url: returnUrl });

    const back = new URL(standIn.completeChallenge(setup.id, 'succeed') ?? '');
    expect(back.searchParams.get('setup_intent')).toBe(setup.id);
    expect(back.searchParams.get('redirect_status')).toBe('succeeded');
    expect(back.searchParams.get('flow')).toBe('checkout');
    expect((await stripe.setupIntents.retrieve(setup.id)).status).toBe('succeeded');
    expect((await stripe.paymentMethods.retrieve(paymentMethod)).customer).toBe(customer);

    const renewal = await pay(stripe, { customer, paymentMethod }, 1999, 'eur', { off_session: true });
    expect(renewal).toMatchObject({ status: 'succeeded', amount_received: 1999, currency: 'eur' });
    expect(renewal.latest_charge).toMatch(/^ch_/);
    const onSession = await pay(stripe, { customer, paymentMethod }, 500, 'eur', { return_url: returnUrl });
    expect(onSession.status).toBe('requires_action');
  });

  it('declines an off-session 3184 payment with authentication_required, and recovers it on-session through the challenge', async () => {
    const { customer, paymentMethod } = await savedCard(standIn, stripe, '4000002760003184');
    const renewal = pay(stripe, { customer, paymentMethod }, 2500, 'eur', { off_session: true });
    const declined = await failureOf(renewal);
    expect([declined.statusCode, declined.type, declined.code, declined.decline_code]).toEqual([
      402,
      'StripeCardError',
      'authentication_required',
      'authentication_required',
    ]);
    const intentId = declined.payment_intent?.id ?? '';
    const after = await stripe.paymentIntents.retrieve(intentId);
    expect(after.status).toBe('requires_payment_method');
    expect(after.payment_method).toBeNull();
    expect(after.last_payment_error).toMatchObject({ type: 'card_error', code: 'authentication_required' });
    expect(after.last_payment_error?.payment_method?.id).toBe(paymentMethod);

    const retry = await stripe.paymentIntents.confirm(intentId, { payment_method: paymentMethod, return_url: returnUrl });
    expect(retry.status).toBe('requires_action');
    standIn.completeChallenge(intentId, 'fail');
    const failed = await stripe.paymentIntents.retrieve(intentId);
    expect([failed.status, failed.last_payment_error?.code]).toEqual(['requires_payment_method', 'payment_intent_authentication_failure']);

    await stripe.paymentIntents.confirm(intentId, { payment_method: paymentMethod, return_url: returnUrl });
    const back = new URL(standIn.completeChallenge(intentId, 'succeed') ?? '');
    expect([back.searchParams.get('payment_intent'), back.searchParams.get('redirect_status')]).toEqual([intentId, 'succeeded']);
    expect((await stripe.paymentIntents.retrieve(intentId)).status).toBe('succeeded');
  });

  it('serves the issuer page: Complete posts back and redirects to the return_url as Stripe does', async () => {
    const { customer, paymentMethod } = await customerWithCard(stripe, '4000002760003184');
    const intent = await pay(stripe, { customer, paymentMethod }, 1234, 'eur', { return_url: returnUrl });
    const page = await fetch(intent.next_action?.redirect_to_url?.url ?? '');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('12.34 eur');
    const answer = await fetch(`${standIn.url}/challenge/${intent.id}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'outcome=succeed',
      redirect: 'manual',
    });
    expect(answer.status).toBe(303);
    const back = new URL(answer.headers.get('location') ?? '');
    expect(`${back.origin}${back.pathname}`).toBe('https://capture.example/return');
    expect(back.searchParams.get('payment_intent')).toBe(intent.id);
    expect((await stripe.paymentIntents.retrieve(intent.id)).status).toBe('succeeded');
    expect((await fetch(`${standIn.url}/challenge/${intent.id}`)).status).toBe(404);
  });

  it.each([
    ['4000000000000002', 'card_declined', 'generic_decline'],
    ['4000000000009995', 'card_declined', 'insufficient_funds'],
    ['4000000000000069', 'expired_card', 'expired_card'],
    ['4000000000000127', 'incorrect_cvc', 'incorrect_cvc'],
  ])('declines %s with %s / %s, on payment and on setup', async (number, code, declineCode) => {
    const { customer, paymentMethod } = await customerWithCard(stripe, number);
    const payment = await failureOf(pay(stripe, { customer, paymentMethod }, 1000, 'usd'));
    expect([payment.statusCode, payment.code, payment.decline_code]).toEqual([402, code, declineCode]);
    expect(payment.payment_intent?.status).toBe('requires_payment_method');
    expect(payment.payment_intent?.last_payment_error?.decline_code).toBe(declineCode);
    expect(payment.charge).toMatch(/^ch_/);
    const setup = await failureOf(stripe.setupIntents.create({ customer, payment_method: paymentMethod, confirm: true }));
    expect([setup.code, setup.setup_intent?.status, setup.setup_intent?.last_setup_error?.decline_code]).toEqual([
      code,
      'requires_payment_method',
      declineCode,
    ]);
  });

  it('saves 0341 but declines its charge; authenticates 3178 and then declines it for insufficient funds', async () => {
    const saved = await savedCard(standIn, stripe, '4000000000000341');
    const renewal = await failureOf(pay(stripe, saved, 800, 'gbp', { off_session: true }));
    expect(renewal.decline_code).toBe('generic_decline');

    const { customer, paymentMethod } = await customerWithCard(stripe, '4000008260003178');
    const intent = await pay(stripe, { customer, paymentMethod }, 800, 'gbp', { return_url: returnUrl });
    expect(intent.status).toBe('requires_action');
    standIn.completeChallenge(intent.id, 'succeed');
    const after = await stripe.paymentIntents.retrieve(intent.id);
    expect([after.status, after.last_payment_error?.decline_code]).toEqual(['requires_payment_method', 'insufficient_funds']);
  });

  it('takes amounts as integers in the smallest unit: JPY has no decimals, 10.5 is no integer', async () => {
    const { customer, paymentMethod } = await customerWithCard(stripe, '4242424242424242');
    const yen = await pay(stripe, { customer, paymentMethod }, 50, 'jpy');
    expect([yen.status, yen.amount]).toEqual(['succeeded', 50]);
    const tooSmall = await failureOf(stripe.paymentIntents.create({ amount: 49, currency: 'jpy' }));
    expect([tooSmall.code, tooSmall.message]).toEqual(['amount_too_small', 'Amount must be at least 50 jpy']);
    const fraction = await failureOf(stripe.paymentIntents.create({ amount: 10.5, currency: 'eur' }));
    expect([fraction.code, fraction.param]).toEqual(['parameter_invalid_integer', 'amount']);
  });

  it('expands latest_charge and payment_method, and refuses an unknown parameter', async () => {
    const { customer, paymentMethod } = await customerWithCard(stripe, '4242424242424242');
    const paid = await pay(stripe, { customer, paymentMethod }, 700, 'eur');
    const read = await stripe.paymentIntents.retrieve(paid.id, { expand: ['latest_charge', 'payment_method'] });
    const charge = read.latest_charge as Stripe.Charge;
    expect([charge.object, charge.amount, charge.status, charge.payment_intent]).toEqual(['charge', 700, 'succeeded', paid.id]);
    expect((read.payment_method as Stripe.PaymentMethod).card?.last4).toBe('4242');
    const unknown = await failureOf(stripe.customers.create({ emial: 'typo@example.com' } as Stripe.CustomerCreateParams));
    expect([unknown.code, unknown.param]).toEqual(['parameter_unknown', 'emial']);
  });
});
