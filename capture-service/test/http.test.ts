import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createAccount } from '@renew/billing-service/accounts';
import { MemoryRateLimitStore } from '@renew/billing-service/http';
import { testCatalog } from '../../billing-service/test/helpers/test-app.js';
import { DEFAULT_IP_RATE_LIMITS } from '../src/app.js';
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
    const get = await t.app.inject({
      method: 'GET',
      url: `/api/paymentsv2?publicApiKey=${t.account.publicApiKey}&customerId=${customerId}`,
    });
    expect(get.statusCode).toBe(405);
    expect(get.headers.allow).toBe('POST');
    for (const url of [`/v1/customers/${customerId}`, `/v1/customers/${customerId}/paymentMethods/creditCard`, '/api/payments', '/']) {
      const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Basic ${t.account.publicApiKey}` } });
      expect(res.statusCode, url).toBe(404);
      errorsOf(res);
    }
  });

  it('is refused by the billing API', async () => {
    const res = await t.billing.app.inject({
      method: 'GET',
      url: `/v1/customers/${customerId}`,
      headers: { authorization: `Basic ${t.account.publicApiKey}` },
    });
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
      const preflight = await shops.inject({
        method: 'OPTIONS',
        url: '/api/paymentsv2',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
      });
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
    expect(errorsOf(res)).toEqual([{ Key: 'Api Error', Value: 'rate limit exceeded: 3 requests per minute', Code: 'rate_limited' }]);
    expect(res.headers).toMatchObject({
      'x-rate-limit-limit-minute': '3',
      'x-rate-limit-remaining-minute': '0',
      'x-rate-limit-limit-day': '100',
    });
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

  it("does not let strangers spend the key's budget: requests that fail authentication count against their address only", async () => {
    await awayFromMinuteBoundary();
    const account = await t.billing.newAccount();
    await t.billing.database.db
      .updateTable('accounts')
      .set({ rateLimitPerMinute: 1000, rateLimitPerDay: 100_000 })
      .where('id', '=', account.accountId)
      .execute();
    const app = await t.build({ ipRateLimits: DEFAULT_IP_RATE_LIMITS });
    const shopper = await t.customer({}, account);
    // 1,010 requests carrying the public key, from 60 addresses, each under its per-address limit (30 a minute):
    // the public key alone, or a CAPTCHA that was never solved.
    const answers = new Map<number, number>();
    for (let i = 0; i < 1010; i++) {
      const remoteAddress = `203.0.113.${100 + (i % 60)}`;
      const params =
        i % 2 === 0
          ? { publicApiKey: account.publicApiKey }
          : t.params(shopper, { publicApiKey: account.publicApiKey, recaptcha: `forged-${i}` });
      const res = await t.post(params, { app, remoteAddress });
      answers.set(res.statusCode, (answers.get(res.statusCode) ?? 0) + 1);
    }
    expect(Object.fromEntries(answers)).toEqual({ 400: 1010 });
    // The shopper's real capture (the shop's capture token, a solved CAPTCHA) still goes through.
    const captureToken = await t.captureToken(shopper, {}, account);
    const real = await t.post(t.params(shopper, { publicApiKey: account.publicApiKey, captureToken }), {
      app,
      remoteAddress: '198.51.100.200',
    });
    expect(real.statusCode, real.body).toBe(200);
    // It was the first request to count against the key.
    expect(real.headers['x-rate-limit-remaining-minute']).toBe('999');
  });

  it('counts the addresses of one IPv6 /64 as one address', async () => {
    await awayFromMinuteBoundary();
    const app = await t.build({ ipRateLimits: DEFAULT_IP_RATE_LIMITS, rateLimitStore: new MemoryRateLimitStore() });
    // 35 addresses of 2001:db8:aa:bb::/64: one budget of 30 a minute between them.
    const statuses: number[] = [];
    for (let i = 1; i <= 35; i++) {
      const res = await t.post(
        { publicApiKey: t.account.publicApiKey },
        { app, remoteAddress: `2001:db8:aa:bb:${i.toString(16)}:0:0:${(i * 7).toString(16)}` },
      );
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([...new Array<number>(30).fill(400), ...new Array<number>(5).fill(429)]);
    // The next /64 is another client.
    expect((await t.post({ publicApiKey: t.account.publicApiKey }, { app, remoteAddress: '2001:db8:aa:bc::1' })).statusCode).toBe(400);
  });
});

/** Counting tests must not straddle a minute boundary, where the window (rightly) starts again. */
async function awayFromMinuteBoundary() {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
}
