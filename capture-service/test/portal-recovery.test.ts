import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIVATION_FLAGS, activate, newCustomer, newSubscription, TEST_CARD } from '../../billing-service/test/helpers/api-fixtures.js';
import type { TestAccount } from '../../billing-service/test/helpers/test-app.js';
import { freshIp, startCaptureTest, type CaptureTest } from './helpers/capture-test.js';

let t: CaptureTest;
let app: FastifyInstance;

beforeAll(async () => {
  t = await startCaptureTest({ billing: { testClocks: true, webhookWorker: false, webhooks: { allowHttp: true, allowPrivate: true } } });
  app = await t.build({ testClocks: true, capture: { tokenlessCapture: 'never' } });
}, 60_000);
afterAll(() => t?.close());

const DAY = 86_400_000;
function monthsAhead(months: number, day: number): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + months, day, 12));
}

async function advance(account: TestAccount, to: Date) {
  const res = await t.billing.call('POST', '/v1/testclock/advance', { to: to.toISOString() }, { as: account });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Record<string, unknown>;
}

describe('a suspended customer recovers through the portal', () => {
  it('replaces the declining card in the hosted fields flow, pays, and is Active again with the payment allocated', async () => {
    const account = await t.billing.newAccount();
    const call = (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) => t.billing.call(method, url, body, { as: account });
    const hook = await call('POST', '/v1/webhookEndpoints', { url: 'http://127.0.0.1:9/renew', eventTypes: ['*'] });
    expect(hook.statusCode, hook.body).toBe(200);
    await advance(account, monthsAhead(2, 10));

    // Active on Basic monthly, collecting automatically, first invoice paid; then its card starts declining.
    const customerId = await newCustomer(t.billing, { primaryEmail: `recovery.${account.accountId}@example.com` }, account);
    await newSubscription(t.billing, customerId, undefined, account);
    expect((await call('POST', '/v1/paymentmethods/creditcard', { customerId, ...TEST_CARD })).statusCode).toBe(200);
    const setting = (await call('GET', `/v1/customerbillingsetting/${customerId}`)).json();
    expect(
      (
        await call('PUT', '/v1/customerbillingsetting', {
          ...setting,
          autoCollect: true,
          customerGracePeriod: 3,
          gracePeriodExtension: 0,
          customerAutoCancel: 30,
        })
      ).statusCode,
    ).toBe(200);
    expect((await activate(t.billing, customerId, ACTIVATION_FLAGS, '', account)).statusCode).toBe(200);
    expect(
      (await call('POST', '/v1/payments', { customerId, amount: 29.99, paymentMethod: 'CreditCard', useDefaultPaymentMethod: true }))
        .statusCode,
    ).toBe(200);
    const declining = await call('POST', '/v1/paymentmethods/creditcard', {
      customerId,
      ...TEST_CARD,
      cardNumber: '4000000000000341',
      isDefault: true,
    });
    expect(declining.statusCode, declining.body).toBe(200);
    await advance(account, new Date(monthsAhead(3, 10).getTime() + 6 * DAY));
    expect((await call('GET', `/v1/customers/${customerId}`)).json().status).toBe('Suspended');
    const [renewalInvoice] = (await call('GET', `/v1/customers/${customerId}/invoices`))
      .json()
      .filter((i: { outstandingBalance: number }) => i.outstandingBalance > 0);
    expect(renewalInvoice).toBeDefined();

    // The shop opens a portal session; the customer's browser opens its link.
    const session = await call('POST', '/v1/portalSessions', { customerId, flow: 'paymentMethodUpdate' });
    expect(session.statusCode, session.body).toBe(200);
    const token = new URLSearchParams(new URL(session.json().url).hash.slice(1)).get('token');
    const opened = await app.inject({
      method: 'POST',
      url: '/portal/open',
      remoteAddress: freshIp(),
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ token, confirmed: true }),
    });
    expect(opened.statusCode, opened.body).toBe(200);
    expect(opened.json()).toMatchObject({ flow: 'paymentMethodUpdate', customerId });
    const headers = {
      cookie: String(opened.headers['set-cookie']).split(';')[0]!,
      'x-portal-csrf': opened.json().csrfToken,
      'content-type': 'application/json',
    };
    const portal = (method: 'GET' | 'POST', url: string, body: unknown = {}) =>
      app.inject({ method, url, remoteAddress: freshIp(), headers, ...(method === 'POST' ? { payload: JSON.stringify(body) } : {}) });

    // The card fields post the new card to the capture endpoint with the capture token the portal minted: the portal's own routes never see it.
    const minted = await portal('POST', '/portal/api/card-capture-token');
    expect(minted.statusCode, minted.body).toBe(200);
    // As the portal's card form sends it: no public key (the token names the account), no CAPTCHA (the session stands in for it).
    const portalCapture = {
      ...t.params(customerId),
      publicApiKey: '',
      recaptcha: '',
      captureToken: minted.json().token,
      riskToken: minted.json().riskToken,
      clientIp: minted.json().clientIp,
      makeDefault: true,
    };
    const captured = await t.post(portalCapture, { app, encoding: 'json' });
    expect(captured.statusCode, captured.body).toBe(200);
    // A capture token of the API (not a portal session's) still needs the public key and the CAPTCHA.
    const apiToken = await t.captureToken(customerId, {}, account);
    expect((await t.post({ ...portalCapture, captureToken: apiToken }, { app, encoding: 'json' })).statusCode).toBe(401);
    const overview = (await portal('GET', '/portal/api/overview')).json();
    expect(overview.defaultCard).toMatchObject({ id: captured.json().id, lastFour: '4242' });
    expect(overview.customer.status).toBe('Suspended');

    const paid = await portal('POST', '/portal/api/pay');
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json()).toMatchObject({ status: 'Succeeded', paymentMethodId: captured.json().id, source: 'SelfServicePortal' });
    expect(paid.json().invoiceAllocations).toEqual([expect.objectContaining({ invoiceId: renewalInvoice.id, outstandingBalance: 0 })]);

    // Active at once, by the API's reading; the webhooks of the recovery are written for the shop.
    expect((await call('GET', `/v1/customers/${customerId}`)).json().status).toBe('Active');
    expect((await call('GET', `/v1/Invoices/${renewalInvoice.id}`)).json().outstandingBalance).toBe(0);
    const events = await t.billing.database.db
      .selectFrom('webhookEvents')
      .select('eventType')
      .where('customerId', '=', customerId)
      .orderBy('id')
      .execute();
    expect(events.map((e) => e.eventType)).toEqual(
      expect.arrayContaining(['paymentMethod.created', 'payment.succeeded', 'customer.reactivated']),
    );
    // Audited as the portal's doing, not an API key's.
    const audited = await t.billing.database.db
      .selectFrom('auditLog')
      .select(['actor', 'source', 'entityType'])
      .where('accountId', '=', account.accountId)
      .where('source', '=', 'Portal')
      .execute();
    expect(audited.length).toBeGreaterThan(1);
    expect(new Set(audited.map((a) => a.actor))).toEqual(new Set(['portal']));

    // Once the session has ended, its unspent capture tokens no longer stand in for the CAPTCHA.
    const another = await portal('POST', '/portal/api/card-capture-token');
    expect((await portal('POST', '/portal/api/sign-out')).statusCode).toBe(204);
    const afterSignOut = await t.post({ ...portalCapture, captureToken: another.json().token }, { app, encoding: 'json' });
    expect(afterSignOut.statusCode, afterSignOut.body).toBe(401);
  }, 60_000);
});
