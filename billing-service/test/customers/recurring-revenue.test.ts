import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { BASIC_MONTHLY, BASIC_YEARLY, PRO_MONTHLY, activeCustomer, readSubscription } from '../helpers/api-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe("a customer's recurring revenue", () => {
  // The read of one customer brings its Active subscriptions with it; a list page reads them in a query of its own.
  it('is the same, exact to the cent, in the read of the customer and in the list page', async () => {
    const account = await t.newAccount();
    const { customerId, subscriptionIds } = await activeCustomer(t, { account, frequencies: [BASIC_MONTHLY, BASIC_YEARLY, PRO_MONTHLY] });
    const pro = await readSubscription(t, subscriptionIds[2]!, account);
    const seat = pro.subscriptionProducts.find((p: { productCode: string }) => p.productCode === 'SEAT');
    const put = await t.call(
      'PUT',
      '/v1/subscriptions',
      { ...pro, subscriptionProducts: [{ ...seat, discount: { type: 'Amount', amount: 3 } }] },
      { as: account },
    );
    expect(put.statusCode, put.body).toBe(200);

    // BASIC 19.99 + BASIC yearly 199 / 12 = 16.58 + PRO 5 × 8.00 + 9.00 = 49 (net 46: 3.00 off the seats)
    const expected = { monthlyRecurringRevenue: 85.57, netMonthlyRecurringRevenue: 82.57 };
    const read = await t.call('GET', `/v1/customers/${customerId}`, undefined, { as: account });
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json()).toMatchObject(expected);
    const list = await t.call('GET', '/v1/customers', undefined, { as: account });
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json()).toEqual([expect.objectContaining({ id: customerId, ...expected })]);
  });
});
