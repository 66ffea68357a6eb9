import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIVATION_FLAGS, activate, newCustomer, newSubscription } from '../../billing-service/test/helpers/api-fixtures.js';
import { freshIp, inject, startCaptureTest, type CaptureTest } from './helpers/capture-test.js';

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
  const challenge = new URL(captured.json().challengeUrl).pathname;
  const answered = await app.inject({
    method: 'POST',
    url: challenge,
    remoteAddress: freshIp(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'answer=complete',
  });
  expect(answered.statusCode).toBe(200);
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
  return { invoices, cardPayments: payments.filter((p) => p.paymentMethod === 'CreditCard') };
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
});
