import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { startTestApp, type TestApp } from '../../billing-service/test/helpers/test-app.js';
import { demoAccountCookie } from '../src/demo-account.js';
import { buildDemoSite } from '../src/demo-site.js';
import { DEMO_KEYS_FILE, demoKeys, startDemoSite } from '../src/start-demo.js';

let billing: TestApp;
let billingUrl: string;
let site: FastifyInstance;
beforeAll(async () => {
  billing = await startTestApp();
  await billing.app.listen({ host: '127.0.0.1', port: 0 });
  billingUrl = `http://127.0.0.1:${(billing.app.server.address() as { port: number }).port}`;
  site = await buildDemoSite({
    checkout: {
      billingApiUrl: billingUrl,
      apiKey: billing.account.apiKey,
      captureUrl: 'http://127.0.0.1:8081',
      publicApiKey: billing.account.publicApiKey,
      captcha: { mode: 'dev', siteKey: null },
      currency: 'USD',
    },
  });
});
afterAll(async () => {
  await site?.close();
  await billing?.close();
});

describe('the demo storefront', () => {
  it('serves the shop page embedding the checkout with one script tag, under a strict content security policy', async () => {
    const page = await site.inject({ method: 'GET', url: '/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('<script type="module" src="/widget/renew-checkout.js"></script>');
    expect(page.body).toContain('<renew-checkout proxy="/checkout"></renew-checkout>');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self' https://www.google.com/recaptcha/");
    expect(csp).toContain("connect-src 'self' http://127.0.0.1:8081");
    // The hosted card fields (the default) are an iframe of the capture host.
    expect(csp).toContain('frame-src http://127.0.0.1:8081 https://www.google.com/recaptcha/');
    expect(csp).not.toContain('unsafe-inline');
    // Nobody may frame the shop or re-base its URLs.
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("base-uri 'none'");
  });

  it('serves the source maps while developing, not in production', async () => {
    expect((await site.inject({ method: 'GET', url: '/widget/renew-checkout.js.map' })).statusCode).toBe(200);
    const production = await buildDemoSite({
      checkout: {
        billingApiUrl: billingUrl,
        apiKey: billing.account.apiKey,
        captureUrl: 'http://127.0.0.1:8081',
        publicApiKey: billing.account.publicApiKey,
        captcha: { mode: 'dev', siteKey: null },
        currency: 'USD',
      },
      serveSourceMaps: false,
    });
    try {
      expect((await production.inject({ method: 'GET', url: '/widget/renew-checkout.js.map' })).statusCode).toBe(404);
      expect((await production.inject({ method: 'GET', url: '/widget/renew-checkout.js' })).statusCode).toBe(200);
    } finally {
      await production.close();
    }
  });

  it('serves the built widget and mounts the checkout proxy with the account keys', async () => {
    const bundle = await site.inject({ method: 'GET', url: '/widget/renew-checkout.js' });
    expect(bundle.statusCode).toBe(200);
    expect(bundle.headers['content-type']).toMatch(/javascript/);
    expect(bundle.body).toContain('renew-checkout');
    const config = await site.inject({ method: 'GET', url: '/checkout/config' });
    expect(config.json()).toMatchObject({ publicApiKey: billing.account.publicApiKey, currency: 'USD' });
    const plans = await site.inject({ method: 'GET', url: '/checkout/plans' });
    expect(plans.json().map((p: { planCode: string }) => p.planCode)).toContain('BASIC');
  });

  it('never serves the private key', async () => {
    for (const url of ['/', '/store.js', '/widget/renew-checkout.js', '/checkout/config']) {
      expect((await site.inject({ method: 'GET', url })).body).not.toContain(billing.account.apiKey);
    }
  });
});

describe('the demo store keys', () => {
  it('are saved at the first start of the embedded database (owner-only file) and found again on the next start', () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'renew-demo-keys-'));
    const created = { apiKey: 'sk_first', publicApiKey: 'pk_first' };
    expect(demoKeys({ env: {}, dataDir, embedded: true, created })).toEqual(created);
    const file = path.join(dataDir, DEMO_KEYS_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(created);
    expect(demoKeys({ env: {}, dataDir, embedded: true })).toEqual(created);
    // Keys given in the environment win; on PostgreSQL nothing is written or read.
    expect(demoKeys({ env: { RENEW_API_KEY: 'sk_env', RENEW_PUBLIC_API_KEY: 'pk_env' }, dataDir, embedded: true })).toEqual({
      apiKey: 'sk_env',
      publicApiKey: 'pk_env',
    });
    expect(demoKeys({ env: {}, dataDir, embedded: false })).toBeUndefined();
  });

  it('refuses to start the store with a key the billing API does not accept', async () => {
    await expect(
      startDemoSite({
        host: '127.0.0.1',
        port: 0,
        billingApiUrl: billingUrl,
        captureUrl: 'http://127.0.0.1:8081',
        keys: { apiKey: 'sk_wrong', publicApiKey: 'pk_wrong' },
        captcha: { mode: 'dev', siteKey: null },
        currency: 'USD',
      }),
    ).rejects.toThrow(/private API key is refused/);
  });
});

describe("the demo store's Account page", () => {
  it('sends the shopper signed in by their checkout to a portal session of their own, anyone else to the plans or the portal sign-in', async () => {
    const secret = 'demo-account-test-secret';
    const withSecret = await buildDemoSite({
      checkout: {
        billingApiUrl: billingUrl,
        apiKey: billing.account.apiKey,
        captureUrl: 'http://127.0.0.1:8081',
        publicApiKey: billing.account.publicApiKey,
        captcha: { mode: 'dev', siteKey: null },
        currency: 'USD',
        sessionSecret: secret,
      },
    });
    try {
      const created = await billing.call('POST', '/v1/customers', {});
      expect(created.statusCode, created.body).toBe(200);
      const customerId = created.json().id as number;

      const anonymous = await withSecret.inject({ method: 'GET', url: '/account' });
      expect(anonymous.statusCode).toBe(200);
      expect(anonymous.body).toContain('Subscribe first');
      // …and a signed-out customer the portal's sign-in page, for the store's account (its public key keeps working there).
      expect(anonymous.body).toContain(
        `<a href="http://127.0.0.1:8081/portal/sign-in?account=${encodeURIComponent(billing.account.publicApiKey)}">Sign in with your e-mail address</a>`,
      );
      // A cookie naming a customer without the store's signature signs nobody in.
      const forged = await withSecret.inject({
        method: 'GET',
        url: '/account',
        headers: { cookie: `inkwell_account=${customerId}.forged` },
      });
      expect(forged.body).toContain('Subscribe first');

      const signedIn = await withSecret.inject({
        method: 'GET',
        url: '/account',
        headers: { cookie: demoAccountCookie(secret, customerId) },
      });
      expect(signedIn.statusCode, signedIn.body).toBe(303);
      expect(signedIn.headers.location).toMatch(/\/portal\/open(\?[^#]*)?#token=pl_[\w-]+$/);
      const links = await billing.database.db
        .selectFrom('portalLinks')
        .select(['customerId', 'kind', 'returnUrl'])
        .where('customerId', '=', customerId)
        .execute();
      expect(links).toEqual([{ customerId, kind: 'session', returnUrl: 'http://localhost:80/' }]);
    } finally {
      await withSecret.close();
    }
  });
});
