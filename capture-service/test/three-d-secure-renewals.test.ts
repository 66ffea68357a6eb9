import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIVATION_FLAGS, activate, newCustomer, newSubscription } from '../../billing-service/test/helpers/api-fixtures.js';
import { errorsOf, freshIp, inject, startCaptureTest, type CaptureTest } from './helpers/capture-test.js';

/**
 * Renewals of cards saved with 3-D Secure (issue 37), through the billing clock on a test clock: a
 * renewal is merchant-initiated, off-session, on the mandate of the authenticated save.
 */
let t: CaptureTest;
let app: FastifyInstance;
beforeAll(async () => {
  t = await startCaptureTest({ billing: { testClocks: true, webhookWorker: false } });
  app = await t.build({ testClocks: true });
}, 60_000);
afterAll(() => t?.close());

const DAY = 86_400_000;
function monthsAhead(months: number, day: number): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + months, day, 12));
}

/** An Active customer on Basic monthly, collecting automatically, whose card was saved through its bank's challenge; the first invoice paid in cash. */
async function activeWithAuthenticatedCard(cardNumber: string) {
  const account = await t.billing.newAccount();
  const call = (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) => t.billing.call(method, url, body, { as: account });
  expect((await call('POST', '/v1/testclock/advance', { to: monthsAhead(2, 10).toISOString() })).statusCode).toBe(200);
  const customerId = await newCustomer(t.billing, { primaryEmail: `renewal.${account.accountId}@example.com` }, account);
  await newSubscription(t.billing, customerId, undefined, account);

  const captured = await inject(app, t.params(customerId, { cardNumber, publicApiKey: account.publicApiKey }));
  expect(captured.statusCode, captured.body).toBe(202);
  await answer(captured.json().challengeUrl, 'complete');
  const stored = await app.inject({
    method: 'POST',
    url: `/api/paymentsv2/authentications/${captured.json().id}`,
    remoteAddress: freshIp(),
  });
  expect(stored.statusCode, stored.body).toBe(200);

  const setting = (await call('GET', `/v1/customerbillingsetting/${customerId}`)).json();
  expect((await call('PUT', '/v1/customerbillingsetting', { ...setting, autoCollect: true })).statusCode).toBe(200);
  expect((await activate(t.billing, customerId, ACTIVATION_FLAGS, '', account)).statusCode).toBe(200);
  const [first] = (await call('GET', `/v1/customers/${customerId}/invoices`)).json();
  const paid = await call('POST', '/v1/payments', { customerId, amount: first.outstandingBalance, paymentMethod: 'Cash' });
  expect(paid.statusCode, paid.body).toBe(200);
  // A month on: the renewal is billed and collected by the billing clock.
  expect((await call('POST', '/v1/testclock/advance', { to: new Date(monthsAhead(3, 10).getTime() + DAY).toISOString() })).statusCode).toBe(
    200,
  );
  const invoices = (await call('GET', `/v1/customers/${customerId}/invoices`)).json() as Array<{ outstandingBalance: number }>;
  const payments = (await call('GET', `/v1/customers/${customerId}/payments`)).json() as Array<Record<string, unknown>>;
  return { account, customerId, call, invoices, cardPayments: payments.filter((p) => p.paymentMethod === 'CreditCard') };
}

/** The customer's browser in a portal session the shop opened (the recovery flow a payment e-mail links to). */
async function portalOf(call: Awaited<ReturnType<typeof activeWithAuthenticatedCard>>['call'], customerId: number) {
  const session = await call('POST', '/v1/portalSessions', { customerId, flow: 'paymentMethodUpdate' });
  expect(session.statusCode, session.body).toBe(200);
  const opened = await app.inject({
    method: 'POST',
    url: '/portal/open',
    remoteAddress: freshIp(),
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ token: new URL(session.json().url).searchParams.get('token') }),
  });
  expect(opened.statusCode, opened.body).toBe(200);
  const headers = {
    cookie: String(opened.headers['set-cookie']).split(';')[0] ?? '',
    'x-portal-csrf': opened.json().csrfToken,
    'content-type': 'application/json',
  };
  return (body: unknown = {}) =>
    app.inject({ method: 'POST', url: '/portal/api/pay', remoteAddress: freshIp(), headers, payload: JSON.stringify(body) });
}

