import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';
import { cardBody } from '../helpers/api-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe('the eight-step checkout through the API', () => {
  it('deposits the previewed total before activation and the first invoice is paid at once', async () => {
    const customer = (await t.call('POST', '/v1/customers', { firstName: 'Ada', billing: { country: 'US', state: 'NY' } })).json();
    const sub = (await t.call('POST', '/v1/subscriptions', { customerId: customer.id, planFrequencyId: 11 })).json();
    expect(sub.status).toBe('Draft');
    const preview = (await t.call('POST', '/v1/customeractivation?preview=true', { customerId: customer.id })).json();
    const total = preview.invoicePreview.total;
    expect(total).toBe(31.19); // 29.99 + 4 % NY sales tax (1.20)

    const method = await t.call('POST', '/v1/paymentmethods/creditcard', {
      customerId: customer.id,
      ...cardBody({ cardNumber: '4242 4242 4242 4242' }),
    });
    expect(method.statusCode, method.body).toBe(200);
    expect(method.json()).toMatchObject({ maskedCardNumber: '************4242', cardType: 'Visa', isDefault: true, expirationYear: 30 });
    expect(method.body).not.toContain('4242424242424242');

    const payment = await t.call(
      'POST',
      '/v1/payments',
      { customerId: customer.id, amount: total, paymentMethodId: method.json().id },
      { headers: { 'idempotency-key': 'checkout-1' } },
    );
    expect(payment.statusCode, payment.body).toBe(200);
    expect(payment.json()).toMatchObject({ amount: 31.19, status: 'Succeeded', unallocatedAmount: 31.19, invoiceAllocations: [] });
    const retried = await t.call(
      'POST',
      '/v1/payments',
      { customerId: customer.id, amount: total, paymentMethodId: method.json().id },
      { headers: { 'idempotency-key': 'checkout-1' } },
    );
    expect(retried.json().id).toBe(payment.json().id);

    const activated = await t.call('POST', '/v1/customeractivation?view=sideeffects', {
      customerId: customer.id,
      activateAllSubscriptions: true,
      activateAllDraftPurchases: false,
      temporarilyDisableAutoPost: false,
    });
    expect(activated.statusCode, activated.body).toBe(200);
    expect(activated.json().invoices[0]).toMatchObject({
      invoiceAmount: 31.19,
      totalPayments: 31.19,
      outstandingBalance: 0,
      status: 'Paid',
    });
    const overview = (await t.call('GET', `/v1/customers/${customer.id}/overview`)).json();
    expect(overview).toMatchObject({ arBalance: 0, unallocatedPayments: 0, monthlyRecurringRevenue: 19.99 });
    const paid = (await t.call('GET', `/v1/payments/${payment.json().id}`)).json();
    expect(paid.invoiceAllocations).toEqual([expect.objectContaining({ amount: 31.19, outstandingBalance: 0, invoiceTotal: 31.19 })]);
  });

  it('records a declined charge as a failed payment and answers 402 with the gateway code', async () => {
    const customer = (await t.call('POST', '/v1/customers', {})).json();
    const method = (
      await t.call('POST', '/v1/paymentmethods/creditcard', { customerId: customer.id, ...cardBody({ cardNumber: '4000000000009995' }) })
    ).json();
    const res = await t.call('POST', '/v1/payments', { customerId: customer.id, amount: '10.00', useDefaultPaymentMethod: true });
    expect(res.statusCode).toBe(402);
    expect(errorsOf(res)).toContainEqual({ Key: 'declineCode', Value: 'insufficient_funds', Code: 'card_declined' });
    const list = (await t.call('GET', `/v1/customers/${customer.id}/payments`)).json();
    expect(list).toEqual([expect.objectContaining({ status: 'Failed', paymentMethodId: method.id, declineCode: 'insufficient_funds' })]);
  });

  it('refuses a card declined at validation and never stores it', async () => {
    const customer = (await t.call('POST', '/v1/customers', {})).json();
    const res = await t.call('POST', '/v1/paymentmethods/creditcard', {
      customerId: customer.id,
      ...cardBody({ cardNumber: '4000000000000002' }),
    });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)[0]!.Value).toMatch(/^validation error/);
    expect((await t.call('GET', `/v1/customers/${customer.id}/paymentMethods/creditCard`)).json()).toEqual([]);
  });
});
