/**
 * Fuzzing the billing API (issue 12). Every operation of GET /v1/openapi.json is
 * fed requests derived from its own schema by fast-check: valid ones with real
 * ids (a customer with a subscription, invoice, payment, card, note, address and
 * a bulk job exist), and ones with wrong types, missing and extra fields,
 * boundary lengths, unicode (lone surrogates, NUL, RTL, emoji, combining marks),
 * deep nesting, list query-language nonsense, odd headers and odd path ids.
 * Every answer must keep the invariants of fuzz-kit.ts `check`.
 *
 * Normal suite: FUZZ_RUNS cases per operation (about a minute on PGlite).
 * Campaign: RENEW_FUZZ_RUNS=400 npx vitest run test/fuzz (see README "Tests").
 */
import fc from 'fast-check';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestApp, testCatalog, type TestApp } from '../helpers/test-app.js';
import {
  bodyArb,
  check,
  describeRequest,
  duplicateKeyBodyArb,
  encodePart,
  formatStats,
  FuzzFailure,
  headerSafe,
  listQuerystring,
  newStats,
  ODD_CONTENT_TYPES,
  ODD_PATH_IDS,
  oddHeaderValue,
  rawPayloads,
  replayOptions,
  runsPerOperation,
  validArb,
  wildString,
  type FuzzRequest,
  type Refs,
  type Schema,
  type Stats,
} from './fuzz-kit.js';
import { KNOWN } from './known-findings.js';

/** Cases per operation in the normal suite (about 50 operations). */
const FUZZ_RUNS = 100;
const RUNS = runsPerOperation(FUZZ_RUNS);
const HUGE_LIMITS = { perMinute: 100_000_000, perDay: 100_000_000 };

interface Operation {
  method: string;
  path: string;
  name: string;
  pathParams: Array<{ name: string; schema: Schema }>;
  queryParams: Array<{ name: string; schema: Schema }>;
  headerParams: Array<{ name: string; schema: Schema }>;
  body?: Schema;
  isList: boolean;
  isPublic: boolean;
}

function operationsOf(doc: any): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!['get', 'post', 'put', 'delete', 'patch'].includes(method)) continue;
      const params: any[] = op.parameters ?? [];
      const of = (where: string) =>
        params.filter((p) => p.in === where).map((p) => ({ name: p.name as string, schema: (p.schema ?? {}) as Schema }));
      const queryParams = of('query');
      ops.push({
        method: method.toUpperCase(),
        path,
        name: `${method.toUpperCase()} ${path}`,
        pathParams: of('path'),
        queryParams,
        headerParams: of('header'),
        body: op.requestBody?.content?.['application/json']?.schema,
        isList: queryParams.some((p) => p.name === 'query'),
        isPublic: Array.isArray(op.security) && op.security.length === 0,
      });
    }
  }
  return ops;
}

/* ------------------------------------------------------------------ a world of real objects */

interface World {
  refs: Refs;
  /** Known-good bodies by operation name: as read back (PUT) or as the tests send them (POST). */
  seeds: Record<string, unknown[]>;
  /** Real ids for `id` in a body, by operation name. */
  bodyIds: Record<string, number[]>;
}

