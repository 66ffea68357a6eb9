import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimitStore } from '@renew/billing-service/http';
import { loadCaptureConfig } from '../src/config.js';
import { buildCaptureApp } from '../src/app.js';
import { DevCaptcha } from '../src/captcha/dev-captcha.js';
import { BASE_URL, testCatalog } from '../../billing-service/test/helpers/test-app.js';
import { errorsOf, freshIp, startCaptureTest, type CaptureTest } from './helpers/capture-test.js';
import { metricSample as sample, rateLimitHeaders } from '../../billing-service/test/helpers/api-fixtures.js';

let t: CaptureTest;
let customerId: number;
beforeAll(async () => {
  t = await startCaptureTest();
  customerId = await t.customer();
});
afterAll(async () => t?.close());

const TOKEN = 'capture-metrics-token-42';

describe('the capture host: /healthz, /readyz, /metrics', () => {
  it('answer without a key and are never limited by the per-address limit, which still applies to captures', async () => {
    const app = await t.build({ ipRateLimits: { perMinute: 2, perDay: 2 } });
    const remoteAddress = '198.51.100.200';
    for (let i = 0; i < 10; i++) {
      for (const url of ['/healthz', '/readyz', '/metrics']) {
        const res = await app.inject({ method: 'GET', url, remoteAddress: url === '/metrics' ? '127.0.0.1' : remoteAddress });
        expect(res.statusCode, `${url} #${i}: ${res.body}`).toBe(200);
        expect(rateLimitHeaders(res)).toEqual([]);
      }
    }
    const ready = await app.inject({ method: 'GET', url: '/readyz', remoteAddress });
    expect(ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok', backgroundTasks: {} } });
    // The same address gets two captures a minute: the probes above did not use them up.
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await t.post(t.params(customerId), { app, remoteAddress })).statusCode);
    expect(statuses).toEqual([200, 200, 429]);
    const after = await app.inject({ method: 'GET', url: '/healthz', remoteAddress });
    expect(after.statusCode).toBe(200);
    expect(after.json()).toMatchObject({ status: 'ok' });
  });

  it('counts captures by route pattern and status, and the payments they collect by outcome', async () => {
    const app = await t.build();
    const scrape = async () => (await app.inject({ method: 'GET', url: '/metrics' })).body;
    const before = await scrape();
    expect(sample(before, 'renew_payments_total{status="succeeded"}')).toBe(0);
    expect(sample(before, 'renew_payments_total{status="failed"}')).toBe(0);

    expect((await t.post(t.params(customerId, { paymentCollectOptions: { collectionAmount: '12.50' } }), { app })).statusCode).toBe(200);
    expect(
      (await t.post(t.params(customerId, { cardNumber: '4000000000009995', paymentCollectOptions: { collectionAmount: '5.00' } }), { app }))
        .statusCode,
    ).toBe(400);
    const res = await app.inject({ method: 'GET', url: '/metrics' });
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sample(res.body, 'renew_payments_total{status="succeeded"}')).toBe(1);
    expect(sample(res.body, 'renew_payments_total{status="failed"}')).toBe(1);
    expect(sample(res.body, 'renew_http_requests_total{method="POST",route="/api/paymentsv2",status_code="200"}')).toBe(1);
    expect(sample(res.body, 'renew_http_requests_total{method="POST",route="/api/paymentsv2",status_code="400"}')).toBe(1);
    // The capture host has no queues of its own, and the billing API's metrics are not mixed in.
    expect(res.body).not.toContain('renew_email_outbox_pending');
    expect(sample((await t.billing.app.inject({ method: 'GET', url: '/metrics' })).body, 'renew_payments_total{status="succeeded"}')).toBe(
      0,
    );
  });

  it('without a token, refuses /metrics to a non-loopback client (403), whatever the CORS origin', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      remoteAddress: freshIp(),
      headers: { origin: 'https://shop.example.com' },
    });
    expect(res.statusCode).toBe(403);
    expect(errorsOf(res)[0]!.Value).toMatch(/loopback/);
  });

  it('with RENEW_METRICS_TOKEN, needs the bearer token (401 without) and answers it from anywhere', async () => {
    const app = await buildCaptureApp({
      db: t.billing.database.db,
      catalog: testCatalog(),
      rateLimitStore: new MemoryRateLimitStore(),
      captcha: new DevCaptcha(),
      publicBaseUrl: BASE_URL,
      observability: { metricsToken: TOKEN },
    });
    try {
      const refused = await app.inject({ method: 'GET', url: '/metrics' });
      expect(refused.statusCode).toBe(401);
      expect(errorsOf(refused)[0]!.Value).toMatch(/Bearer/);
      const ok = await app.inject({
        method: 'GET',
        url: '/metrics',
        remoteAddress: '203.0.113.50',
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(ok.statusCode).toBe(200);
      expect(ok.body).toContain('renew_http_requests_total');
    } finally {
      await app.close();
    }
  });

  it('probes answer over plain HTTP where HTTPS is required; captures and /metrics do not', async () => {
    const app = await buildCaptureApp({
      db: t.billing.database.db,
      catalog: testCatalog(),
      rateLimitStore: new MemoryRateLimitStore(),
      captcha: new DevCaptcha(),
      publicBaseUrl: BASE_URL,
      requireTls: true,
    });
    try {
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(403);
      expect((await t.post(t.params(customerId), { app })).statusCode).toBe(403);
    } finally {
      await app.close();
    }
  });

  it('reads the metrics token from the shared RENEW_METRICS_TOKEN', () => {
    expect(loadCaptureConfig({ RENEW_METRICS_TOKEN: TOKEN, RENEW_CAPTCHA: 'dev' }).metricsToken).toBe(TOKEN);
    expect(loadCaptureConfig({ RENEW_CAPTCHA: 'dev' }).metricsToken).toBeUndefined();
  });
});
