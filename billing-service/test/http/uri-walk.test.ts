import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerTestCatalog } from '../customers/customer-fixtures.js';
import { BASE_URL, startTestApp, type TestApp } from '../helpers/test-app.js';
import { BASIC_MONTHLY, PRO_MONTHLY } from '../helpers/api-fixtures.js';

/**
 * Issue 9: the spec tells clients to follow `uri` values, so every `uri` in every
 * response must answer a GET with 200. A full checkout runs through the API, then
 * every list (and every read under a customer) is read; each `uri` found in any
 * response (keys named `uri` or ending in `Uri`, at any depth) is fetched, and the
 * `uri` values of those answers are followed in turn, up to a bound.
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ catalog: customerTestCatalog() });
});
afterAll(async () => t?.close());

const MAX_DEPTH = 4;
const MAX_FETCHES = 1000;

type Json = unknown;

/** Every string under a key named `uri` or ending in `Uri` (paymentUri), at any depth. */
function urisIn(value: Json, found: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) urisIn(item, found);
  } else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (typeof v === 'string' && (key === 'uri' || key.endsWith('Uri'))) found.add(v);
      else urisIn(v, found);
    }
  }
  return found;
}

/** Every response the walk starts from, with what produced it (for the failure message). */
const responses: Array<{ what: string; body: Json }> = [];

async function record(what: string, res: Promise<LightMyRequestResponse>, status = 200): Promise<any> {
  const response = await res;
  expect(response.statusCode, `${what}: ${response.body}`).toBe(status);
  const body = response.body ? response.json() : null;
  responses.push({ what, body });
  return body;
}

