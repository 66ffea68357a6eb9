import type { ReactiveControllerHost } from 'lit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompletedCheckout } from '../src/checkout-contract.js';
import { CheckoutController, MAX_CARD_ATTEMPTS, type CheckoutStep } from '../src/checkout/checkout-controller.js';
import { SHOPPER, startCheckoutHarness, type CheckoutHarness } from './helpers/checkout-harness.js';

let h: CheckoutHarness;
beforeAll(async () => {
  h = await startCheckoutHarness();
});
afterAll(async () => h?.close());

const { address: NEW_YORK, ...PERSON } = SHOPPER;
const card = (cardNumber: string) => ({
  cardNumber,
  firstName: 'Grace',
  lastName: 'Hopper',
  expirationMonth: 12,
  expirationYear: 30,
  cvv: '123',
});
let solved = 0;
/** A dev CAPTCHA token: any non-empty token not starting with "fail" passes, once. */
const captcha = () => `dev-token-${++solved}-${Date.now()}`;

/** A controller on a stand-in for the <renew-checkout> element, recording what it reports. */
function startController(proxyUrl = h.proxyUrl) {
  const steps: CheckoutStep[] = [];
  const completions: CompletedCheckout[] = [];
  const host = {
    renders: 0,
    addController() {},
    removeController() {},
    requestUpdate() {
      host.renders++;
    },
    updateComplete: Promise.resolve(true),
  };
  const controller = new CheckoutController(host as ReactiveControllerHost, proxyUrl, {
    onStep: (step) => steps.push(step),
    onComplete: (completed) => completions.push(completed),
  });
  return { controller, steps, completions, host };
}

/** Plan, customer and New York address done, summary confirmed: the card form is shown. */
async function atCardStep(email: string, planFrequencyId = 11) {
  const started = startController();
  const { controller } = started;
  await controller.load();
  controller.choosePlan(planFrequencyId);
  controller.submitCustomer({ ...PERSON, email });
  await controller.submitAddress(NEW_YORK);
  expect(controller.state.step, JSON.stringify(controller.state.fieldErrors)).toBe('summary');
  controller.confirmSummary();
  expect(controller.state.step).toBe('card');
  return { ...started, customerId: controller.state.started!.customerId };
}

