import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIVATION_FLAGS, activate, newCustomer, newSubscription } from '../../billing-service/test/helpers/api-fixtures.js';
import { startSmtpStandIn } from '../../billing-service/test/helpers/smtp-stand-in.js';
import { errorsOf, freshIp, inject, startCaptureTest, type CaptureTest } from './helpers/capture-test.js';

/**
 * Renewals of cards saved with 3-D Secure (issue 37), through the billing clock on a test clock: a
 * renewal is merchant-initiated, off-session, on the mandate of the authenticated save.
 */
let t: CaptureTest;
let app: FastifyInstance;
let smtp: Awaited<ReturnType<typeof startSmtpStandIn>>;
beforeAll(async () => {
  smtp = await startSmtpStandIn();
  t = await startCaptureTest({
    billing: {
      testClocks: true,
      webhookWorker: false,
      webhooks: { allowHttp: true, allowPrivate: true },
      email: { smtpUrl: smtp.url, from: 'billing@shop.test', pollMs: 20, retryBaseMs: 50 },
    },
  });
  app = await t.build({ testClocks: true });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

const DAY = 86_400_000;
function monthsAhead(months: number, day: number): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + months, day, 12));
}

/** An Active customer on Basic monthly, collecting automatically, whose card was saved through its bank's challenge; the first invoice paid in cash. */
async function activeWithAuthenticatedCard(cardNumber: string, options: { language?: string; daysAfterRenewal?: number } = {}) {
  const account = await t.billing.newAccount();
  const call = (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) => t.billing.call(method, url, body, { as: account });
  expect((await call('POST', '/v1/webhookEndpoints', { url: 'http://127.0.0.1:9/renew', eventTypes: ['*'] })).statusCode).toBe(200);
  expect((await call('POST', '/v1/testclock/advance', { to: monthsAhead(2, 10).toISOString() })).statusCode).toBe(200);
  const email = `renewal.${account.accountId}@example.com`;
  const customerId = await newCustomer(
    t.billing,
    { primaryEmail: email, ...(options.language ? { language: options.language } : {}) },
    account,
  );
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
  const grace = { customerGracePeriod: 3, gracePeriodExtension: 0, customerAutoCancel: 30 };
  expect((await call('PUT', '/v1/customerbillingsetting', { ...setting, ...grace, autoCollect: true })).statusCode).toBe(200);
  expect((await activate(t.billing, customerId, ACTIVATION_FLAGS, '', account)).statusCode).toBe(200);
  const [first] = (await call('GET', `/v1/customers/${customerId}/invoices`)).json();
  const paid = await call('POST', '/v1/payments', { customerId, amount: first.outstandingBalance, paymentMethod: 'Cash' });
  expect(paid.statusCode, paid.body).toBe(200);
  // A month on: the renewal is billed and collected by the billing clock.
  const after = new Date(monthsAhead(3, 10).getTime() + (options.daysAfterRenewal ?? 1) * DAY);
  expect((await call('POST', '/v1/testclock/advance', { to: after.toISOString() })).statusCode).toBe(200);
  const invoices = (await call('GET', `/v1/customers/${customerId}/invoices`)).json() as Array<{ outstandingBalance: number }>;
  const payments = (await call('GET', `/v1/customers/${customerId}/payments`)).json() as Array<Record<string, unknown>>;
  return { account, customerId, email, call, invoices, cardPayments: payments.filter((p) => p.paymentMethod === 'CreditCard') };
}

/** The customer's browser in the portal, opened from a link's token: calls its JSON API with the session's cookie. */
async function portalFrom(token: string | null) {
  const opened = await app.inject({
    method: 'POST',
    url: '/portal/open',
    remoteAddress: freshIp(),
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ token, confirmed: true }),
  });
  expect(opened.statusCode, opened.body).toBe(200);
  const headers = {
    cookie: String(opened.headers['set-cookie']).split(';')[0] ?? '',
    'x-portal-csrf': opened.json().csrfToken,
    'content-type': 'application/json',
  };
  const api = (method: 'GET' | 'POST', url: string, body: unknown = {}) =>
    app.inject({ method, url, remoteAddress: freshIp(), headers, ...(method === 'POST' ? { payload: JSON.stringify(body) } : {}) });
  return { opened: opened.json(), api, pay: (body: unknown = {}) => api('POST', '/portal/api/pay', body) };
}