/** A full checkout through the API, recording every response. */
async function checkout() {
  await record('GET /v1/Plans', t.call('GET', '/v1/Plans'));
  const customer = await record(
    'POST /v1/customers',
    t.call('POST', '/v1/customers', {
      firstName: 'Walker',
      lastName: 'Uri',
      primaryEmail: 'walker@example.com',
      reference: 'WALK-1',
      customerReference: {
        reference1: 'r1',
        reference2: 'r2',
        salesTrackingCodes: [
          { type: 'Sales Tracking Code 1', code: 'PARTNER' },
          { type: 'Region', code: 'WEST' },
        ],
      },
      customerAcquisition: {
        adContent: 'banner',
        campaign: 'spring',
        keyword: 'billing',
        landingPage: 'https://shop.example/',
        medium: 'cpc',
        source: 'search',
      },
      billingSetting: { term: 'Net30', showZeroDollarCharges: false },
      billing: { line1: '350 Fifth Avenue', city: 'New York', postalZip: '10118', country: 'US', state: 'NY' },
      shipping: { line1: '1 Front St', city: 'Toronto', postalZip: 'M5J 2N8', country: 'CA', state: 'ON' },
      addressPreference: {
        contactName: 'Walker Uri',
        shippingInstructions: 'Leave at the door',
        useBillingAddressAsShippingAddress: false,
      },
    }),
  );
  const customerId: number = customer.id;
  expect(customer.customerReference.salesTrackingCodes).toHaveLength(2);

  const setting = await record('GET billing setting', t.call('GET', `/v1/customerbillingsetting/${customerId}`));
  await record('PUT /v1/customerbillingsetting', t.call('PUT', '/v1/customerbillingsetting', { ...setting, standingPoNumber: 'PO-9' }));
  const preferences = await record('GET address preferences', t.call('GET', `/v1/customerAddressPreferences/${customerId}`));
  await record(
    'PUT /v1/CustomerAddressPreferences',
    t.call('PUT', '/v1/CustomerAddressPreferences', { ...preferences, contactName: 'W. Uri' }),
  );
  await record('POST /v1/customernotes', t.call('POST', '/v1/customernotes', { customerId, note: 'Signed up through the walk test.' }));
  await record('POST /v1/customernotes (second)', t.call('POST', '/v1/customernotes', { customerId, note: 'Second note.' }));

  const subscription = await record(
    'POST /v1/subscriptions',
    t.call('POST', '/v1/subscriptions', { customerId, planFrequencyId: PRO_MONTHLY, reference: 'SUB-1' }),
  );
  await record('POST /v1/subscriptions (second)', t.call('POST', '/v1/subscriptions', { customerId, planFrequencyId: BASIC_MONTHLY }));
  const read = await record('GET /v1/subscriptions/{id}', t.call('GET', `/v1/subscriptions/${subscription.id}`));
  await record('PUT /v1/subscriptions', t.call('PUT', '/v1/subscriptions', read));

  const preview = await record(
    'POST /v1/customeractivation?preview=true',
    t.call('POST', '/v1/customeractivation?preview=true', { customerId }),
  );
  const total: number = preview.invoicePreview.total;
  const card = await record(
    'POST /v1/paymentmethods/creditcard',
    t.call('POST', '/v1/paymentmethods/creditcard', {
      customerId,
      cardNumber: '4242424242424242',
      firstName: 'Walker',
      lastName: 'Uri',
      expirationMonth: 12,
      expirationYear: 30,
      cvv: '123',
    }),
  );
  await record('POST /v1/payments', t.call('POST', '/v1/payments', { customerId, amount: total, paymentMethodId: card.id }));
  const activated = await record(
    'POST /v1/customeractivation?view=sideeffects',
    t.call('POST', '/v1/customeractivation?view=sideeffects', {
      customerId,
      activateAllSubscriptions: true,
      activateAllDraftPurchases: false,
      temporarilyDisableAutoPost: false,
    }),
  );
  expect(activated.status).toBe('Active');
  expect(activated.invoices.length).toBeGreaterThan(0);

  // A bulk payment, processed, so that its records carry a paymentUri.
  const job = await record(
    'POST /v1/bulkPaymentSubmit',
    t.call('POST', '/v1/bulkPaymentSubmit', {
      accountUploadType: 'bulkPayment',
      data: [{ customerId, reference: 'CHK-1', amount: 5, paymentMethod: 'Check' }],
    }),
  );
  await record('POST /v1/BulkApi/Process', t.call('POST', '/v1/BulkApi/Process', { id: job.id }));
  const deadline = Date.now() + 15_000;
  for (;;) {
    const full = (await t.call('GET', `/v1/BulkApi/${job.id}?view=full`)).json();
    if (full.status === 'Completed' || Date.now() > deadline) {
      responses.push({ what: 'GET /v1/BulkApi/{id}?view=full', body: full });
      expect(full.status).toBe('Completed');
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return customerId;
}

/**
 * Every GET the API documents whose only path parameter is the customer id (or
 * none): all the lists, and the reads under a customer. Taken from the OpenAPI
 * document, so a list added later is walked too.
 */
async function customerLevelReads(customerId: number): Promise<string[]> {
  const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as { paths: Record<string, { get?: unknown }> };
  const paths = Object.entries(doc.paths)
    .filter(([path, ops]) => ops.get && [...path.matchAll(/\{(\w+)\}/g)].every((m) => m[1] === 'customerId'))
    .map(([path]) => path.replace('{customerId}', String(customerId)));
  return paths.filter((p) => p !== '/v1/openapi.json');
}

/** The path (and query) of a uri under the public base; undefined when it is not under it. */
function pathOf(uri: string): string | undefined {
  if (!uri.startsWith(`${BASE_URL}/`)) return undefined;
  return uri.slice(BASE_URL.length);
}

describe('every uri answers a GET', () => {
  it('walks every uri of a full checkout and of every list, and each answers 200 with its own uri', async () => {
    const customerId = await checkout();

    const reads = await customerLevelReads(customerId);
    // The lists the API has today are among them (a renamed list path must be added here).
    expect(reads).toEqual(
      expect.arrayContaining([
        '/v1/Plans',
        '/v1/customers',
        '/v1/countries',
        `/v1/customers/${customerId}/subscriptions`,
        `/v1/customers/${customerId}/notes`,
        `/v1/Customers/${customerId}/Invoices`,
        `/v1/customers/${customerId}/payments`,
        `/v1/customers/${customerId}/paymentMethods/creditCard`,
      ]),
    );
    for (const path of reads) await record(`GET ${path}`, t.call('GET', path));

    const failures: string[] = [];
    const seen = new Set<string>();
    let frontier = new Map<string, string>();
    for (const { what, body } of responses) {
      for (const uri of urisIn(body)) if (!frontier.has(uri)) frontier.set(uri, what);
    }
    expect(frontier.size).toBeGreaterThan(20);
    let fetches = 0;
    for (let depth = 0; depth < MAX_DEPTH && frontier.size > 0; depth++) {
      const next = new Map<string, string>();
      for (const [uri, from] of frontier) {
        if (seen.has(uri)) continue;
        seen.add(uri);
        const path = pathOf(uri);
        if (path === undefined) {
          failures.push(`${uri} (from ${from}): not under the public base ${BASE_URL}`);
          continue;
        }
        if (++fetches > MAX_FETCHES) throw new Error(`more than ${MAX_FETCHES} distinct uris: is something generating them without end?`);
        const res = await t.call('GET', path);
        if (res.statusCode !== 200) {
          failures.push(`${uri} (from ${from}): ${res.statusCode} ${res.body.slice(0, 200)}`);
          continue;
        }
        const body = res.json() as Json;
        if (body && typeof body === 'object' && !Array.isArray(body) && 'uri' in body && body.uri !== uri) {
          failures.push(`${uri} (from ${from}): answers an object whose uri is ${String(body.uri)}`);
        }
        for (const found of urisIn(body)) if (!seen.has(found) && !next.has(found)) next.set(found, uri);
      }
      frontier = next;
    }

    expect(failures, `uris that do not answer GET with 200:\n${failures.join('\n')}`).toEqual([]);
    // The walk reached the objects the issue names.
    const paths = [...seen].map((u) => pathOf(u) ?? u);
    for (const pattern of [
      /^\/v1\/planFrequencies\/\d+$/,
      /^\/v1\/planFrequencies\/\d+\/charges\/\d+$/,
      /^\/v1\/planFrequencies\/\d+\/setupFees\/\d+$/,
      /^\/v1\/customerNotes\/\d+$/,
      /^\/v1\/subscriptions\/\d+\/subscriptionProducts\/\d+$/,
      /^\/v1\/customers\/\d+\/customerReference$/,
      /^\/v1\/customers\/\d+\/customerReference\/salesTrackingCodes\/\d+$/,
      /^\/v1\/customers\/\d+\/customerAcquisition$/,
      /^\/v1\/customers\/\d+\/overview$/,
      /^\/v1\/Invoices\/\d+$/,
      /^\/v1\/payments\/\d+$/,
      /^\/v1\/paymentMethods\/\d+\/creditCard$/,
      /^\/v1\/Addresses\/\d+$/,
      /^\/v1\/customerAddressPreferences\/\d+$/,
      /^\/v1\/customerbillingsetting\/\d+$/,
      /^\/v1\/BulkApi\/\d+$/,
    ]) {
      expect(
        paths.some((p) => pattern.test(p)),
        String(pattern),
      ).toBe(true);
    }
  });

  it("answers 404 for another account's copy of every customer-owned uri", async () => {
    const other = await t.newAccount();
    const owned = [...new Set(responses.flatMap(({ body }) => [...urisIn(body)]))]
      .map((u) => pathOf(u)!)
      // Plans and their frequencies are the shared catalogue: every account reads them.
      .filter((p) => p !== undefined && !/^\/v1\/(Plans|planFrequencies)\//i.test(p));
    expect(owned.length).toBeGreaterThan(10);
    const leaks: string[] = [];
    for (const path of owned) {
      const res = await t.call('GET', path, undefined, { as: other });
      if (res.statusCode !== 404) leaks.push(`${path}: ${res.statusCode}`);
    }
    expect(leaks, `another account reads:\n${leaks.join('\n')}`).toEqual([]);
  });
});