// Built at collection time: the tests are named after the document's operations.
const t: TestApp = await startTestApp({
  catalog: testCatalog({ rateLimits: HUGE_LIMITS }),
  app: { bulkWorker: false, ...(process.env.RENEW_FUZZ_LOG ? { logger: { level: process.env.RENEW_FUZZ_LOG } } : {}) },
});
const operations: Operation[] = operationsOf((await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json());
const allStats: Array<[string, Stats]> = [];

async function ok(res: LightMyRequestResponse, what: string): Promise<any> {
  if (res.statusCode >= 300) throw new Error(`fixture ${what}: ${res.statusCode} ${res.body}`);
  return res.body ? res.json() : undefined;
}

/** A customer with a subscription, a posted invoice, a card, a payment and a refund of it, a note, an address; a draft customer; a bulk job. */
async function makeWorld(): Promise<World> {
  const call = t.call.bind(t);
  const customer = await ok(
    await call('POST', '/v1/customers', {
      firstName: 'Ada',
      lastName: 'Lovelace',
      primaryEmail: 'ada@example.com',
      reference: 'fuzz',
      customerReference: { reference1: 'r1', salesTrackingCodes: [{ type: 'Sales Tracking Code 1', code: 'WEB' }] },
    }),
    'customer',
  );
  const draft = await ok(await call('POST', '/v1/customers', { firstName: 'Draft' }), 'draft customer');
  const subscription = await ok(await call('POST', '/v1/subscriptions', { customerId: customer.id, planFrequencyId: 11 }), 'subscription');
  const card = await ok(
    await call('POST', '/v1/paymentmethods/creditcard', {
      customerId: customer.id,
      cardNumber: '4242424242424242',
      firstName: 'Ada',
      lastName: 'Lovelace',
      expirationMonth: 12,
      expirationYear: 30,
      cvv: '123',
      isDefault: true,
    }),
    'card',
  );
  const activated = await ok(
    await call('POST', '/v1/customeractivation?view=sideeffects', {
      customerId: customer.id,
      activateAllSubscriptions: true,
      activateAllDraftPurchases: false,
      temporarilyDisableAutoPost: false,
    }),
    'activation',
  );
  const invoices = (activated.invoices ?? []) as Array<{ id: number; invoiceAmount: number }>;
  const payment = await ok(await call('POST', '/v1/payments', { customerId: customer.id, amount: 5, paymentMethod: 'Check' }), 'payment');
  const refund = await ok(await call('POST', '/v1/refunds', { originalPaymentId: payment.id, amount: 1 }), 'refund');
  const note = await ok(await call('POST', '/v1/customernotes', { customerId: customer.id, note: 'fuzz note' }), 'note');
  const address = await ok(
    await call('POST', '/v1/Addresses', {
      customerAddressPreferenceId: customer.id,
      addressType: 'Billing',
      line1: '1 Main St',
      city: 'Ottawa',
      countryId: 124,
      postalZip: 'K1A 0B1',
    }),
    'address',
  );
  const bulk = await ok(
    await call('POST', '/v1/bulkPaymentSubmit', {
      accountUploadType: 'bulkPayment',
      data: [{ customerId: customer.id, amount: 1, paymentMethod: 'Check', reference: 'b1' }],
    }),
    'bulk job',
  );
  const plans = await ok(await call('GET', '/v1/Plans'), 'plans');
  const sub = await ok(await call('GET', `/v1/subscriptions/${subscription.id}`), 'subscription read');
  const read = async (url: string) => ok(await call('GET', url), url);
  const frequencies = (plans as any[]).flatMap((p) => p.planFrequencies ?? []);
  const amountIds = frequencies.flatMap((f: any) => [...(f.charges ?? []), ...(f.setupFees ?? [])].map((a: any) => a.id));
  const refs: Refs = {
    customerid: [customer.id, draft.id],
    customeraddresspreferenceid: [customer.id, draft.id],
    parentid: [draft.id],
    subscriptionid: [subscription.id],
    invoiceid: invoices.map((i) => i.id),
    paymentmethodid: [card.id],
    defaultpaymentmethodid: [card.id],
    paymentid: [payment.id],
    originalpaymentid: [payment.id],
    refundid: [refund.id],
    noteid: [note.id],
    addressid: [address.id],
    planid: (plans as any[]).map((p) => p.id),
    planfrequencyid: frequencies.map((f: any) => f.id),
    amountid: amountIds,
    subscriptionproductid: (sub.subscriptionProducts ?? []).map((p: any) => p.id),
    salestrackingcodeid: (customer.customerReference?.salesTrackingCodes ?? []).map((s: any) => s.id),
    bulkjobid: [bulk.id],
    countryid: [124, 840, '124', 'CA', 'us'],
    code: (plans as any[]).map((p) => p.code),
    amount: [1, '5.00', ...invoices.map((i) => i.invoiceAmount)],
    status: ['Active', 'Draft'],
    cardnumber: ['4242424242424242'],
    cvv: ['123'],
    expirationmonth: [12],
    expirationyear: [30],
  };
  const customerBody = await read(`/v1/customers/${customer.id}`);
  const seeds: Record<string, unknown[]> = {
    'POST /v1/customers': [{ firstName: 'Ada', billing: { country: 'CA', state: 'ON' }, billingSetting: { term: 'Net30' } }],
    'PUT /v1/customers': [customerBody],
    'PUT /v1/subscriptions': [sub],
    'POST /v1/subscriptions': [{ customerId: draft.id, planFrequencyId: 11 }],
    'PUT /v1/customerbillingsetting': [await read(`/v1/customerbillingsetting/${customer.id}`)],
    'PUT /v1/CustomerAddressPreferences': [await read(`/v1/customerAddressPreferences/${customer.id}`)],
    'PUT /v1/Addresses': [await read(`/v1/Addresses/${address.id}`)],
    'POST /v1/Addresses': [{ customerAddressPreferenceId: customer.id, addressType: 'Shipping', countryId: 840, stateId: 'US-NY' }],
    'PUT /v1/paymentMethods/creditCard': [await read(`/v1/paymentMethods/${card.id}/creditCard`)],
    'PUT /v1/CustomerEmailPreferences': [await read(`/v1/customers/${customer.id}/CustomerEmailPreferences`)],
    'POST /v1/customernotes': [{ customerId: customer.id, note: 'hello' }],
    'POST /v1/payments': [
      { customerId: customer.id, amount: 1, paymentMethodId: card.id },
      { customerId: customer.id, amount: '2.50', paymentMethod: 'Cash' },
    ],
    'POST /v1/paymentmethods/creditcard': [
      {
        customerId: draft.id,
        cardNumber: '4242424242424242',
        firstName: 'A',
        lastName: 'B',
        expirationMonth: 1,
        expirationYear: 40,
        cvv: '999',
      },
    ],
    'POST /v1/customeractivation': [
      { customerId: draft.id, activateAllSubscriptions: true, activateAllDraftPurchases: false, temporarilyDisableAutoPost: false },
    ],
    'POST /v1/customers/unhold': [{ customerId: customer.id, serviceStartOption: 'NoChargesForMissedPeriods' }],
    'POST /v1/customercancellation': [{ customerId: draft.id, cancellationOption: 'None' }],
    'POST /v1/refunds': [
      { originalPaymentId: payment.id, amount: 1 },
      { originalPaymentId: payment.id, amount: '0.50', method: 'Cash', reference: 'fuzz' },
    ],
    'POST /v1/bulkPaymentSubmit': [
      { accountUploadType: 'bulkPayment', data: [{ customerId: customer.id, amount: 1, paymentMethod: 'Check' }] },
      {
        accountUploadType: 'bulkPayment',
        data: [
          {
            customerId: customer.id,
            amount: 1,
            paymentMethod: 'CreditCard',
            useDefaultPaymentMethod: true,
            paymentAllocations: invoices.map((i) => ({ invoiceID: i.id, amount: 1 })),
          },
        ],
      },
    ],
    'POST /v1/BulkApi/Process': [{ id: bulk.id }],
  };
  const bodyIds: Record<string, number[]> = {
    'PUT /v1/customers': [customer.id, draft.id],
    'PUT /v1/subscriptions': [subscription.id],
    'PUT /v1/paymentMethods/creditCard': [card.id],
    'PUT /v1/customerbillingsetting': [customer.id, draft.id],
    'PUT /v1/Addresses': [address.id],
    'PUT /v1/CustomerAddressPreferences': [customer.id, draft.id],
    'POST /v1/BulkApi/Process': [bulk.id],
  };
  return { refs, seeds, bodyIds };
}

/* ------------------------------------------------------------------ requests of one operation */

const OTHER_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'];

function authArb(apiKey: string, publicKey: string) {
  return fc.oneof(
    { arbitrary: fc.constant<string | undefined>(`Basic ${apiKey}`), weight: 12 },
    {
      arbitrary: fc.oneof(
        fc.constantFrom<string | undefined>(
          undefined,
          '',
          'Basic',
          'Basic ',
          `Basic  ${apiKey}`,
          `basic ${apiKey}`,
          `BASIC ${apiKey}`,
          `Basic ${apiKey} `,
          `Basic ${apiKey}:`,
          `Bearer ${apiKey}`,
          `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`,
          `Basic ${Buffer.from(apiKey).toString('base64')}`,
          `Basic ${publicKey}`,
          `Basic ${apiKey.slice(0, -1)}`,
          `Basic ${apiKey}x`,
          `Basic ${'A'.repeat(10_000)}`,
          `Basic ${'A'.repeat(100_000)}`,
          'Basic %00',
          'Basic ÿÿÿÿ',
          'Digest username="x"',
          'Basic a b c',
          `${apiKey}`,
          `Basic ${'sk_'.repeat(30)}`,
          'Basic \t',
        ),
        oddHeaderValue.map((v) => `Basic ${v}`),
        oddHeaderValue,
      ),
      weight: 2,
    },
  );
}

function requestArb(op: Operation, world: World, keys: { apiKey: string; publicKey: string }): fc.Arbitrary<FuzzRequest> {
  const refs: Refs = { ...world.refs, ...(world.bodyIds[op.name] ? { id: world.bodyIds[op.name]! } : {}) };
  const pathArb = fc.tuple(
    ...op.pathParams.map((p) =>
      fc.oneof(
        { arbitrary: validArb(p.schema, p.name, world.refs).map((v) => ({ text: encodePart(String(v)), odd: false })), weight: 6 },
        { arbitrary: fc.constantFrom(...ODD_PATH_IDS).map((text) => ({ text, odd: true })), weight: 2 },
        { arbitrary: wildString(20).map((v) => ({ text: encodePart(v), odd: true })), weight: 1 },
      ),
    ),
  );
  const otherQuery = op.queryParams.filter((p) => !['query', 'pageSize', 'pageNumber', 'sortOrder', 'sortExpression'].includes(p.name));
  const queryArb = fc.oneof(
    {
      arbitrary: fc
        .tuple(
          ...otherQuery.map((p) =>
            fc.option(
              fc.oneof(
                validArb(p.schema, p.name, {}).map(String),
                fc.constantFrom('', 'TRUE', '1', 'yes', 'sideEffects', 'full,summary'),
                wildString(10),
              ),
              { nil: undefined },
            ),
          ),
        )
        .map((values) =>
          values
            .map((v, i) => (v === undefined ? '' : `${otherQuery[i]!.name}=${encodePart(v)}`))
            .filter(Boolean)
            .join('&'),
        ),
      weight: 3,
    },
    ...(op.isList ? [{ arbitrary: listQuerystring, weight: 6 }] : []),
    {
      arbitrary: fc.constantFrom(
        '',
        'x=1',
        '%',
        '%zz',
        'a=%ED%A0%80',
        `q=${'x'.repeat(5000)}`,
        '&'.repeat(100),
        'preview=true&preview=false',
      ),
      weight: 1,
    },
  );
  const bodyArbitrary = op.body
    ? fc.oneof(
        {
          arbitrary: bodyArb(op.body, refs, world.seeds[op.name] ?? []).map((b) => ({ payload: safeStringify(b.value), how: b.how })),
          weight: 14,
        },
        { arbitrary: rawPayloads.map((payload) => ({ payload, how: 'raw payload' })), weight: 2 },
        { arbitrary: duplicateKeyBodyArb(bodyArb(op.body, refs, world.seeds[op.name] ?? [])), weight: 3 },
        { arbitrary: fc.constant({ payload: undefined as string | undefined, how: 'no body' }), weight: 1 },
      )
    : fc.oneof(
        { arbitrary: fc.constant({ payload: undefined as string | undefined, how: 'no body' }), weight: 8 },
        {
          arbitrary: fc
            .constantFrom<string | undefined>('{}', '{"customerId":1}', 'null', '[]', 'x', deepJsonSmall())
            .map((payload) => ({ payload, how: 'unexpected body' })),
          weight: 1,
        },
      );
  const idempotency = op.headerParams.some((h) => h.name.toLowerCase() === 'idempotency-key')
    ? fc.option(
        fc.oneof(
          fc.uuid(),
          fc.constantFrom('fuzz-reused-key', '', ' ', 'x', 'k'.repeat(255), 'k'.repeat(256), 'k'.repeat(5000)),
          oddHeaderValue,
        ),
        { nil: undefined, freq: 2 },
      ) /* half */
    : sometimes(fc.constantFrom('unexpected-key', ''), 0.1);
  return fc
    .record({
      path: pathArb,
      query: queryArb,
      body: bodyArbitrary,
      authorization: authArb(keys.apiKey, keys.publicKey),
      contentType: fc.oneof(
        { arbitrary: fc.constant('application/json'), weight: 10 },
        { arbitrary: fc.constantFrom(...ODD_CONTENT_TYPES), weight: 2 },
        { arbitrary: oddHeaderValue, weight: 1 },
      ),
      idempotencyKey: idempotency,
      auditSource: sometimes(oddHeaderValue, 0.15),
      extraHeaders: sometimes(
        fc.constantFrom<Record<string, string>>(
          { 'accept-encoding': 'gzip, deflate, br' },
          { 'accept-encoding': 'identity;q=0, *;q=0' },
          { accept: 'text/html' },
          { accept: 'application/xml' },
          { 'x-http-method-override': 'DELETE' },
          { 'x-forwarded-for': '1.2.3.4, ::1, garbage' },
          { 'x-forwarded-proto': 'http' },
          { origin: 'https://evil.example' },
          { 'if-none-match': '*' },
          { 'if-none-match': '"x"' },
          { cookie: 'a=b' },
          { 'content-encoding': 'gzip' },
          { 'x-request-id': 'r'.repeat(5000) },
          { 'content-language': 'ar' },
          { range: 'bytes=0-1' },
        ),
        0.2,
      ),
      methodSwap: sometimes(fc.constantFrom(...OTHER_METHODS.filter((m) => m !== op.method)), 0.04),
    })
    .map(({ path, query, body, authorization, contentType, idempotencyKey, auditSource, extraHeaders, methodSwap }) => {
      let i = 0;
      const url = op.path.replace(/\{[^}]+\}/g, () => path[i++]!.text) + (query ? `?${query}` : '');
      const headers: Record<string, string> = { ...extraHeaders };
      if (authorization !== undefined) headers.authorization = headerSafe(authorization);
      if (body.payload !== undefined) headers['content-type'] = contentType;
      if (idempotencyKey !== undefined) headers['idempotency-key'] = headerSafe(idempotencyKey);
      if (auditSource !== undefined) headers['x-audit-source'] = auditSource;
      const odd = [
        path.some((p) => p.odd) && 'odd path id',
        body.how !== 'valid' && body.how,
        authorization !== `Basic ${keys.apiKey}` && 'odd authorization',
        body.payload !== undefined && contentType !== 'application/json' && 'odd content-type',
        methodSwap && `method ${methodSwap}`,
      ].filter(Boolean);
      // A property named twice is refused as soon as the body is parsed: what comes before (the route, the key) must be in order.
      const plain = odd.length === 1 && odd[0] === body.how && !extraHeaders;
      const duplicateKey = 'key' in body && typeof body.key === 'string' && plain ? { duplicateKey: body.key } : {};
      return {
        method: methodSwap ?? op.method,
        url,
        headers,
        ...(body.payload !== undefined ? { payload: body.payload } : {}),
        how: odd.join(', ') || 'valid',
        ...duplicateKey,
      };
    });
}

