/**
 * Fuzzing the card-capture host (issue 12): POST /api/paymentsv2 fed by
 * fast-check with parameters derived from the spec's table (JSON, form body or
 * query string): valid ones (a real customer, the public key, a fresh CAPTCHA
 * token) and ones with wrong types, missing, extra, repeated and re-cased
 * names, boundary lengths, unicode (lone surrogates, NUL, RTL, emoji, combining
 * marks), deep nesting, odd content types, origins, methods and paths. The
 * per-address and per-key limits are raised so the limiter does not hide what
 * is behind it. Every answer must keep the invariants of
 * billing-service/test/fuzz/fuzz-kit.ts `check`.
 *
 * Normal suite: FUZZ_RUNS cases; campaign: RENEW_FUZZ_RUNS (see README "Tests").
 */
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { MemoryRateLimitStore } from '@renew/billing-service/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCaptureApp } from '../src/app.js';
import { SiteverifyCaptcha } from '../src/captcha/siteverify-captcha.js';
import { startTestApp, testCatalog, type TestApp } from '../../billing-service/test/helpers/test-app.js';
import {
  bodyArb,
  check,
  encodePart,
  formatStats,
  FuzzFailure,
  headerSafe,
  newStats,
  ODD_CONTENT_TYPES,
  oddHeaderValue,
  rawPayloads,
  replayOptions,
  runsPerOperation,
  type FuzzRequest,
  type Refs,
  type Schema,
} from '../../billing-service/test/fuzz/fuzz-kit.js';
import { KNOWN } from '../../billing-service/test/fuzz/known-findings.js';
import { SiteverifyStub } from './helpers/siteverify-stub.js';

/** Cases per operation, as in the billing API's fuzz test; the host has one operation, so it gets four shares (400 in the normal suite). */
const FUZZ_RUNS = 100;
const RUNS = runsPerOperation(FUZZ_RUNS) * 4;
const SECRET = 'fuzz-recaptcha-secret';
const HOST = 'shop.example.com';
const HUGE_LIMITS = { perMinute: 100_000_000, perDay: 100_000_000 };
const FRESH_TOKEN = '$fresh-token';

/** The spec's parameter table ("Card capture host") as a JSON Schema; bounds as the table and the card fields state them. */
const CAPTURE_SCHEMA: Schema = {
  type: 'object',
  properties: {
    customerId: { type: 'integer', exclusiveMinimum: 0, maximum: 2_147_483_647 },
    publicApiKey: { type: 'string', minLength: 1, maxLength: 200 },
    cardNumber: { type: 'string', minLength: 12, maxLength: 19 },
    firstName: { type: 'string', minLength: 1, maxLength: 50 },
    lastName: { type: 'string', minLength: 1, maxLength: 50 },
    expirationMonth: { type: 'integer', minimum: 1, maximum: 12 },
    expirationYear: { type: 'integer', minimum: 0, maximum: 99 },
    cvv: { type: 'string', minLength: 3, maxLength: 4 },
    riskToken: { type: 'string', maxLength: 1000 },
    clientIp: { type: 'string', maxLength: 45 },
    email: { type: 'string', maxLength: 255 },
    makeDefault: { type: 'boolean' },
    recaptcha: { type: 'string', maxLength: 2000 },
    address1: { type: 'string', maxLength: 50 },
    address2: { type: 'string', maxLength: 50 },
    city: { type: 'string', maxLength: 50 },
    stateId: { type: 'integer' },
    countryId: { type: 'integer', minimum: 1, maximum: 999 },
    postalZip: { type: 'string', maxLength: 10 },
    paymentCollectOptions: {
      type: 'object',
      properties: { collectionAmount: { anyOf: [{ type: 'number' }, { type: 'string', pattern: '^\\d+(\\.\\d+)?$' }] } },
    },
  },
  required: [
    'customerId',
    'publicApiKey',
    'cardNumber',
    'firstName',
    'lastName',
    'expirationMonth',
    'expirationYear',
    'cvv',
    'riskToken',
    'clientIp',
    'email',
    'recaptcha',
  ],
};

let billing: TestApp;
let stub: SiteverifyStub;
let capture: FastifyInstance;
const stats = newStats();

