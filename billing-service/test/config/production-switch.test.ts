import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { MemoryRateLimitStore } from '../../src/http/rate-limit.js';
import { errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

/** Ways of saying production that must all count: the explicit switch, and NODE_ENV as people type it. */
const PRODUCTION: Array<Record<string, string>> = [
  { NODE_ENV: 'production' },
  { NODE_ENV: 'Production' },
  { NODE_ENV: ' PRODUCTION ' },
  { RENEW_ENV: 'production' },
  { RENEW_ENV: 'Production', NODE_ENV: 'development' },
];

describe('production, said by NODE_ENV in any casing or by RENEW_ENV=production', () => {
  it.each(PRODUCTION)('%o refuses test clocks and requires TLS: a plain HTTP request is refused', async (env) => {
    expect(() => loadConfig({ ...env, RENEW_TEST_CLOCKS: 'true' })).toThrow(/RENEW_TEST_CLOCKS=true is refused in production/);
    const config = loadConfig(env);
    expect(config).toMatchObject({ production: true, requireTls: true, testClocks: false });

    const app = await buildApp({
      db: t.database.db,
      catalog: t.catalog,
      rateLimitStore: new MemoryRateLimitStore(),
      publicBaseUrl: 'https://billing.test',
      requireTls: config.requireTls,
    });
    try {
      const plain = await app.inject({ method: 'GET', url: '/v1/customers', headers: { authorization: `Basic ${t.account.apiKey}` } });
      expect(plain.statusCode).toBe(403);
      expect(errorsOf(plain)[0]!.Value).toMatch(/HTTPS is required/);
    } finally {
      await app.close();
    }
  });

  it('is not production otherwise: test clocks allowed, plain HTTP served (RENEW_REQUIRE_TLS still decides explicitly)', async () => {
    for (const env of [{}, { NODE_ENV: 'development' }, { NODE_ENV: 'productionish' }, { RENEW_ENV: 'staging' }]) {
      expect(loadConfig({ ...env, RENEW_TEST_CLOCKS: 'true' }), JSON.stringify(env)).toMatchObject({
        production: false,
        requireTls: false,
        testClocks: true,
      });
    }
    expect(loadConfig({ NODE_ENV: 'Production', RENEW_REQUIRE_TLS: 'false' }).requireTls).toBe(false);
    const config = loadConfig({ NODE_ENV: 'development' });
    const app = await buildApp({
      db: t.database.db,
      catalog: t.catalog,
      rateLimitStore: new MemoryRateLimitStore(),
      publicBaseUrl: 'https://billing.test',
      requireTls: config.requireTls,
    });
    try {
      expect(
        (await app.inject({ method: 'GET', url: '/v1/customers', headers: { authorization: `Basic ${t.account.apiKey}` } })).statusCode,
      ).toBe(200);
    } finally {
      await app.close();
    }
  });
});
