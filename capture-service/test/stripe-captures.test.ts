import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { StripeStandIn } from '../../billing-service/test/stand-ins/stripe/index.js';
import { errorsOf, freshIp, type CaptureTest } from './helpers/capture-test.js';
import { answerAtStripe as answerAtStripeFor, startStripeCaptureTest } from './helpers/stripe-capture-test.js';

/**
 * Captures with RENEW_GATEWAY=stripe against the Stripe stand-in (issue 37): the card is saved at Stripe server to
 * server; a bank's challenge is Stripe's page, which sends the browser back to the capture host's return page, whose
 * `renew-3ds` message lets the card fields complete the capture.
 */
let standIn: StripeStandIn;
let t: CaptureTest;
let app: FastifyInstance;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ standIn, t, app, close } = await startStripeCaptureTest());
});
afterAll(() => close?.());

async function paymentsOf(customerId: number) {
  const res = await t.billing.call('GET', `/v1/customers/${customerId}/payments`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Array<Record<string, any>>;
}

const answerAtStripe = (challengeUrl: string, outcome: 'succeed' | 'fail') => answerAtStripeFor(app, challengeUrl, outcome);

function complete(id: string) {
  return app.inject({ method: 'POST', url: `/api/paymentsv2/authentications/${id}`, remoteAddress: freshIp() });
}

describe('captures with the Stripe gateway', () => {
  it('saves a 4242 card at Stripe and takes its first payment: the payment names the PaymentIntent', async () => {
    const customerId = await t.customer();
    const res = await t.post(t.params(customerId, { paymentCollectOptions: { collectionAmount: '12.34' } }), { app });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ customerId, maskedCardNumber: '************4242', isDefault: true });
    expect(res.json().externalCardId).toMatch(/^cus_\w+\/pm_\w+$/);
    const [payment] = await paymentsOf(customerId);
    expect(payment).toMatchObject({ status: 'Succeeded', amount: 12.34 });
    const charged = standIn.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payment_intents').at(-1);
    expect(charged?.body).toMatchObject({ amount: '1234', off_session: 'false' });
    const intent = [...standIn.events()].reverse().find((e) => e.type === 'payment_intent.succeeded')?.data.object.id;
    const stored = await t.billing.database.db
      .selectFrom('payments')
      .select('gatewayTransactionId')
      .where('id', '=', payment?.id)
      .executeTakeFirst();
    expect(stored?.gatewayTransactionId).toBe(intent);
    expect(intent).toMatch(/^pi_/);
  });

  it('3184: answers 202 with the challenge at Stripe; its return page tells the card fields; completing stores the card', async () => {
    const customerId = await t.customer();
    const started = await t.post(t.params(customerId, { cardNumber: '4000002760003184' }), { app });
    expect(started.statusCode, started.body).toBe(202);
    const { id, challengeUrl } = started.json() as { id: string; challengeUrl: string };
    expect(challengeUrl).toMatch(new RegExp(`^${standIn.url}/challenge/seti_\\w+$`));
    expect((await complete(id)).statusCode).toBe(409);

    const page = await answerAtStripe(challengeUrl, 'succeed');
    expect(page.statusCode).toBe(200);
    const intentId = challengeUrl.split('/').at(-1);
    expect(page.body).toContain(`{"type":"renew-3ds","id":"${intentId}","answer":"complete"}`);
    expect(page.headers['content-security-policy']).toMatch(/script-src 'nonce-/);

    const done = await complete(id);
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ customerId, maskedCardNumber: '************3184' });
    expect(done.json().externalCardId).toMatch(/^cus_\w+\/pm_\w+$/);
  });

  it('3155 with a first payment: after the challenge the payment is taken on the new mandate, once', async () => {
    const customerId = await t.customer();
    const params = t.params(customerId, { cardNumber: '4000002500003155', paymentCollectOptions: { collectionAmount: '20.00' } });
    const started = await t.post(params, { app });
    expect(started.statusCode, started.body).toBe(202);
    await answerAtStripe(started.json().challengeUrl, 'succeed');
    const done = await complete(started.json().id);
    expect(done.statusCode, done.body).toBe(200);
    expect(Number(done.headers['renew-payment-id'])).toBeGreaterThan(0);
    expect((await complete(started.json().id)).statusCode).toBe(200);
    expect(await paymentsOf(customerId)).toEqual([expect.objectContaining({ status: 'Succeeded', amount: 20 })]);
  });

  it("3184 with a first payment: the card's challenge, then (202 again) the payment's own, then the card stored and the payment taken once", async () => {
    const customerId = await t.customer();
    const params = t.params(customerId, { cardNumber: '4000002760003184', paymentCollectOptions: { collectionAmount: '31.19' } });
    const started = await t.post(params, { app });
    expect(started.statusCode, started.body).toBe(202);
    await answerAtStripe(started.json().challengeUrl, 'succeed');
    // This card's bank asks for every payment: the first payment's challenge, under the same capture id.
    const again = await complete(started.json().id);
    expect(again.statusCode, again.body).toBe(202);
    expect(again.json()).toMatchObject({ id: started.json().id, status: 'RequiresAction' });
    expect(again.json().challengeUrl).toMatch(new RegExp(`^${standIn.url}/challenge/pi_\\w+$`));
    expect(await paymentsOf(customerId)).toEqual([]);
    await answerAtStripe(again.json().challengeUrl, 'succeed');
    const done = await complete(started.json().id);
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ customerId, maskedCardNumber: '************3184' });
    expect(await paymentsOf(customerId)).toEqual([expect.objectContaining({ status: 'Succeeded', amount: 31.19 })]);
    const intent = again.json().challengeUrl.split('/').at(-1);
    const stored = await t.billing.database.db
      .selectFrom('payments')
      .select('gatewayTransactionId')
      .where('customerId', '=', customerId)
      .execute();
    expect(stored).toEqual([{ gatewayTransactionId: intent }]);
  });

  it('a failed challenge: the return page says so, and the capture fails with nothing stored or charged', async () => {
    const customerId = await t.customer();
    const started = await t.post(
      t.params(customerId, { cardNumber: '4000002760003184', paymentCollectOptions: { collectionAmount: '5.00' } }),
      {
        app,
      },
    );
    expect(started.statusCode, started.body).toBe(202);
    const page = await answerAtStripe(started.json().challengeUrl, 'fail');
    expect(page.body).toContain('"answer":"fail"');
    const failed = await complete(started.json().id);
    expect(failed.statusCode).toBe(400);
    expect(errorsOf(failed)[0]?.Code).toBe('authentication_failed');
    expect(await paymentsOf(customerId)).toEqual([]);
  });

  it("frames Stripe's 3-D Secure pages in the card fields and the portal: https, and the stand-in's own origin", async () => {
    const fields = await app.inject({
      method: 'GET',
      url: `/hosted/card-fields?origin=${encodeURIComponent('https://shop.example.com')}`,
      remoteAddress: freshIp(),
    });
    expect(fields.statusCode, fields.body).toBe(200);
    expect(fields.headers['content-security-policy']).toContain(`frame-src 'self' https: ${standIn.url}`);
    const portal = await app.inject({ method: 'GET', url: '/portal/sign-in', remoteAddress: freshIp() });
    expect(portal.headers['content-security-policy']).toContain(`frame-src 'self' https: ${standIn.url};`);
  });

  it("the return page takes only an intent's id, and the sandbox's issuer page is not served", async () => {
    const hostile = await app.inject({
      method: 'GET',
      url: '/api/gateway/stripe/return?payment_intent=pi_1%3C/script%3E&redirect_status=succeeded',
      remoteAddress: freshIp(),
    });
    expect(hostile.statusCode).toBe(400);
    expect(hostile.body).not.toContain('renew-3ds');
    expect((await app.inject({ method: 'GET', url: '/sandbox/3ds/sbxauth_1', remoteAddress: freshIp() })).statusCode).toBe(404);
    // With the sandbox gateway (the default app) there is no Stripe return page.
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/gateway/stripe/return?setup_intent=seti_1', remoteAddress: freshIp() })).statusCode,
    ).toBe(404);
  });
});