beforeAll(async () => {
  billing = await startTestApp({ catalog: testCatalog({ rateLimits: HUGE_LIMITS }), app: { bulkWorker: false } });
  stub = await new SiteverifyStub(new Set([SECRET])).start();
  capture = await buildCaptureApp({
    db: billing.database.db,
    // The fuzzed requests are the spec's own, without a capture token: draftOnly, an opt-in, lets valid ones through.
    catalog: { ...billing.catalog, capture: { ...billing.catalog.capture, tokenlessCapture: 'draftOnly' } },
    rateLimitStore: new MemoryRateLimitStore(),
    captcha: new SiteverifyCaptcha({ url: stub.url, timeoutMs: 2000 }),
    recaptchaSecret: SECRET,
    publicBaseUrl: 'https://billing.test',
    // The per-address limit raised through the host's own option: the limiter must not hide what is behind it.
    ipRateLimits: HUGE_LIMITS,
  });
});

afterAll(async () => {
  console.log(`capture fuzz figures:\n${formatStats([['POST /api/paymentsv2', stats]])}`);
  await capture?.close();
  await stub?.stop();
  await billing?.close();
});

/** Form fields, the nested collection amount under its dotted name; arrays and objects as their text. */
function formOf(params: Record<string, unknown>, repeat?: string): string {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    if (key === 'paymentCollectOptions' && value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [inner, v] of Object.entries(value)) form.append(`PaymentCollectOptions.${inner}`, String(v));
    } else {
      form.append(key, typeof value === 'object' ? JSON.stringify(value) : String(value));
      if (repeat === key) form.append(key, 'again');
    }
  }
  // URLSearchParams cannot carry a lone surrogate (it writes U+FFFD): encode by hand so the oddity reaches the server.
  return [...form.entries()].map(([k, v]) => `${encodePart(k)}=${encodePart(v)}`).join('&');
}

function recased(params: Record<string, unknown>, how: 'upper' | 'lower' | 'g-recaptcha'): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) {
    if (how === 'g-recaptcha' && k === 'recaptcha') out['g-recaptcha-response'] = v;
    else out[how === 'upper' ? k.toUpperCase() : how === 'lower' ? k.toLowerCase() : k] = v;
  }
  return out;
}

/** A fresh CAPTCHA token where the generator put the placeholder (top-level fields only: values may be nested thousands deep). */
function withTokens(value: unknown): unknown {
  if (value === FRESH_TOKEN) return stub.issue(SECRET, HOST);
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, v === FRESH_TOKEN ? stub.issue(SECRET, HOST) : v]));
  }
  return value;
}