/** The value with probability p, else undefined. */
function sometimes<T>(arb: fc.Arbitrary<T>, p: number): fc.Arbitrary<T | undefined> {
  const weight = Math.round(p * 100);
  return fc.oneof({ arbitrary: fc.constant(undefined), weight: 100 - weight }, { arbitrary: arb, weight });
}

function deepJsonSmall(): string {
  return '['.repeat(5000) + ']'.repeat(5000);
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return '"unserialisable"';
  }
}

/** Cases every run includes: the known findings' own reproductions, and the edges the generators only sometimes reach. */
function examplesFor(op: Operation, world: World, apiKey: string): FuzzRequest[] {
  const headers = { authorization: `Basic ${apiKey}`, 'content-type': 'application/json' };
  const fill = (id: string) => op.path.replace(/\{[^}]+\}/g, id);
  const out: FuzzRequest[] = [];
  if (op.name === 'POST /v1/customernotes') {
    out.push({
      method: 'POST',
      url: op.path,
      headers,
      payload: JSON.stringify({ customerId: 1, note: '\ud800' }),
      how: 'known finding: lone surrogate note',
    });
    out.push({
      method: 'POST',
      url: op.path,
      headers,
      payload: JSON.stringify({ customerId: world.refs.customerid![0], note: '\ud800' }),
      how: 'lone surrogate note, real customer',
    });
  }
  if (op.pathParams.length > 0) {
    for (const id of ['9'.repeat(101), 'a'.repeat(300), '-1', String(2 ** 31), String(2 ** 53)]) {
      out.push({
        method: op.method,
        url: fill(id),
        headers: { authorization: `Basic ${apiKey}` },
        how: `path id ${id.length > 20 ? `${id.length} chars` : id}`,
      });
    }
  }
  if (op.body) {
    out.push({ method: op.method, url: fill('1'), headers, payload: deepJsonSmall(), how: 'deep nesting' });
    const seed = world.seeds[op.name]?.[0];
    const duplicated = seed && typeof seed === 'object' && !Array.isArray(seed) ? Object.keys(seed)[0] : undefined;
    if (duplicated) {
      const payload = `{${JSON.stringify(duplicated)}:null,${JSON.stringify(seed).slice(1)}`;
      out.push({
        method: op.method,
        url: fill(String(world.refs.customerid![0])),
        headers,
        payload,
        how: `duplicate key ${duplicated}`,
        duplicateKey: duplicated,
      });
    }
    out.push({
      method: op.method,
      url: fill('1'),
      headers,
      payload: '{"a":{"b":[{"c":1,"c":1}]}}',
      how: 'duplicate key a.b[0].c',
      duplicateKey: 'a.b[0].c',
    });
  }
  return out;
}

