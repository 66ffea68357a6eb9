import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { Catalog } from '../../src/catalog/schema.js';
import { basicAuth, testCatalog, type TestAccount, type TestApp } from '../helpers/test-app.js';

/** Demo catalogue frequency ids (catalog/demo-catalog.json). */
export const BASIC_MONTHLY = 11;
export const BASIC_YEARLY = 12;
export const PRO_MONTHLY = 21;

/** Creates a customer through the API; fails the test on anything but 200. */
export async function newCustomer(t: TestApp, body: Record<string, unknown> = {}, as?: TestAccount): Promise<number> {
  const res = await t.call('POST', '/v1/customers', body, as ? { as } : {});
  expect(res.statusCode, res.body).toBe(200);
  return res.json().id;
}

/** Creates a subscription through the API and returns the body; fails the test on anything but 200. */
export async function newSubscription(t: TestApp, body: Record<string, unknown>, as?: TestAccount) {
  const res = await t.call('POST', '/v1/subscriptions', body, as ? { as } : {});
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

export async function readSubscription(t: TestApp, id: number, as?: TestAccount) {
  const res = await t.call('GET', `/v1/subscriptions/${id}`, undefined, as ? { as } : {});
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** An authenticated JSON request to another app on the same database (see TestApp.buildAnotherApp). */
export function callOn(app: FastifyInstance, as: TestAccount, method: InjectOptions['method'], url: string, body?: unknown): Promise<LightMyRequestResponse> {
  return app.inject({
    method,
    url,
    headers: { authorization: basicAuth(as.apiKey), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
}

/** The demo plans as written in the catalogue file (input shape), for catalogues that change them. */
export function demoPlans(): Array<Record<string, any>> {
  return structuredClone(testCatalog().plans) as Array<Record<string, any>>;
}

/**
 * The test catalogue billing in USD and CAD, with two extra plans: USONLY (plan 3,
 * frequency 31) priced in USD only, MIXED (plan 4, frequency 41) whose second
 * product has no CAD price, and QUARTER (plan 5, frequency 51) billed every 3 months.
 */
export function usdCadCatalog(): Catalog {
  return testCatalog({
    currencies: { default: 'USD', allowed: ['USD', 'CAD'] },
    plans: [
      ...demoPlans(),
      {
        id: 3,
        code: 'USONLY',
        name: 'US only',
        products: [{ code: 'SEAT', name: 'Seat', quantity: 1 }],
        frequencies: [{ id: 31, interval: 'Monthly', prices: [{ product: 'SEAT', charges: [{ currency: 'USD', amount: '5.00' }] }] }],
      },
      {
        id: 4,
        code: 'MIXED',
        name: 'Mixed',
        products: [
          { code: 'SEAT', name: 'Seat', quantity: 2 },
          { code: 'ADDON', name: 'Add-on', quantity: 1 },
        ],
        frequencies: [
          {
            id: 41,
            interval: 'Monthly',
            prices: [
              { product: 'SEAT', charges: [{ currency: 'USD', amount: '3.00' }, { currency: 'CAD', amount: '4.00' }] },
              { product: 'ADDON', charges: [{ currency: 'USD', amount: '7.50' }] },
            ],
          },
        ],
      },
      {
        id: 5,
        code: 'QUARTER',
        name: 'Quarterly',
        products: [{ code: 'SEAT', name: 'Seat', quantity: 1 }],
        frequencies: [{ id: 51, interval: 'Monthly', numberOfIntervals: 3, prices: [{ product: 'SEAT', charges: [{ currency: 'USD', amount: '29.99' }, { currency: 'CAD', amount: '36.00' }] }] }],
      },
    ],
  });
}
