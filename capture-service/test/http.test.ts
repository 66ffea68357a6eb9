import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createAccount } from '@renew/billing-service/accounts';
import { MemoryRateLimitStore } from '@renew/billing-service/http';
import { testCatalog } from '../../billing-service/test/helpers/test-app.js';
import { errorsOf, startCaptureTest, type CaptureTest } from './helpers/capture-test.js';

let t: CaptureTest;
let customerId: number;
beforeAll(async () => {
  t = await startCaptureTest();
  customerId = await t.customer();
});
afterAll(async () => t?.close());

describe('the public key can do nothing but add a card', () => {
  it('GET on the capture endpoint is 405, other paths 404', async () => {
    const get = await t.app.inject({ method: 'GET', url: `/api/paymentsv2?publicApiKey=${t.account.publicApiKey}&customerId=${customerId}` });
    expect(get.statusCode).toBe(405);
    expect(get.headers.allow).toBe('POST');
    for (const url of [`/v1/customers/${customerId}`, `/v1/customers/${customerId}/paymentMethods/creditCard`, '/api/payments', '/']) {
      const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Basic ${t.account.publicApiKey}` } });
      expect(res.statusCode, url).toBe(404);
      errorsOf(res);
    }
  });

  it('is refused by the billing API', async () => {
    const res = await t.billing.app.inject({ method: 'GET', url: `/v1/customers/${customerId}`, headers: { authorization: `Basic ${t.account.publicApiKey}` } });
    expect(res.statusCode).toBe(401);
    expect(errorsOf(res)[0]!.Value).toMatch(/public API key/);
  });

  it('paths are case-insensitive and a trailing slash is ignored', async () => {
    expect((await t.post(t.params(customerId), { url: '/Api/PaymentsV2/' })).statusCode).toBe(200);
  });
});

describe('CORS', () => {
  const origin = 'https://any-shop.example';

  it('without allowed shop domains: any origin is reflected, preflight included', async () => {
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/paymentsv2',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers).toMatchObject({
      'access-control-allow-origin': origin,
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'Content-Type',
      'access-control-max-age': '600',
    });
    const res = await t.post(t.params(customerId), { headers: { origin } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(origin);
    expect(res.headers['access-control-expose-headers']).toMatch(/X-Rate-Limit-Remaining-Minute/);
    expect(res.headers.vary).toMatch(/Origin/);
    // Error responses are readable by the shop's page too.
    const bad = await t.post(t.params(customerId, { cvv: 'x' }), { headers: { origin } });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['access-control-allow-origin']).toBe(origin);
  });

  describe('with allowed shop domains', () => {
    let shops: FastifyInstance;
    beforeAll(async () => {
      shops = await t.build({ capture: { allowedShopDomains: ['https://shop.example.com', 'store.example.net'] } });
    });

    it('answers preflight broadly (the account is only known from the body)', async () => {
      const preflight = await shops.inject({ method: 'OPTIONS', url: '/api/paymentsv2', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
      expect(preflight.statusCode).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('https://evil.example');
    });

    it('allows the listed origins', async () => {
      for (const allowed of ['https://shop.example.com', 'https://store.example.net', 'http://store.example.net:8080']) {
        const res = await t.post(t.params(customerId), { app: shops, headers: { origin: allowed } });
        expect(res.statusCode, `${allowed} ${res.body}`).toBe(200);
        expect(res.headers['access-control-allow-origin']).toBe(allowed);
      }
    });

    it('refuses any other origin with 403 and no Access-Control-Allow-Origin, storing nothing', async () => {
      const fresh = await t.customer();
      for (const origin of ['https://evil.example', 'http://shop.example.com', 'https://shop.example.com.evil.example', 'null']) {
        const res = await t.post(t.params(fresh), { app: shops, headers: { origin } });
        expect(res.statusCode, origin).toBe(403);
        expect(errorsOf(res)[0]!.Value).toBe(`origin ${origin} is not one of the account's shop domains`);
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
      }
      expect((await t.billing.call('GET', `/v1/customers/${fresh}/paymentMethods/creditCard`)).json()).toEqual([]);
    });

    it('lets requests without an Origin through (not from a browser)', async () => {
      expect((await t.post(t.params(customerId), { app: shops })).statusCode).toBe(200);
    });
  });
});

describe('rate limits', () => {
  it('per client address: 429 with the spec body and headers after the limit, other addresses unaffected', async () => {
    const limited = await t.build({ ipRateLimits: { perMinute: 3, perDay: 100 }, rateLimitStore: new MemoryRateLimitStore() });
    const ip = '192.0.2.99';
    for (let i = 0; i < 3; i++) {
      const res = await t.post(t.params(customerId, { publicApiKey: 'pk_guessing_guessing' }), { app: limited, remoteAddress: ip });
      expect(res.statusCode).toBe(401);
      expect(res.headers['x-rate-limit-remaining-minute']).toBe(String(2 - i));
    }
    const res = await t.post(t.params(customerId), { app: limited, remoteAddress: ip });
    expect(res.statusCode).toBe(429);
    expect(errorsOf(res)).toEqual([{ Key: 'Api Error', Value: 'rate limit exceeded: 3 requests per minute' }]);
    expect(res.headers).toMatchObject({ 'x-rate-limit-limit-minute': '3', 'x-rate-limit-remaining-minute': '0', 'x-rate-limit-limit-day': '100' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.headers['x-rate-limit-reset-minute']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00\.000Z$/);
    expect((await t.post(t.params(customerId), { app: limited, remoteAddress: '192.0.2.100' })).statusCode).toBe(200);
  });

  it("per public key: the account's own limits", async () => {
    const small = await createAccount(t.billing.database.db, testCatalog({ rateLimits: { perMinute: 2, perDay: 50 } }));
    const account = { accountId: small.account.id, apiKey: small.apiKey, publicApiKey: small.publicApiKey };
    const theirs = await t.customer({}, account);
    const app = await t.build({ rateLimitStore: new MemoryRateLimitStore() });
    for (let i = 0; i < 2; i++) {
      const ok = await t.post(t.params(theirs, { publicApiKey: small.publicApiKey }), { app });
      expect(ok.statusCode, ok.body).toBe(200);
      expect(ok.headers['x-rate-limit-limit-minute']).toBe('2');
    }
    const res = await t.post(t.params(theirs, { publicApiKey: small.publicApiKey }), { app });
    expect(res.statusCode).toBe(429);
    expect(errorsOf(res)[0]!.Value).toBe('rate limit exceeded: 2 requests per minute');
    // Another account's key is not affected.
    expect((await t.post(t.params(customerId), { app })).statusCode).toBe(200);
  });
});