describe('fuzzing the card-capture host', () => {
  it('POST /api/paymentsv2 keeps every invariant', { timeout: Math.max(180_000, RUNS * 500) }, async () => {
    const started = Date.now();
    const customers: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await billing.call('POST', '/v1/customers', { firstName: 'Ada', lastName: `Fuzz ${i}` });
      expect(res.statusCode, res.body).toBe(200);
      customers.push(res.json().id);
    }
    const otherAccount = await billing.newAccount();
    const refs: Refs = {
      customerid: customers,
      publicapikey: [billing.account.publicApiKey],
      recaptcha: [FRESH_TOKEN, FRESH_TOKEN, FRESH_TOKEN, 'used-or-unknown-token'],
      cardnumber: ['4242424242424242', '5555555555554444', '4000000000000002', '4242 4242 4242 4242', '4242424242424241'],
      cvv: ['123', '0123', '999'],
      risktoken: ['rt_7f3a9c'],
      clientip: ['203.0.113.7', '::1', '2001:db8::1'],
      email: ['ada@example.com'],
      expirationmonth: [12, 1],
      expirationyear: [30, 40],
      countryid: [124, 840],
      collectionamount: [1, '2.50', '0.01', 0],
    };
    const valid = {
      customerId: customers[0],
      publicApiKey: billing.account.publicApiKey,
      cardNumber: '4242424242424242',
      firstName: 'Ada',
      lastName: 'Lovelace',
      expirationMonth: 12,
      expirationYear: 30,
      cvv: '123',
      riskToken: 'rt_7f3a9c',
      clientIp: '203.0.113.7',
      email: 'ada@example.com',
      recaptcha: FRESH_TOKEN,
    };
    const seeds = [
      valid,
      { ...valid, makeDefault: true, paymentCollectOptions: { collectionAmount: '1.00' } },
      { ...valid, publicApiKey: otherAccount.publicApiKey },
      { ...valid, publicApiKey: billing.account.apiKey },
    ];
    // One capture and one collection before measuring: the first of each compiles its code path (JIT, lazy
    // imports), which on a busy machine alone can pass the CPU budget; the budget is for what a request costs.
    for (const warmUp of [
      { ...valid, customerId: customers[2] },
      { ...valid, customerId: customers[2], paymentCollectOptions: { collectionAmount: '1.00' } },
    ]) {
      const res = await capture.inject({
        method: 'POST',
        url: '/api/paymentsv2',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(withTokens(warmUp)),
      });
      expect(res.statusCode, res.body).toBe(200);
    }

    const arb = fc
      .record({
        body: bodyArb(CAPTURE_SCHEMA, refs, seeds),
        encoding: fc.constantFrom('json', 'json', 'json', 'form', 'form', 'query', 'raw'),
        raw: rawPayloads,
        rename: fc.constantFrom(undefined, undefined, undefined, undefined, undefined, 'upper', 'lower', 'g-recaptcha'),
        repeat: fc.constantFrom(undefined, undefined, undefined, undefined, 'customerId', 'cardNumber', 'recaptcha'),
        contentType: fc.oneof(
          { arbitrary: fc.constant(undefined), weight: 10 },
          { arbitrary: fc.constantFrom(...ODD_CONTENT_TYPES), weight: 2 },
          { arbitrary: oddHeaderValue, weight: 1 },
        ),
        origin: fc.oneof(
          { arbitrary: fc.constant(undefined), weight: 8 },
          {
            arbitrary: fc.constantFrom('https://shop.example.com', 'null', 'https://evil.example', 'http://[::1]', 'x'.repeat(3000)),
            weight: 1,
          },
          { arbitrary: oddHeaderValue, weight: 1 },
        ),
        extraHeaders: fc.oneof(
          { arbitrary: fc.constant({}), weight: 8 },
          {
            arbitrary: fc.constantFrom<Record<string, string>>(
              { authorization: `Basic ${'A'.repeat(10_000)}` },
              { authorization: 'Bearer x' },
              { 'x-forwarded-for': '1.1.1.1, garbage' },
              { 'idempotency-key': 'k'.repeat(300) },
              { 'accept-encoding': 'gzip' },
              { 'content-encoding': 'gzip' },
              { accept: 'text/html' },
            ),
            weight: 1,
          },
        ),
        target: fc.oneof(
          { arbitrary: fc.constant({ method: 'POST', url: '/api/paymentsv2' }), weight: 30 },
          {
            arbitrary: fc.constantFrom(
              { method: 'GET', url: '/api/paymentsv2' },
              { method: 'PUT', url: '/api/paymentsv2' },
              { method: 'DELETE', url: '/api/paymentsv2' },
              { method: 'PATCH', url: '/api/paymentsv2' },
              { method: 'OPTIONS', url: '/api/paymentsv2' },
              { method: 'POST', url: '/api/paymentsv2/' },
              { method: 'POST', url: '/API/PAYMENTSV2' },
              { method: 'POST', url: '/api/paymentsv2/1' },
              { method: 'POST', url: `/api/paymentsv2/${'9'.repeat(300)}` },
              { method: 'POST', url: '/api/%zz' },
              { method: 'POST', url: '/api/paymentsv2%00' },
              { method: 'POST', url: '/v1/customers' },
              { method: 'POST', url: '/' },
              { method: 'POST', url: '/api/paymentsv2?%' },
              { method: 'POST', url: '/api/paymentsv2?customerId=1&customerId=2' },
            ),
            weight: 2,
          },
        ),
      })
      .map(({ body, encoding, raw, rename, repeat, contentType, origin, extraHeaders, target }): FuzzRequest => {
        let value = withTokens(body.value);
        if (rename && value && typeof value === 'object' && !Array.isArray(value))
          value = recased(value as Record<string, unknown>, rename);
        const headers: Record<string, string> = { ...extraHeaders };
        if (origin !== undefined) headers.origin = headerSafe(origin);
        let url = target.url;
        let payload: string | undefined;
        const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
        if (encoding === 'json') {
          payload = JSON.stringify(value) ?? 'null';
          headers['content-type'] = contentType ?? 'application/json';
        } else if (encoding === 'form' && isObject) {
          payload = formOf(value as Record<string, unknown>, repeat);
          headers['content-type'] = contentType ?? 'application/x-www-form-urlencoded';
        } else if (encoding === 'query' && isObject) {
          url += `${url.includes('?') ? '&' : '?'}${formOf(value as Record<string, unknown>, repeat)}`;
          if (contentType !== undefined) headers['content-type'] = contentType;
        } else {
          payload = raw;
          headers['content-type'] = contentType ?? 'application/json';
        }
        const how = [
          body.how,
          `as ${encoding}`,
          rename && `names ${rename}`,
          repeat && `${repeat} repeated`,
          contentType !== undefined && 'odd content-type',
          origin !== undefined && 'origin',
          target.url !== '/api/paymentsv2' || target.method !== 'POST' ? `${target.method} ${target.url}` : '',
        ]
          .filter(Boolean)
          .join(', ');
        return { method: target.method, url, headers, ...(payload !== undefined ? { payload } : {}), remoteAddress: '203.0.113.99', how };
      });

    // Warm-up, not measured: the first card stored compiles and loads what every later one reuses.
    for (const params of [
      valid,
      { ...valid, paymentCollectOptions: { collectionAmount: '1.00' } },
      { ...valid, cardNumber: '4000000000000002' },
    ]) {
      await capture.inject({
        method: 'POST',
        url: '/api/paymentsv2',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(withTokens(params)),
        remoteAddress: '203.0.113.99',
      });
      await capture.inject({
        method: 'POST',
        url: '/api/paymentsv2',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: formOf(withTokens(params) as Record<string, unknown>),
        remoteAddress: '203.0.113.99',
      });
    }

    const examples: FuzzRequest[] = [
      {
        method: 'POST',
        url: '/api/paymentsv2',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ ...valid, recaptcha: stub.issue(SECRET, HOST), firstName: '\ud800' }),
        remoteAddress: '203.0.113.99',
        how: 'lone surrogate firstName',
      },
      {
        method: 'POST',
        url: '/api/paymentsv2',
        headers: { 'content-type': 'application/json' },
        payload: '['.repeat(6000) + ']'.repeat(6000),
        remoteAddress: '203.0.113.99',
        how: 'deep nesting',
      },
      {
        method: 'POST',
        url: `/api/paymentsv2?${formOf({ ...valid, recaptcha: 'x', address1: 'a'.repeat(51) })}`,
        headers: {},
        remoteAddress: '203.0.113.99',
        how: 'address1 of 51 in the query string',
      },
    ];
    try {
      await fc.assert(
        fc.asyncProperty(arb, async (req) => {
          await check(capture, billing.database.db, req, stats, KNOWN);
        }),
        { numRuns: RUNS, examples: examples.map((e) => [e]), ...replayOptions() },
      );
    } catch (error) {
      stats.ms = Date.now() - started;
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
      const head = (error instanceof Error ? error.message : String(error))
        .split('\n')
        .filter((l) => /^Property failed|^\{ seed|^Shrunk/.test(l))
        .join(' ');
      throw new FuzzFailure(
        `POST /api/paymentsv2: ${cause instanceof FuzzFailure ? cause.message : `unexpected error ${cause?.stack ?? String(error).slice(0, 2000)}`}\n  (${head})`,
      );
    }
    stats.ms = Date.now() - started;
    const known = [...stats.known.entries()].map(
      ([id, v]) => `${KNOWN.find((k) => k.id === id)!.message}\n  seen ${v.count}× on POST /api/paymentsv2, e.g. ${v.example}`,
    );
    expect(known, `POST /api/paymentsv2:\n${known.join('\n')}`).toEqual([]);
    // The fuzzing reached past validation: some requests stored a card.
    expect(stats.byStatus[200] ?? 0, JSON.stringify(stats.byStatus)).toBeGreaterThan(0);
  });
});