/** The bank's page the controller shows (direct mode), once the capture host has answered 202. */
async function challengeShown(controller: CheckoutController): Promise<string> {
  const deadline = Date.now() + 10_000;
  while (!controller.state.challengeUrl && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  return controller.state.challengeUrl ?? '';
}

/** The shopper's answer on the sandbox bank's page (its Complete and Fail buttons post this form). */
async function answerAtBank(challengeUrl: string, answer: 'complete' | 'fail') {
  const res = await fetch(challengeUrl, { method: 'POST', body: new URLSearchParams({ answer }) });
  expect(res.status).toBe(200);
}

const paymentsOf = async (customerId: number) =>
  (await h.billing.call('GET', `/v1/customers/${customerId}/payments`)).json() as Array<{ status: string }>;

describe('the checkout controller, driven against the real proxy, capture host and billing API', () => {
  it('takes a shopper from choosing a plan to a paid, active subscription', async () => {
    const { controller, steps, completions, host } = startController();
    await controller.load();
    expect(controller.state.step).toBe('plan');
    expect(controller.state.plans).toContainEqual(expect.objectContaining({ planFrequencyId: 11, recurringPrice: '19.99' }));
    expect(controller.state.countries).toContainEqual(expect.objectContaining({ iso: 'US' }));

    controller.choosePlan(11);
    expect(controller.state.step).toBe('customer');
    controller.submitCustomer({ ...PERSON, email: 'happy-path@example.com' });
    expect(controller.state.step).toBe('address');
    await controller.submitAddress(NEW_YORK);
    expect(controller.state.step).toBe('summary');
    expect(controller.state.summary).toMatchObject({ total: '31.19', totalTaxes: '1.20', currency: 'USD' });
    controller.confirmSummary();
    expect(controller.state.step).toBe('card');

    await controller.submitCard(card('4242424242424242'), captcha());
    expect(controller.state).toMatchObject({ step: 'done', paid: true, busy: false, failedCardAttempts: 0 });
    const customerId = controller.state.started!.customerId;
    expect(controller.state.completed).toMatchObject({
      customerId,
      status: 'Active',
      invoice: { total: '31.19', amountPaid: '31.19', status: 'Paid' },
    });
    expect(completions).toEqual([controller.state.completed]);
    expect(steps).toEqual(['plan', 'customer', 'address', 'summary', 'card', 'done']);
    expect(host.renders).toBeGreaterThan(0);
    expect((await h.billing.call('GET', `/v1/customers/${customerId}`)).json()).toMatchObject({
      status: 'Active',
      primaryEmail: 'happy-path@example.com',
    });
  });

  it('counts each declined card as a failed attempt and locks the card form after the last one, sending nothing more', async () => {
    const { controller, customerId, completions } = await atCardStep('declined@example.com');
    for (let attempt = 1; attempt <= MAX_CARD_ATTEMPTS; attempt++) {
      await controller.submitCard(card('4000000000000341'), captcha());
      expect(controller.state).toMatchObject({ step: 'card', paid: false, failedCardAttempts: attempt, captchaRound: attempt });
      expect(controller.state.message).toBe(
        attempt < MAX_CARD_ATTEMPTS
          ? 'This card could not be used. Check the details or use another card.'
          : 'This card could not be used, and no more attempts are allowed. Please contact the shop.',
      );
      expect(controller.cardLocked).toBe(attempt >= MAX_CARD_ATTEMPTS);
    }
    const declined = await paymentsOf(customerId);
    expect(declined.map((p) => p.status)).toEqual(Array(MAX_CARD_ATTEMPTS).fill('Failed'));

    // Locked: even a good card is not sent to the capture host.
    await controller.submitCard(card('4242424242424242'), captcha());
    expect(controller.state).toMatchObject({
      step: 'card',
      paid: false,
      failedCardAttempts: MAX_CARD_ATTEMPTS,
      captchaRound: MAX_CARD_ATTEMPTS,
    });
    expect(await paymentsOf(customerId)).toEqual(declined);
    expect(completions).toEqual([]);
    expect((await h.billing.call('GET', `/v1/customers/${customerId}`)).json().status).toBe('Draft');
  });

  it.each([
    [
      'declined at validation (card_declined: the generic message)',
      '4000000000000002',
      'This card could not be used. Check the details or use another card.',
    ],
    ['refused for insufficient funds', '4000000000009995', 'The card has insufficient funds. Use another card.'],
    [
      'refused at validation for its security code (incorrect_cvc)',
      '4000000000000127',
      'The security code is incorrect. Check it and try again.',
    ],
  ])('counts a card %s as a failed attempt, told by its decline code', async (_why, cardNumber, message) => {
    const { controller } = await atCardStep(`generic-${cardNumber}@example.com`);
    await controller.submitCard(card(cardNumber), captcha());
    expect(controller.state).toMatchObject({ step: 'card', failedCardAttempts: 1, message });
    expect(controller.state.fieldErrors).toEqual({});
  });

  it("with its own card inputs (direct mode), shows the bank's 3-D Secure challenge, then completes the capture and the order once the bank's page answers", async () => {
    const { controller, customerId } = await atCardStep('three-d-secure-direct@example.com');
    const paying = controller.submitCard(card('4000002760003184'), captcha());
    const challengeUrl = await challengeShown(controller);
    expect(challengeUrl).toMatch(new RegExp(`^${h.captureUrl}/sandbox/3ds/sbxauth_`));
    expect(await paymentsOf(customerId)).toEqual([]);
    await answerAtBank(challengeUrl, 'complete');
    controller.answerChallenge(true);
    await paying;
    expect(controller.state).toMatchObject({ step: 'done', paid: true, failedCardAttempts: 0 });
    expect(controller.state.challengeUrl).toBeUndefined();
    expect(await paymentsOf(customerId)).toEqual([expect.objectContaining({ status: 'Succeeded' })]);
  });

  it('direct mode: a failed or cancelled challenge is the localized error, nothing stored or charged; another card then pays', async () => {
    const { controller, customerId } = await atCardStep('three-d-secure-direct-fail@example.com');
    const failing = controller.submitCard(card('4000002760003184'), captcha());
    await answerAtBank(await challengeShown(controller), 'fail');
    controller.answerChallenge(true);
    await failing;
    expect(controller.state).toMatchObject({ step: 'card', paid: false, failedCardAttempts: 1 });
    expect(controller.state.message).toBe('Your bank did not confirm this card, so nothing was charged. Try again or use another card.');
    const cancelled = controller.submitCard(card('4000002760003184'), captcha());
    await challengeShown(controller);
    controller.answerChallenge(false);
    await cancelled;
    expect(controller.state).toMatchObject({ step: 'card', paid: false, failedCardAttempts: 2 });
    expect(await paymentsOf(customerId)).toEqual([]);
    await controller.submitCard(card('4242424242424242'), captcha());
    expect(controller.state).toMatchObject({ step: 'done', paid: true });
  });

  it('asks for the CAPTCHA again, without counting a failed card attempt, when the CAPTCHA token is refused', async () => {
    const { controller, customerId } = await atCardStep('robot-check@example.com');
    await controller.submitCard(card('4242424242424242'), 'fail-this-one');
    expect(controller.state).toMatchObject({
      step: 'card',
      failedCardAttempts: 0,
      captchaRound: 1,
      message: 'Please confirm you are not a robot, then try again.',
    });
    expect(await paymentsOf(customerId)).toEqual([]);

    // A token works once: reusing one after a decline is a CAPTCHA refusal too, not a second decline.
    const token = captcha();
    await controller.submitCard(card('4000000000000341'), token);
    expect(controller.state.failedCardAttempts).toBe(1);
    await controller.submitCard(card('4242424242424242'), token);
    expect(controller.state).toMatchObject({
      step: 'card',
      failedCardAttempts: 1,
      captchaRound: 3,
      message: 'Please confirm you are not a robot, then try again.',
    });

    await controller.submitCard(card('4242424242424242'), captcha());
    expect(controller.state.step).toBe('done');
    expect(controller.state.completed?.invoice?.status).toBe('Paid');
  });

  it('shows the checkout as unavailable, and reports that step, when the proxy cannot serve it (a wrong private key on the shop server)', async () => {
    const { url } = await h.buildShop({ apiKey: 'a-revoked-key' });
    const { controller, steps } = startController(url);
    await controller.load();
    expect(controller.state).toMatchObject({
      step: 'unavailable',
      plans: [],
      message: 'The checkout is not available right now. Please try again later.',
    });
    controller.choosePlan(11);
    expect(controller.state.step).toBe('unavailable');
    // onStep backs the element's renew-checkout-step event, documented "on every step change".
    expect(steps).toEqual(['unavailable']);
  });

  it('sends the shopper back to the customer step with the error on the e-mail when the proxy refuses it', async () => {
    const { controller, steps } = startController();
    await controller.load();
    controller.choosePlan(11);
    controller.submitCustomer({ ...PERSON, email: 'grace-at-example.com' });
    await controller.submitAddress(NEW_YORK);
    expect(controller.state.step).toBe('customer');
    expect(controller.state.fieldErrors).toEqual({ email: expect.stringMatching(/e-mail/) });
    expect(controller.state.started).toBeUndefined();
    expect(steps).toEqual(['plan', 'customer', 'address', 'customer']);

    controller.submitCustomer({ ...PERSON, email: 'grace@example.com' });
    expect(controller.state.fieldErrors).toEqual({});
    await controller.submitAddress(NEW_YORK);
    expect(controller.state.step).toBe('summary');
  });

  it('starts a new Draft customer, with a summary for the new plan, when the shopper changes the plan after the summary', async () => {
    const { controller } = startController();
    await controller.load();
    controller.choosePlan(11);
    controller.submitCustomer({ ...PERSON, email: 'changes-mind@example.com' });
    await controller.submitAddress(NEW_YORK);
    const first = controller.state.started!.customerId;
    expect(controller.state.summary).toMatchObject({ customerId: first, total: '31.19' });

    // Back to the address and on again with nothing changed: the same customer.
    controller.back();
    await controller.submitAddress(NEW_YORK);
    expect(controller.state.started!.customerId).toBe(first);

    controller.back();
    controller.back();
    controller.back();
    expect(controller.state.step).toBe('plan');
    controller.choosePlan(12);
    controller.submitCustomer({ ...PERSON, email: 'changes-mind@example.com' });
    await controller.submitAddress(NEW_YORK);
    expect(controller.state.step, JSON.stringify(controller.state)).toBe('summary');
    const second = controller.state.started!.customerId;
    expect(second).not.toBe(first);
    expect(controller.state.summary).toMatchObject({ customerId: second, subtotal: '199.00', total: '206.96' });

    const planOf = async (customerId: number) =>
      ((await h.billing.call('GET', `/v1/customers/${customerId}/subscriptions`)).json() as Array<{ planFrequency: { id: number } }>).map(
        (s) => s.planFrequency.id,
      );
    expect(await planOf(first)).toEqual([11]);
    expect(await planOf(second)).toEqual([12]);
    expect((await h.billing.call('GET', `/v1/customers/${second}`)).json().status).toBe('Draft');
  });
});
