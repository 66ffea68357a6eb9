import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIVATION_FLAGS, activate, newCustomer, newSubscription } from '../../billing-service/test/helpers/api-fixtures.js';
import type { StripeStandIn } from '../../billing-service/test/stand-ins/stripe/index.js';
import { freshIp, type CaptureTest } from './helpers/capture-test.js';
import { answerAtStripe as answerAtStripeFor, startStripeCaptureTest } from './helpers/stripe-capture-test.js';

/**
 * A renewal on Stripe whose bank wants the customer (4000 0027 6000 3184, issue 37): Stripe declines the off-session
 * PaymentIntent `authentication_required`; the payment waits for the customer (RequiresAction), who pays it in the
 * portal through Stripe's challenge: the same payment, charged once.
 */
const DAY = 86_400_000;
let standIn: StripeStandIn;
let t: CaptureTest;
let app: FastifyInstance;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ standIn, t, app, close } = await startStripeCaptureTest({ testClocks: true }));
}, 60_000);
afterAll(() => close?.());

function monthsAhead(months: number, day: number): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + months, day, 12));
}

/** The shopper completes Stripe's challenge, and is back on the capture host's return page. */
async function answerAtStripe(challengeUrl: string) {
  const page = await answerAtStripeFor(app, challengeUrl, 'succeed');
  expect(page.body).toContain('"answer":"complete"');
}

describe('a renewal on Stripe that needs the customer', () => {
  it('waits as RequiresAction; the customer pays that same payment in the portal through Stripe, once', async () => {
    const account = await t.billing.newAccount();
    const call = (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) => t.billing.call(method, url, body, { as: account });
    expect((await call('POST', '/v1/testclock/advance', { to: monthsAhead(2, 10).toISOString() })).statusCode).toBe(200);
    const customerId = await newCustomer(t.billing, { primaryEmail: `stripe.renewal.${account.accountId}@example.com` }, account);
    await newSubscription(t.billing, customerId, undefined, account);
    // The card saved through Stripe's challenge (a SetupIntent), as the checkout saves it.
    const captured = await t.post(t.params(customerId, { cardNumber: '4000002760003184', publicApiKey: account.publicApiKey }), { app });
    expect(captured.statusCode, captured.body).toBe(202);
    await answerAtStripe(captured.json().challengeUrl);
    const saved = await app.inject({
      method: 'POST',
      url: `/api/paymentsv2/authentications/${captured.json().id}`,
      remoteAddress: freshIp(),
    });
    expect(saved.statusCode, saved.body).toBe(200);

    const setting = (await call('GET', `/v1/customerbillingsetting/${customerId}`)).json();
    expect((await call('PUT', '/v1/customerbillingsetting', { ...setting, autoCollect: true })).statusCode).toBe(200);
    expect((await activate(t.billing, customerId, ACTIVATION_FLAGS, '', account)).statusCode).toBe(200);
    const [first] = (await call('GET', `/v1/customers/${customerId}/invoices`)).json();
    expect((await call('POST', '/v1/payments', { customerId, amount: first.outstandingBalance, paymentMethod: 'Cash' })).statusCode).toBe(
      200,
    );
    await call('POST', '/v1/testclock/advance', { to: new Date(monthsAhead(3, 10).getTime() + DAY).toISOString() });

    const card = () =>
      call('GET', `/v1/customers/${customerId}/payments`).then((r) =>
        (r.json() as Array<Record<string, any>>).filter((p) => p.paymentMethod === 'CreditCard'),
      );
    const waiting = (await card()).filter((p) => p.status === 'RequiresAction');
    expect(waiting).toEqual([expect.objectContaining({ declineCode: 'authentication_required' })]);

    const session = await call('POST', '/v1/portalSessions', { customerId, flow: 'authenticatePayment' });
    expect(session.statusCode, session.body).toBe(200);
    const opened = await app.inject({
      method: 'POST',
      url: '/portal/open',
      remoteAddress: freshIp(),
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ token: new URLSearchParams(new URL(session.json().url).hash.slice(1)).get('token'), confirmed: true }),
    });
    expect(opened.statusCode, opened.body).toBe(200);
    const headers = {
      cookie: String(opened.headers['set-cookie']).split(';')[0] ?? '',
      'x-portal-csrf': opened.json().csrfToken,
      'content-type': 'application/json',
    };
    const authenticate = (body: unknown) =>
      app.inject({
        method: 'POST',
        url: `/portal/api/payments/${waiting[0]?.paymentActivityId}/authenticate`,
        remoteAddress: freshIp(),
        headers,
        payload: JSON.stringify(body),
      });
    const asked = await authenticate({});
    expect(asked.statusCode, asked.body).toBe(202);
    expect(asked.json().challengeUrl).toMatch(new RegExp(`^${standIn.url}/challenge/pi_\\w+$`));
    await answerAtStripe(asked.json().challengeUrl);
    const paid = await authenticate({ authenticatedBy: asked.json().authenticationId });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json()).toMatchObject({ paymentActivityId: waiting[0]?.paymentActivityId, status: 'Succeeded' });
    expect((await authenticate({ authenticatedBy: asked.json().authenticationId })).json().status).toBe('Succeeded');

    const invoices = (await call('GET', `/v1/customers/${customerId}/invoices`)).json() as Array<{ outstandingBalance: number }>;
    expect(invoices.map((i) => i.outstandingBalance)).toEqual([0, 0]);
    expect((await card()).filter((p) => p.status === 'Succeeded')).toHaveLength(1);
    // Charged once at Stripe: one succeeded PaymentIntent, the one the payment names.
    const succeeded = standIn
      .events()
      .filter((e) => e.type === 'payment_intent.succeeded' && e.data.object.id === asked.json().authenticationId);
    expect(succeeded).toHaveLength(1);
  });
});
