import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newCustomer, newSubscription } from '../helpers/api-fixtures.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

// Every list under a customer is one helper (customers/child-list.ts): the same paging, query
// language, X-* headers and 404 for a customer the caller cannot see, whatever the children.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const CHILDREN = ['Invoices', 'notes', 'refunds', 'payments', 'paymentMethods/creditCard', 'subscriptions'];

describe("a customer's child lists", () => {
  it.each(CHILDREN)('%s: 404 not_found for an unknown customer and for another account’s', async (children) => {
    const unknown = await t.call('GET', `/v1/customers/987654/${children}`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().Errors).toEqual([{ Key: 'Api Error', Value: expect.any(String), Code: 'not_found' }]);
    const theirs = await newCustomer(t, {}, await t.newAccount());
    expect((await t.call('GET', `/v1/customers/${theirs}/${children}`)).statusCode).toBe(404);
  });

  it.each(CHILDREN)('%s: the list headers, and a query it cannot read is request_malformed', async (children) => {
    const customerId = await newCustomer(t);
    const empty = await t.call('GET', `/v1/customers/${customerId}/${children}`);
    expect(empty.statusCode, empty.body).toBe(200);
    expect(empty.json()).toEqual([]);
    expect(empty.headers).toMatchObject({ 'x-count': '0', 'x-sortexpression': 'Id', 'x-sortorder': 'Ascending' });
    expect(empty.headers['x-maxcount']).toBeDefined();
    const bad = await t.call('GET', `/v1/customers/${customerId}/${children}?query=NoSuchField:1`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().Errors[0].Code).toBe('request_malformed');
  });

  it('pages and filters the children of one customer only', async () => {
    const customerId = await newCustomer(t);
    const other = await newCustomer(t);
    const ids = [await newSubscription(t, customerId), await newSubscription(t, customerId), await newSubscription(t, customerId)];
    await newSubscription(t, other);
    const page = await t.call('GET', `/v1/customers/${customerId}/subscriptions?pageSize=2&pageNumber=1`);
    expect(page.statusCode, page.body).toBe(200);
    expect(page.json().map((s: { id: number }) => s.id)).toEqual([ids[2]]);
    expect(page.headers).toMatchObject({ 'x-count': '3', 'x-pagesize': '2' });
    const one = await t.call('GET', `/v1/customers/${customerId}/subscriptions?query=Id:${ids[1]}`);
    expect(one.json().map((s: { id: number }) => s.id)).toEqual([ids[1]]);
  });
});
