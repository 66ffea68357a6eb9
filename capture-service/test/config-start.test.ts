import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp, DEMO_CATALOG_PATH } from '@renew/billing-service';
import { createAccount } from '@renew/billing-service/accounts';
import { loadCatalog, parseCatalog } from '@renew/billing-service/catalog';
import type { DatabaseHandle } from '@renew/billing-service/db';
import { MemoryRateLimitStore } from '@renew/billing-service/http';
import { createTestDatabase } from '../../billing-service/test/helpers/test-database.js';
import { loadCaptureConfig } from '../src/config.js';
import { CARD_FIELDS_FRAMED_BY_ANYONE_WARNING, startCaptureService } from '../src/start-capture.js';
import { DevCaptcha } from '../src/captcha/dev-captcha.js';

const catalog = parseCatalog({ ...loadCatalog(DEMO_CATALOG_PATH), currencies: { default: 'USD', allowed: ['USD'] } });
const withAccountSecret = parseCatalog({ ...catalog, capture: { recaptchaSecret: 'acct' } });

describe('loadCaptureConfig', () => {
  it('defaults: port 8081, Google siteverify URL, dev CAPTCHA when no secret is set', () => {
    const config = loadCaptureConfig({});
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8081,
      apiPort: 8080,
      captcha: { mode: 'dev', modeFrom: 'default', verifyUrl: 'https://www.google.com/recaptcha/api/siteverify', timeoutMs: 5000 },
      ipRateLimits: { perMinute: 30, perDay: 1000 },
    });
    expect(config.captcha.secret).toBeUndefined();
  });

  it('google by default once a secret is set, in the environment or the catalogue', () => {
    expect(loadCaptureConfig({ RENEW_RECAPTCHA_SECRET: 'svc' }).captcha).toMatchObject({ mode: 'google', secret: 'svc' });
    expect(loadCaptureConfig({}, withAccountSecret).captcha.mode).toBe('google');
    expect(loadCaptureConfig({}, catalog).captcha.mode).toBe('dev');
  });

  it('RENEW_CAPTCHA chooses explicitly; the other variables are read', () => {
    const config = loadCaptureConfig({
      RENEW_CAPTCHA: 'dev',
      RENEW_RECAPTCHA_SECRET: 'svc',
      RENEW_CAPTURE_PORT: '9091',
      RENEW_RECAPTCHA_VERIFY_URL: 'http://127.0.0.1:9/siteverify',
      RENEW_CAPTURE_IP_PER_MINUTE: '5',
      RENEW_CAPTURE_IP_PER_DAY: '50',
      RENEW_PUBLIC_BASE_URL: 'https://billing.example.com/',
    });
    expect(config).toMatchObject({
      port: 9091,
      captcha: { mode: 'dev', modeFrom: 'RENEW_CAPTCHA', verifyUrl: 'http://127.0.0.1:9/siteverify', secret: 'svc' },
      ipRateLimits: { perMinute: 5, perDay: 50 },
      publicBaseUrl: 'https://billing.example.com',
    });
    expect(loadCaptureConfig({ RENEW_CAPTCHA: 'google', RENEW_RECAPTCHA_SECRET: 'svc' }).captcha.mode).toBe('google');
  });

  it('refuses bad values and unsafe combinations', () => {
    expect(() => loadCaptureConfig({ RENEW_CAPTCHA: 'none' })).toThrow(/RENEW_CAPTCHA/);
    expect(() => loadCaptureConfig({ RENEW_CAPTURE_PORT: 'x' })).toThrow(/RENEW_CAPTURE_PORT/);
    expect(() => loadCaptureConfig({ RENEW_RECAPTCHA_VERIFY_URL: 'not a url' })).toThrow(/RENEW_RECAPTCHA_VERIFY_URL/);
    expect(() => loadCaptureConfig({ NODE_ENV: 'production' })).toThrow(/needs RENEW_RECAPTCHA_SECRET/);
    // Production in any casing, or said by RENEW_ENV.
    for (const env of [{ NODE_ENV: 'Production' }, { RENEW_ENV: 'production' }]) {
      expect(() => loadCaptureConfig(env), JSON.stringify(env)).toThrow(/needs RENEW_RECAPTCHA_SECRET/);
      expect(loadCaptureConfig({ ...env, RENEW_CAPTCHA: 'dev' }), JSON.stringify(env)).toMatchObject({
        production: true,
        requireTls: true,
      });
    }
    expect(loadCaptureConfig({ NODE_ENV: 'production', RENEW_CAPTCHA: 'dev' }).captcha.mode).toBe('dev');
    expect(() => loadCaptureConfig({ RENEW_CAPTCHA: 'google' }, catalog)).toThrow(/needs RENEW_RECAPTCHA_SECRET/);
  });

  it('takes the development CAPTCHA as a default only on a loopback address', () => {
    expect(loadCaptureConfig({ RENEW_HOST: '127.0.0.1' }).captcha.mode).toBe('dev');
    expect(loadCaptureConfig({ RENEW_HOST: '::1' }).captcha.mode).toBe('dev');
    expect(() => loadCaptureConfig({ RENEW_HOST: '0.0.0.0' })).toThrow(/not loopback/);
    expect(() => loadCaptureConfig({ RENEW_HOST: '192.0.2.10' })).toThrow(/RENEW_CAPTCHA=dev set explicitly/);
    expect(loadCaptureConfig({ RENEW_HOST: '0.0.0.0', RENEW_CAPTCHA: 'dev' }).captcha.mode).toBe('dev');
    expect(loadCaptureConfig({ RENEW_HOST: '0.0.0.0', RENEW_RECAPTCHA_SECRET: 'svc' }).captcha.mode).toBe('google');
  });
});

