import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Catalog } from '../../src/catalog/schema.js';
import { basicAuth, testCatalog, type TestAccount } from '../helpers/test-app.js';

/** An authenticated JSON request to another app on the same database (see TestApp.buildAnotherApp). */
export function callOn(
  app: FastifyInstance,
  as: TestAccount,
  method: InjectOptions['method'],
  url: string,
  body?: unknown,
): Promise<LightMyRequestResponse> {
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
              {
                product: 'SEAT',
                charges: [
                  { currency: 'USD', amount: '3.00' },
                  { currency: 'CAD', amount: '4.00' },
                ],
              },
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
        frequencies: [
          {
            id: 51,
            interval: 'Monthly',
            numberOfIntervals: 3,
            prices: [
              {
                product: 'SEAT',
                charges: [
                  { currency: 'USD', amount: '29.99' },
                  { currency: 'CAD', amount: '36.00' },
                ],
              },
            ],
          },
        ],
      },
    ],
  });
}
