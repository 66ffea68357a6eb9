import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

/** Every route with an id in its path, and every body route, given ids and values no database column can hold. */
const HUGE = '99999999999';
const idRoutes: Array<[string, string]> = [
  ['GET', `/v1/customers/${HUGE}`],
  ['GET', `/v1/customers/${HUGE}/overview`],
  ['GET', `/v1/customers/${HUGE}/notes`],
  ['GET', `/v1/customers/${HUGE}/subscriptions`],
  ['GET', `/v1/Customers/${HUGE}/Invoices`],
  ['GET', `/v1/customers/${HUGE}/payments`],
  ['GET', `/v1/customers/${HUGE}/paymentMethods/creditCard`],
  ['GET', `/v1/customers/${HUGE}/CustomerEmailPreferences`],
  ['GET', `/v1/customerbillingsetting/${HUGE}`],
  ['GET', `/v1/customerAddressPreferences/${HUGE}`],
  ['GET', `/v1/Addresses/${HUGE}`],
  ['GET', `/v1/Plans/${HUGE}`],
  ['GET', `/v1/subscriptions/${HUGE}`],
  ['GET', `/v1/Invoices/${HUGE}`],
  ['GET', `/v1/payments/${HUGE}`],
  ['GET', `/v1/paymentMethods/${HUGE}/creditCard`],
  ['GET', `/v1/countries/${HUGE}`],
  ['DELETE', `/v1/customerNotes/${HUGE}`],
  ['DELETE', `/v1/paymentMethods/${HUGE}/creditCard`],
  ['POST', `/v1/customerhold/${HUGE}`],
  ['POST', `/v1/customers/uncancel/${HUGE}`],
];

const bodyRoutes: Array<[string, string, string]> = [
  ['PUT', '/v1/customers', 'id'],
  ['POST', '/v1/customernotes', 'customerId'],
  ['PUT', '/v1/customerbillingsetting', 'id'],
  ['PUT', '/v1/CustomerAddressPreferences', 'id'],
  ['POST', '/v1/Addresses', 'customerAddressPreferenceId'],
  ['PUT', '/v1/Addresses', 'id'],
  ['POST', '/v1/subscriptions', 'customerId'],
  ['PUT', '/v1/subscriptions', 'id'],
  ['POST', '/v1/customeractivation', 'customerId'],
  ['POST', '/v1/customers/unhold', 'customerId'],
  ['POST', '/v1/customercancellation', 'customerId'],
  ['PUT', '/v1/CustomerEmailPreferences', 'customerId'],
  ['POST', '/v1/paymentmethods/creditcard', 'customerId'],
  ['PUT', '/v1/paymentMethods/creditCard', 'id'],
  ['POST', '/v1/payments', 'customerId'],
];

describe('no request a client can send gets a 500', () => {
  it.each(idRoutes)('%s %s with an id beyond any column answers 4xx', async (method, url) => {
    const res = await t.call(method as 'GET', url);
    expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
    expect(res.statusCode, res.body).toBeLessThan(500);
  });

  it.each(bodyRoutes)('%s %s with %s beyond any column answers 4xx', async (method, url, field) => {
    const res = await t.call(method as 'POST', url, {
      [field]: Number(HUGE),
      status: 'Active',
      planFrequencyId: Number(HUGE),
      amount: 1,
      cancellationOption: 'None',
      serviceStartOption: 'NoChargesForMissedPeriods',
      addressType: 'Billing',
      useBillingAddressAsShippingAddress: true,
      note: 'x',
      cardNumber: '4242424242424242',
      cvv: '123',
      expirationMonth: 1,
      expirationYear: 40,
      firstName: 'a',
      lastName: 'b',
      preferences: [],
      paymentMethod: 'Cash',
      activateAllSubscriptions: true,
      activateAllDraftPurchases: false,
      temporarilyDisableAutoPost: false,
    });
    expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
    expect(res.statusCode, res.body).toBeLessThan(500);
  });

  it.each(bodyRoutes)('%s %s with an array, a string and deep nesting for a body answers 4xx', async (method, url) => {
    for (const payload of [[], 'text', { a: { b: { c: { d: [1, 2, { e: null }] } } } }, { [bodyRoutes[0]![2]]: 'NaN' }]) {
      const res = await t.call(method as 'POST', url, payload);
      expect(res.statusCode, `${JSON.stringify(payload)} → ${res.body}`).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, res.body).toBeLessThan(500);
    }
  });
});