describe('startCaptureService', () => {
  let database: DatabaseHandle | undefined;
  afterAll(async () => database?.close());

  it('runs beside the billing API on the same database: customer created there, card added here, read back there', async () => {
    database = await createTestDatabase();
    const { publicApiKey, apiKey } = await createAccount(database.db, catalog);
    const billing = await buildApp({
      db: database.db,
      catalog,
      rateLimitStore: new MemoryRateLimitStore(),
      publicBaseUrl: 'http://127.0.0.1',
    });
    await billing.listen({ host: '127.0.0.1', port: 0 });
    const billingUrl = `http://127.0.0.1:${(billing.server.address() as AddressInfo).port}`;
    const config = loadCaptureConfig({ RENEW_CAPTCHA: 'dev' });
    const { app, url } = await startCaptureService({
      database,
      catalog,
      config,
      host: '127.0.0.1',
      port: 0,
      publicBaseUrl: billingUrl,
      logger: false,
    });
    try {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const auth = { authorization: `Basic ${apiKey}`, 'content-type': 'application/json' };
      const customer = await (
        await fetch(`${billingUrl}/v1/customers`, { method: 'POST', headers: auth, body: JSON.stringify({ firstName: 'Ada' }) })
      ).json();
      // The shop's server mints the capture token (the demo catalogue refuses tokenless captures).
      const { token } = await (
        await fetch(`${billingUrl}/v1/captureTokens`, { method: 'POST', headers: auth, body: JSON.stringify({ customerId: customer.id }) })
      ).json();
      const form = new URLSearchParams({
        customerId: String(customer.id),
        captureToken: token,
        publicApiKey,
        cardNumber: '4242 4242 4242 4242',
        firstName: 'Ada',
        lastName: 'Lovelace',
        expirationMonth: '12',
        expirationYear: '30',
        cvv: '123',
        riskToken: 'rt',
        clientIp: '203.0.113.1',
        email: 'ada@example.com',
        recaptcha: 'dev-token-1',
        'PaymentCollectOptions.collectionAmount': '10.00',
      });
      const res = await fetch(`${url}/api/paymentsv2`, { method: 'POST', body: form, headers: { origin: 'https://shop.example.com' } });
      expect(res.status, await res.clone().text()).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
      const card = await res.json();
      expect(card).toMatchObject({
        maskedCardNumber: '************4242',
        isDefault: true,
        uri: `${billingUrl}/v1/paymentMethods/${card.id}/creditCard`,
      });
      const read = await fetch(card.uri, { headers: { authorization: `Basic ${apiKey}` } });
      expect(await read.json()).toMatchObject({ id: card.id, customerId: customer.id, isDefault: true });
      const payments = await (
        await fetch(`${billingUrl}/v1/customers/${customer.id}/payments`, { headers: { authorization: `Basic ${apiKey}` } })
      ).json();
      expect(payments).toEqual([expect.objectContaining({ amount: 10, status: 'Succeeded', paymentMethodId: card.id })]);
      const reused = await fetch(`${url}/api/paymentsv2`, { method: 'POST', body: form });
      expect(reused.status).toBe(400);
      const failing = await fetch(`${url}/api/paymentsv2`, {
        method: 'POST',
        body: new URLSearchParams({ ...Object.fromEntries(form), recaptcha: 'fail' }),
      });
      expect(failing.status).toBe(400);
    } finally {
      await app.close();
      await billing.close();
    }
  });

  it('refuses to start in google mode without any secret', async () => {
    database ??= await createTestDatabase();
    const config = { ...loadCaptureConfig({}), captcha: { ...loadCaptureConfig({}).captcha, mode: 'google' as const } };
    await expect(startCaptureService({ database, catalog, config, port: 0, logger: false })).rejects.toThrow(/needs a reCAPTCHA secret/);
    const started = await startCaptureService({
      database,
      catalog: withAccountSecret,
      config,
      port: 0,
      logger: false,
      captcha: new DevCaptcha(),
    });
    await started.app.close();
  });

  it('warns at start when any site may frame the hosted card fields (no shop domains listed), and not otherwise', async () => {
    database ??= await createTestDatabase();
    const config = loadCaptureConfig({ RENEW_CAPTCHA: 'dev' });
    const warningsWith = async (allowedShopDomains: string[]) => {
      const lines: string[] = [];
      const stream = new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      });
      const started = await startCaptureService({
        database: database!,
        catalog: parseCatalog({ ...catalog, capture: { allowedShopDomains } }),
        config,
        host: '127.0.0.1',
        port: 0,
        logger: { level: 'warn', stream } as never,
      });
      await started.app.close();
      return lines.map((line) => JSON.parse(line).msg as string);
    };
    expect(await warningsWith([])).toContain(CARD_FIELDS_FRAMED_BY_ANYONE_WARNING);
    expect(await warningsWith(['shop.example.com'])).not.toContain(CARD_FIELDS_FRAMED_BY_ANYONE_WARNING);
  });
});