async function answer(challengeUrl: string, choice: 'complete' | 'fail') {
  const res = await app.inject({
    method: 'POST',
    url: new URL(challengeUrl).pathname,
    remoteAddress: freshIp(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `answer=${choice}`,
  });
  expect(res.statusCode).toBe(200);
}

describe('renewals of a card saved through its bank', () => {
  it('4000 0025 0000 3155, authenticated once at the save, renews off-session with no challenge: the renewal is paid', async () => {
    const { invoices, cardPayments } = await activeWithAuthenticatedCard('4000002500003155');
    expect(invoices).toHaveLength(2);
    expect(invoices.map((i) => i.outstandingBalance)).toEqual([0, 0]);
    expect(cardPayments).toEqual([expect.objectContaining({ status: 'Succeeded' })]);
  });

  it('4000 0027 6000 3184 asks again at renewal: the payment fails authentication_required, the invoice stays open, nothing is charged', async () => {
    const { invoices, cardPayments } = await activeWithAuthenticatedCard('4000002760003184');
    expect(invoices).toHaveLength(2);
    expect(invoices.filter((i) => i.outstandingBalance > 0)).toHaveLength(1);
    expect(cardPayments.length).toBeGreaterThan(0);
    for (const payment of cardPayments) expect(payment).toMatchObject({ status: 'Failed', declineCode: 'authentication_required' });
  });

  it('the customer then pays the renewal in the portal through their bank: the challenge, then the payment, once; a failed challenge charges nothing', async () => {
    const { customerId, call } = await activeWithAuthenticatedCard('4000002760003184');
    const pay = await portalOf(call, customerId);
    const first = await pay();
    expect(first.statusCode, first.body).toBe(202);
    expect(first.json()).toMatchObject({ status: 'RequiresAction', authenticationId: expect.stringMatching(/^sbxauth_/) });
    expect(first.json().challengeUrl).toMatch(/^http:\/\/[^/]+\/sandbox\/3ds\/sbxauth_/);
    // Failed at the bank: asked again, nothing charged.
    await answer(first.json().challengeUrl, 'fail');
    const refused = await pay({ authenticatedBy: first.json().authenticationId });
    expect(refused.statusCode).toBe(202);
    const succeededBefore = (await call('GET', `/v1/customers/${customerId}/payments`))
      .json()
      .filter((p: { status: string }) => p.status === 'Succeeded');
    // A challenge that is not this card's (or not answered) authorises nothing: asked again.
    expect((await pay({ authenticatedBy: 'sbxauth_forged' })).statusCode).toBe(202);
    // Confirmed at the bank: the same payment goes through, and every invoice is paid.
    await answer(refused.json().challengeUrl, 'complete');
    const paid = await pay({ authenticatedBy: refused.json().authenticationId });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json()).toMatchObject({ status: 'Succeeded', paymentMethod: 'CreditCard', source: 'SelfServicePortal' });
    const invoices = (await call('GET', `/v1/customers/${customerId}/invoices`)).json() as Array<{ outstandingBalance: number }>;
    expect(invoices.map((i) => i.outstandingBalance)).toEqual([0, 0]);
    const succeeded = (await call('GET', `/v1/customers/${customerId}/payments`))
      .json()
      .filter((p: { status: string }) => p.status === 'Succeeded');
    expect(succeeded).toHaveLength(succeededBefore.length + 1);
    // Paid once: asking again finds nothing owed.
    const again = await pay({ authenticatedBy: refused.json().authenticationId });
    expect(again.statusCode).toBe(400);
    expect(errorsOf(again)[0]?.Code).toBe('state_conflict');
  });
});
