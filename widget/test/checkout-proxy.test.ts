import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, SHOPPER, startCheckoutHarness, type CheckoutHarness } from './helpers/checkout-harness.js';

let h: CheckoutHarness;
beforeAll(async () => {
  h = await startCheckoutHarness();
});
afterAll(async () => h?.close());

const capture = async (customerId: number, amount: string | null, cardNumber = '4242424242424242', captureToken?: string) => {
  const res = await fetch(`${h.captureUrl}/api/paymentsv2`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      customerId,
      publicApiKey: h.billing.account.publicApiKey,
      cardNumber,
      firstName: 'Grace',
      lastName: 'Hopper',
      expirationMonth: 12,
      expirationYear: 30,
      cvv: '123',
      recaptcha: `dev-${Math.random()}`,
      riskToken: 'rt',
      clientIp: '203.0.113.9',
      email: 'grace@example.com',
      ...(amount ? { paymentCollectOptions: { collectionAmount: amount } } : {}),
      ...(captureToken ? { captureToken } : {}),
    }),
  });
  return { status: res.status, body: await res.json() };
};

describe('the checkout proxy', () => {
  it('runs the eight steps: plan, customer with address, subscription and preview, card and payment on the capture host, activation', async () => {
    const plans = (await h.proxy('GET', '/plans')).json();
    expect(plans).toContainEqual(
      expect.objectContaining({
        planFrequencyId: 11,
        planCode: 'BASIC',
        recurringPrice: '19.99',
        setupFee: '10.00',
        currency: 'USD',
        interval: 'Monthly',
      }),
    );

    const started = await h.proxy('POST', '/customers', SHOPPER);
    expect(started.statusCode, started.body).toBe(200);
    const { customerId, session } = started.json();
    const customer = (await h.billing.call('GET', `/v1/customers/${customerId}`)).json();
    expect(customer).toMatchObject({ status: 'Draft', firstName: 'Grace', primaryEmail: 'grace@example.com', currency: 'USD' });

    const summary = await h.proxy('POST', `/customers/${customerId}/subscriptions`, { planFrequencyId: 11 }, session);
    expect(summary.statusCode, summary.body).toBe(200);
    expect(summary.json()).toMatchObject({
      customerId,
      currency: 'USD',
      subtotal: '29.99',
      totalTaxes: '1.20',
      total: '31.19',
      taxes: [{ name: 'Sales tax', amount: '1.20' }],
    });

    // The proxy minted a capture token for this customer, capped at the total; the widget sends it.
    const { captureToken } = summary.json();
    expect(captureToken).toMatch(/^ct_/);
    const tooMuch = await capture(customerId, '31.20', '4242424242424242', captureToken);
    expect(tooMuch.status).toBe(400);
    expect((await capture(customerId, summary.json().total, '4242424242424242', captureToken)).status).toBe(200);
    const done = await h.proxy('POST', `/customers/${customerId}/activation`, {}, session);
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({
      customerId,
      status: 'Active',
      invoice: { total: '31.19', amountPaid: '31.19', outstandingBalance: '0.00', status: 'Paid' },
    });

    // A second click answers like the first and activates nothing twice.
    const again = await h.proxy('POST', `/customers/${customerId}/activation`, {}, session);
    expect(again.json()).toEqual(done.json());
    expect((await h.billing.call('GET', `/v1/Customers/${customerId}/Invoices`)).json()).toHaveLength(1);
  });

  it('refuses activation until the payment covers the previewed total (a shopper cannot change the amount in the browser)', async () => {
    const { customerId, session } = (await h.proxy('POST', '/customers', SHOPPER)).json();
    const { captureToken } = (await h.proxy('POST', `/customers/${customerId}/subscriptions`, { planFrequencyId: 11 }, session)).json();
    const unpaid = await h.proxy('POST', `/customers/${customerId}/activation`, {}, session);
    expect(unpaid.statusCode).toBe(402);
    expect(errorsOf(unpaid)).toEqual([
      {
        Key: 'payment',
        Value: 'the payment received does not cover the first invoice: the customer holds 0.00, less than the 31.19 activation would post',
        Code: 'state_conflict',
      },
    ]);

    expect((await capture(customerId, '1.00', '4242424242424242', captureToken)).status).toBe(200);
    const underpaid = await h.proxy('POST', `/customers/${customerId}/activation`, {}, session);
    expect(underpaid.statusCode).toBe(402);
    expect((await h.billing.call('GET', `/v1/customers/${customerId}`)).json().status).toBe('Draft');
  });

  it('lets a session act only on the customer it created', async () => {
    const first = (await h.proxy('POST', '/customers', SHOPPER)).json();
    const second = (await h.proxy('POST', '/customers', SHOPPER)).json();
    for (const session of [undefined, second.session, `${first.session}x`, first.session.replace(/^\d+/, String(second.customerId))]) {
      const res = await h.proxy('POST', `/customers/${first.customerId}/subscriptions`, { planFrequencyId: 11 }, session);
      expect(res.statusCode).toBe(403);
      expect(errorsOf(res)[0]!.Value).toMatch(/checkout session/);
    }
    expect((await h.billing.call('GET', `/v1/customers/${first.customerId}/subscriptions`)).json()).toEqual([]);
  });

  it('answers bad shopper input with the spec error body keyed on the field', async () => {
    const res = await h.proxy('POST', '/customers', {
      ...SHOPPER,
      email: 'not-an-email',
      address: { ...SHOPPER.address, state: 'New York' },
    });
    expect(res.statusCode).toBe(400);
    expect(
      errorsOf(res)
        .map((e) => e.Key)
        .sort(),
    ).toEqual(['address.state', 'email']);
  });

  it('keeps one plan per checkout: a repeated request is answered alike, another plan is 409', async () => {
    const { customerId, session } = (await h.proxy('POST', '/customers', SHOPPER)).json();
    const first = await h.proxy('POST', `/customers/${customerId}/subscriptions`, { planFrequencyId: 11 }, session);
    const repeated = await h.proxy('POST', `/customers/${customerId}/subscriptions`, { planFrequencyId: 11 }, session);
    // The same summary; each answer carries a capture token of its own.
    const { captureToken: firstToken, ...firstSummary } = first.json();
    const { captureToken: repeatedToken, ...repeatedSummary } = repeated.json();
    expect(repeatedSummary).toEqual(firstSummary);
    expect(repeatedToken).not.toBe(firstToken);
    const other = await h.proxy('POST', `/customers/${customerId}/subscriptions`, { planFrequencyId: 21 }, session);
    expect(other.statusCode).toBe(409);
    expect((await h.billing.call('GET', `/v1/customers/${customerId}/subscriptions`)).json()).toHaveLength(1);
  });

  it('gives the browser what it needs for the capture host, and never the private key', async () => {
    const res = await h.proxy('GET', '/config');
    expect(res.json()).toEqual({
      captureUrl: h.captureUrl,
      publicApiKey: h.billing.account.publicApiKey,
      captcha: { mode: 'dev', siteKey: null, scriptUrl: null },
      currency: 'USD',
      clientIp: '127.0.0.1',
    });
    for (const path of ['/config', '/plans', '/countries']) {
      expect((await h.proxy('GET', path)).body).not.toContain(h.billing.account.apiKey);
    }
  });
});
