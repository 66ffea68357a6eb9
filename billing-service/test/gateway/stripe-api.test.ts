import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StripeGateway } from '../../src/gateway/stripe/stripe-gateway.js';
import { settlePendingRefunds } from '../../src/refunds/settlement-worker.js';
import { cardBody, newCustomer } from '../helpers/api-fixtures.js';
import { errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';
import { type StripeStandIn, startStripeStandIn } from '../stand-ins/stripe/index.js';
import { settingsOf } from './stripe-fixture.js';

/** Loses Stripe's answer to a refund once: after Stripe paid it back, or before the request left. */
class LosingStripe extends StripeGateway {
  lose: 'after' | 'before' | null = null;

  override async refund(request: Parameters<StripeGateway['refund']>[0]) {
    const lose = this.lose;
    this.lose = null;
    if (lose === 'before') throw new Error('connection reset before the refund');
    const outcome = await super.refund(request);
    if (lose === 'after') throw new Error('connection reset after the refund');
    return outcome;
  }
}

/** The billing API on a real database with RENEW_GATEWAY=stripe (the stand-in): cards, payments, refunds and their settlement. */
describe('the billing API with the Stripe gateway', () => {
  let standIn: StripeStandIn;
  let gateway: LosingStripe;
  let t: TestApp;

  beforeAll(async () => {
    standIn = await startStripeStandIn();
    gateway = new LosingStripe(settingsOf(standIn));
    t = await startTestApp({ app: { gateway, refundSettlement: false } });
  });
  afterAll(async () => {
    await t?.close();
    await standIn?.close();
  });

  async function customerWithCard(cardNumber: string) {
    const customerId = await newCustomer(t, {});
    const res = await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...cardBody({ cardNumber }), isDefault: true });
    return { customerId, res };
  }

  /** A payment with the customer's stored card, through the private API (merchant-initiated: off-session). */
  function pay(card: Awaited<ReturnType<typeof customerWithCard>>, amount: number) {
    return t.call('POST', '/v1/payments', {
      customerId: card.customerId,
      amount,
      paymentMethod: 'CreditCard',
      paymentMethodId: card.res.json().id,
    });
  }

  it('stores a card saved at Stripe and charges it off-session; a 3184 card is refused here (authentication_required)', async () => {
    const card = await customerWithCard('4242424242424242');
    const { res } = card;
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().externalCardId).toMatch(/^cus_\w+\/pm_\w+$/);
    const paid = await pay(card, 42.5);
    expect(paid.statusCode, paid.body).toBe(200);
    expect(standIn.requests.filter((r) => r.path === '/v1/payment_intents').at(-1)?.body).toMatchObject({
      amount: '4250',
      off_session: 'true',
    });
    const challenged = await customerWithCard('4000002760003184');
    expect(challenged.res.statusCode).toBe(400);
    expect(errorsOf(challenged.res)[0]?.Code).toBe('authentication_required');
  });

  it("records Stripe's decline as a failed payment with Renew's decline code", async () => {
    const card = await customerWithCard('4000000000000341');
    const { res } = card;
    expect(res.statusCode, res.body).toBe(200);
    const paid = await pay(card, 10);
    expect(paid.statusCode, paid.body).toBe(402);
    expect(errorsOf(paid).find((e) => e.Key === 'declineCode')?.Value).toBe('card_declined');
  });

  it('settles refunds whose answer was lost: Succeeded when Stripe paid it back (found by its key), Failed when it never got it', async () => {
    const paid = await pay(await customerWithCard('4242424242424242'), 50);
    const paymentId = paid.json().id as number;
    gateway.lose = 'after';
    expect((await t.call('POST', '/v1/refunds', { originalPaymentId: paymentId, amount: 20 })).statusCode).toBe(502);
    gateway.lose = 'before';
    expect((await t.call('POST', '/v1/refunds', { originalPaymentId: paymentId, amount: 5 })).statusCode).toBe(502);
    expect(await settlePendingRefunds(t.app.ctx, t.app.log, 0)).toBeGreaterThanOrEqual(2);
    const refunds = (await t.call('GET', `/v1/payments/${paymentId}/refunds`)).json() as Array<Record<string, unknown>>;
    expect(refunds.map((r) => [r.amount, r.status, r.declineCode])).toEqual([
      [20, 'Succeeded', null],
      [5, 'Failed', 'refund_not_received'],
    ]);
    expect((await t.call('GET', `/v1/payments/${paymentId}`)).json()).toMatchObject({ refundedAmount: 20, refundableAmount: 30 });
    const full = await t.call('POST', '/v1/refunds', { originalPaymentId: paymentId, amount: 30 });
    expect(full.statusCode, full.body).toBe(200);
    const atStripe = standIn.requests.filter((r) => r.method === 'POST' && r.path === '/v1/refunds' && !r.replayed && r.status === 200);
    expect(atStripe.map((r) => r.body.amount).slice(-2)).toEqual(['2000', '3000']);
  });
});