/** fast-check's report without its (possibly megabyte-long) counterexample dump: run, seed and path to replay, and the shrunk failure. */
function fuzzMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
  const head = message
    .split('\n')
    .filter((l) => /^Property failed|^\{ seed|^Shrunk/.test(l))
    .join(' ');
  if (cause instanceof FuzzFailure) return `${cause.message}\n  (${head})`;
  return `unexpected error ${cause ? `${cause.stack ?? cause.message}` : message.slice(0, 2000)}\n  (${head})`;
}

/* ------------------------------------------------------------------ the test */

afterAll(async () => {
  if (allStats.length > 0) console.log(`fuzz figures (${RUNS} generated cases per operation):\n${formatStats(allStats)}`);
  await t?.close();
});

describe('fuzzing every operation of /v1/openapi.json', () => {
  it('finds the operations in the OpenAPI document', () => {
    expect(operations.length).toBeGreaterThan(40);
  });

  for (const op of operations) {
    it(op.name, { timeout: Math.max(120_000, RUNS * 1500) }, async () => {
      const started = Date.now();
      const stats = newStats();
      allStats.push([op.name, stats]);
      const world = await makeWorld();
      const keys = { apiKey: t.account.apiKey, publicKey: t.account.publicApiKey };
      const app: FastifyInstance = t.app;
      const property = fc.asyncProperty(requestArb(op, world, keys), async (req) => {
        const res = await check(app, t.database.db, req, stats, KNOWN);
        // a top-level property whose name is empty has no field to name: the error is the request's ('Api Error')
        const expectedKey = req.duplicateKey === '' ? 'Api Error' : req.duplicateKey;
        if (req.duplicateKey !== undefined && !(res.statusCode === 400 && res.json().Errors?.[0]?.Key === expectedKey)) {
          throw new FuzzFailure(
            `a property named twice was not refused with 400 keyed "${expectedKey}"\n  request: ${describeRequest(req)}\n  response: ${res.statusCode} ${res.body.slice(0, 500)}`,
          );
        }
      });
      try {
        await fc.assert(property, { numRuns: RUNS, examples: examplesFor(op, world, keys.apiKey).map((e) => [e]), ...replayOptions() });
      } catch (error) {
        stats.ms = Date.now() - started;
        throw new FuzzFailure(`${op.name}: ${fuzzMessage(error)}`);
      }
      stats.ms = Date.now() - started;
      const known = [...stats.known.entries()].map(
        ([id, v]) => `${KNOWN.find((k) => k.id === id)!.message}\n  seen ${v.count}× on ${op.name}, e.g. ${v.example}`,
      );
      expect(known, `${op.name}:\n${known.join('\n')}`).toEqual([]);
    });
  }
});
