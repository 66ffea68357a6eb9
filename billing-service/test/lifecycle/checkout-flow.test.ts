import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe('the checkout through the API', () => {
  it('lists plans, creates a customer and subscription, previews, collects nothing yet, activates and reads the posted invoice', async () => {
    const plans = (await t.call('GET', '/v1/Plans/?query=Code:BASIC')).json();
    const monthly = plans[0].planFrequencies.find((f: { interval: string }) => f.interval === 'Monthly');
    const customer = (await t.call('POST', '/v1/customers', { firstName: 'Flow', billing: { country: 'CA', state: 'ON' } })).json();
    const sub = await t.call('POST', '/v1/subscriptions', { customerId: customer.id, planFrequencyId: monthly.id, code: 'BASIC' });
    expect(sub.statusCode, sub.body).toBe(200);
    const subscription = sub.json();
    const put = await t.call('PUT', '/v1/subscriptions', { ...subscription, coupons: [{ code: 'WELCOME10' }] });
    expect(put.statusCode, put.body).toBe(200);

    const preview = await t.call('POST', '/v1/customeractivation?preview=true', { customerId: customer.id });
    expect(preview.statusCode, preview.body).toBe(200);
    const invoicePreview = preview.json().invoicePreview;
    // 19.99 less 10 % (2.00) plus the 10.00 setup fee; GST 5 % + HST 8 % on 27.99.
    expect(invoicePreview).toMatchObject({ subtotal: 29.99, totalDiscount: 2, totalTaxes: 3.64, total: 31.63 });
    expect(preview.json().status).toBe('Draft');

    const activated = await t.call('POST', '/v1/customeractivation?view=sideeffects', {
      customerId: customer.id,
      activateAllSubscriptions: true,
      activateAllDraftPurchases: false,
      temporarilyDisableAutoPost: false,
    });
    expect(activated.statusCode, activated.body).toBe(200);
    expect(activated.json().status).toBe('Active');
    const [invoice] = activated.json().invoices;
    expect(invoice).toMatchObject({
      status: 'Posted',
      invoiceAmount: 31.63,
      outstandingBalance: 31.63,
      totalPayments: 0,
      invoiceNumber: 1,
    });
    expect((await t.call('GET', `/v1/Invoices/${invoice.id}`)).json()).toEqual(invoice);
    const list = await t.call('GET', `/v1/Customers/${customer.id}/Invoices`);
    expect(list.json()).toHaveLength(1);
    const again = await t.call('POST', '/v1/customeractivation', {
      customerId: customer.id,
      activateAllSubscriptions: true,
      activateAllDraftPurchases: false,
      temporarilyDisableAutoPost: false,
    });
    expect(again.statusCode).toBe(400);
    expect(again.json().Errors[0].Value).toBe('cannot process since status is Active');
    const overview = (await t.call('GET', `/v1/customers/${customer.id}/overview`)).json();
    expect(overview.arBalance).toBe(31.63);
  });
});