/** A portal session the shop opened for the customer (the recovery flow a payment e-mail links to). */
async function portalOf(call: Awaited<ReturnType<typeof activeWithAuthenticatedCard>>['call'], customerId: number) {
  const session = await call('POST', '/v1/portalSessions', { customerId, flow: 'paymentMethodUpdate' });
  expect(session.statusCode, session.body).toBe(200);
  return portalFrom(new URLSearchParams(new URL(session.json().url).hash.slice(1)).get('token'));
}

/** The mails to an address whose subject matches, once there are `count` of them (or after 30 s: the caller's count then fails). */
async function mailsMatching(address: string, subject: RegExp, count: number) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const mails = smtp.received.filter((m) => m.to.includes(address) && subject.test(m.subject));
    if (mails.length >= count || Date.now() > deadline) return mails;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The customer's webhook events, oldest first. */
async function eventsOf(customerId: number) {
  const rows = await t.billing.database.db
    .selectFrom('webhookEvents')
    .select(['eventType', 'payload'])
    .where('customerId', '=', customerId)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ type: r.eventType, id: (r.payload as { data?: { paymentActivityId?: number } }).data?.paymentActivityId }));
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

  it('4000 0027 6000 3184 asks again at renewal: the payment waits for the customer (RequiresAction), nothing is charged, the invoice stays open; payment.requiresAction and an AuthenticationRequired e-mail', async () => {
    const { customerId, email, invoices, cardPayments } = await activeWithAuthenticatedCard('4000002760003184');
    expect(invoices).toHaveLength(2);
    expect(invoices.filter((i) => i.outstandingBalance > 0)).toHaveLength(1);
    // Each day's attempt waits for the customer; a later one replaces (fails) the earlier.
    const waiting = cardPayments.filter((p) => p.status === 'RequiresAction');
    expect(waiting).toEqual([expect.objectContaining({ declineCode: 'authentication_required' })]);
    for (const payment of cardPayments.filter((p) => p.status !== 'RequiresAction'))
      expect(payment).toMatchObject({ status: 'Failed', declineCode: 'authentication_required' });
    const events = await eventsOf(customerId);
    expect(events.filter((e) => e.type === 'payment.requiresAction')).toHaveLength(cardPayments.length);
    const cardIds = cardPayments.map((p) => p.paymentActivityId);
    expect(events.filter((e) => (e.type === 'payment.succeeded' || e.type === 'payment.failed') && cardIds.includes(e.id))).toEqual([]);
    const mails = await mailsMatching(email, /confirm your payment/, cardPayments.length);
    expect(mails).toHaveLength(cardPayments.length);
    expect(mails[0]?.html).toContain('3-D Secure');
    expect(mails[0]?.text).toMatch(/Confirm your payment: http\S+token=/);
  });

  it("the e-mail's link (in French) opens the portal's authenticatePayment flow: through the bank's challenge the waiting payment is paid, once, and the Suspended customer is Active at once", async () => {
    const { customerId, email, call, cardPayments } = await activeWithAuthenticatedCard('4000002760003184', {
      language: 'fr',
      daysAfterRenewal: 6,
    });
    expect((await call('GET', `/v1/customers/${customerId}`)).json().status).toBe('Suspended');
    const mails = await mailsMatching(email, /confirmez votre paiement/, cardPayments.length);
    // One per day's attempt, each link working until it expires: the newest opens the portal.
    expect(mails).toHaveLength(cardPayments.length);
    const last = mails.at(-1);
    expect(last?.text).toContain('Votre banque vous demande de confirmer');
    const link = /https?:\/\/\S+token=[^\s)]+/.exec(last?.text ?? '')?.[0];
    expect(link).toBeDefined();
    const portal = await portalFrom(new URLSearchParams(new URL(link ?? '').hash.slice(1)).get('token'));
    expect(portal.opened.flow).toBe('authenticatePayment');
    const overview = (await portal.api('GET', '/portal/api/overview')).json();
    const waiting = overview.awaitingPayment;
    expect(waiting).toMatchObject({ id: expect.any(Number), currency: 'USD', cardLastFour: '3184' });
    const authenticate = (body: unknown = {}) => portal.api('POST', `/portal/api/payments/${waiting.id}/authenticate`, body);

    // The bank asks; failed there: asked again, nothing charged.
    const first = await authenticate();
    expect(first.statusCode, first.body).toBe(202);
    await answer(first.json().challengeUrl, 'fail');
    const again = await authenticate({ authenticatedBy: first.json().authenticationId });
    expect(again.statusCode).toBe(202);
    // Completed: the waiting payment itself is paid.
    await answer(again.json().challengeUrl, 'complete');
    // Sent twice at once (a double click, a retry racing the first): the same payment, one charge, recorded once.
    const [paid, racing] = await Promise.all([
      authenticate({ authenticatedBy: again.json().authenticationId }),
      authenticate({ authenticatedBy: again.json().authenticationId }),
    ]);
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json()).toMatchObject({ paymentActivityId: waiting.id, status: 'Succeeded', amount: waiting.amount });
    expect(racing.json()).toMatchObject({ paymentActivityId: waiting.id, status: 'Succeeded' });
    // Asked once more (a lost answer): the same payment, not another charge.
    const replay = await authenticate({ authenticatedBy: again.json().authenticationId });
    expect(replay.json()).toMatchObject({ paymentActivityId: waiting.id, status: 'Succeeded' });

    expect((await call('GET', `/v1/customers/${customerId}`)).json().status).toBe('Active');
    const invoices = (await call('GET', `/v1/customers/${customerId}/invoices`)).json() as Array<{ outstandingBalance: number }>;
    expect(invoices.map((i) => i.outstandingBalance)).toEqual([0, 0]);
    const card = (await call('GET', `/v1/customers/${customerId}/payments`))
      .json()
      .filter((p: { paymentMethod: string; status: string }) => p.paymentMethod === 'CreditCard' && p.status === 'Succeeded');
    expect(card.map((p: { paymentActivityId: number }) => p.paymentActivityId)).toEqual([waiting.id]);
    const events = await eventsOf(customerId);
    // payment.succeeded once for it (the other is the first invoice's cash payment).
    expect(events.filter((e) => e.type === 'payment.succeeded' && e.id === waiting.id)).toHaveLength(1);
    expect(events.filter((e) => e.type === 'payment.succeeded')).toHaveLength(2);
    expect(events.map((e) => e.type)).toContain('customer.reactivated');
    expect((await portal.api('GET', '/portal/api/overview')).json().awaitingPayment).toBeNull();
  });

  it('the customer then pays the renewal in the portal through their bank: the challenge, then the payment, once; a failed challenge charges nothing', async () => {
    const { customerId, call } = await activeWithAuthenticatedCard('4000002760003184');
    const { pay, api } = await portalOf(call, customerId);
    const waiting = (await api('GET', '/portal/api/overview')).json().awaitingPayment;
    expect(waiting).toMatchObject({ id: expect.any(Number) });
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
    // The renewal's waiting payment was replaced by this one: it can no longer be authenticated.
    expect((await api('GET', '/portal/api/overview')).json().awaitingPayment).toBeNull();
    const stale = await api('POST', `/portal/api/payments/${waiting.id}/authenticate`);
    expect(stale.statusCode).toBe(409);
    expect(errorsOf(stale)[0]?.Code).toBe('state_conflict');
  });
});
