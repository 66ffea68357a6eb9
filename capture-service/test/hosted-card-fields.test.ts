import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, freshIp, startCaptureTest, type CaptureTest } from './helpers/capture-test.js';
import { DevCaptcha } from '../src/captcha/dev-captcha.js';

/**
 * GET /hosted/card-fields: the page a shop embeds in an iframe (hosted mode of
 * <renew-checkout>), its policy, its parameters, its own script and style, and
 * the capture it makes from its own origin.
 */
let t: CaptureTest;
let open: FastifyInstance;
let restricted: FastifyInstance;
let logged: string[];
const SHOP = 'https://shop.example.com';
const CAPTURE_HOST = 'payments.example.com';

beforeAll(async () => {
  t = await startCaptureTest();
  open = t.app;
  logged = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      logged.push(String(chunk));
      done();
    },
  });
  restricted = await t.build({
    capture: { allowedShopDomains: [SHOP, 'shop2.example.org', '*.example.net'] },
    captcha: new DevCaptcha(),
    logger: { level: 'trace', stream },
  });
});
afterAll(async () => t?.close());

const page = (query: string, app = open) =>
  app.inject({ method: 'GET', url: `/hosted/card-fields?${query}`, remoteAddress: freshIp(), headers: { host: CAPTURE_HOST } });
const directives = (policy: string | undefined) =>
  Object.fromEntries(
    (policy ?? '')
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...values]) => [name, values.join(' ')]),
  );

describe('the card fields page', () => {
  it('is our own HTML under a policy that allows only our own script, style and connections', async () => {
    const res = await page(`origin=${encodeURIComponent(SHOP)}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(directives(res.headers['content-security-policy'] as string)).toEqual({
      'default-src': "'none'",
      'script-src': "'self'",
      'style-src': "'self'",
      'connect-src': "'self'",
      'img-src': "'self'",
      // the bank's 3-D Secure page: the sandbox issuer's is on this host (a processor's where its gateway says: stripe-captures.test.ts)
      'frame-src': "'self'",
      'form-action': "'none'",
      'base-uri': "'none'",
      // No shop domains listed: any site may frame it (and a warning is logged at start).
      'frame-ancestors': '*',
    });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    // Labelled fields, errors linked and announced; our script and stylesheet only, nothing inline.
    for (const [id, label] of [
      ['cardNumber', 'Card number'],
      ['expiry', 'Expiry date (MM / YY)'],
      ['cvv', 'Security code (CVV)'],
    ]) {
      expect(res.body).toContain(`<label for="${id}" id="${id}-label">${label}</label>`);
      expect(res.body).toMatch(new RegExp(`<input id="${id}"[^>]*aria-describedby="${id}-error"`));
      expect(res.body).toContain(`<p class="error" id="${id}-error" aria-live="polite"></p>`);
    }
    expect(res.body.match(/<script[^>]*>/g)).toEqual(['<script type="module" src="/hosted/card-fields.js">']);
    expect(res.body).not.toMatch(/<style|style=|https?:\/\/(?!shop\.example\.com)/);
  });

  it('may be framed only by the shop domains and this host (the customer portal): each entry becomes a frame-ancestors source', async () => {
    const res = await page(`origin=${encodeURIComponent(SHOP)}`, restricted);
    expect(res.statusCode, res.body).toBe(200);
    expect(directives(res.headers['content-security-policy'] as string)['frame-ancestors']).toBe(
      "'self' https://shop.example.com http://shop2.example.org:* https://shop2.example.org:* http://*.example.net:* https://*.example.net:*",
    );
    // The shop page's origin the frame will talk to must be one of them.
    const other = await page(`origin=${encodeURIComponent('https://evil.example.com')}`, restricted);
    expect(other.statusCode).toBe(403);
    expect(errorsOf(other)).toEqual([{ Key: 'origin', Value: "is not one of the account's shop domains", Code: 'forbidden' }]);
    expect((await page(`origin=${encodeURIComponent('https://a.example.net')}`, restricted)).statusCode).toBe(200);
  });

  it('never widens a restricted list: entries unusable in a policy are left out, and none left means no site', async () => {
    const odd = await t.build({ capture: { allowedShopDomains: ['shop.example.com; script-src *', "'unsafe-inline'"] } });
    const res = await odd.inject({
      method: 'GET',
      url: `/hosted/card-fields?origin=${encodeURIComponent(SHOP)}`,
      remoteAddress: freshIp(),
    });
    // Neither entry matches the shop's origin: refused before any page; the policy is still checked on an allowed one.
    expect(res.statusCode).toBe(403);
    const { ShopDomains } = await import('../src/shop-domains.js');
    expect(new ShopDomains(['shop.example.com; script-src *', "'unsafe-inline'"]).frameAncestors()).toBe("'none'");
    expect(new ShopDomains(['http://localhost:3000', 'evil example']).frameAncestors()).toBe('http://localhost:3000');
  });

  it('needs the exact origin of the shop page, and refuses unknown or repeated parameters', async () => {
    expect(errorsOf(await page(''))).toEqual([
      { Key: 'origin', Value: "required: the origin of the shop's page that embeds the card fields", Code: 'value_required' },
    ]);
    expect(errorsOf(await page(`origin=${encodeURIComponent('https://shop.example.com/checkout')}`))).toEqual([
      { Key: 'origin', Value: 'must be an origin: scheme://host[:port]', Code: 'value_invalid' },
    ]);
    expect(errorsOf(await page('origin=javascript:alert(1)'))).toEqual([
      { Key: 'origin', Value: 'must be an origin: scheme://host[:port]', Code: 'value_invalid' },
    ]);
    const unknown = await page(`origin=${encodeURIComponent(SHOP)}&css=${encodeURIComponent('body{display:none}')}`);
    expect(unknown.statusCode).toBe(400);
    expect(errorsOf(unknown).map((e) => e.Key)).toEqual(['css']);
    const twice = await page(`origin=${encodeURIComponent(SHOP)}&lang=fr&lang=de`);
    expect(errorsOf(twice)).toEqual([{ Key: 'lang', Value: 'is given more than once', Code: 'value_invalid' }]);
  });

  it('speaks the language passed in (en, fr, de, es), English for others', async () => {
    const expectations: Array<[string, string, string]> = [
      ['fr', 'fr', 'Numéro de carte'],
      ['de-CH', 'de', 'Kartennummer'],
      ['es-419', 'es', 'Número de tarjeta'],
      ['pt-BR', 'en', 'Card number'],
    ];
    for (const [lang, spoken, label] of expectations) {
      const res = await page(`origin=${encodeURIComponent(SHOP)}&lang=${lang}`);
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain(`<html lang="${spoken}">`);
      expect(res.body).toContain(`>${label}</label>`);
    }
    expect(errorsOf(await page(`origin=${encodeURIComponent(SHOP)}&lang=${encodeURIComponent('"><script>')}`))).toEqual([
      { Key: 'lang', Value: 'must be a language tag (en, fr, de-CH…)', Code: 'value_invalid' },
    ]);
  });

  it('takes the merchant style as checked values, never as CSS text', async () => {
    const good = new URLSearchParams({
      origin: SHOP,
      fontFamily: '"Segoe UI", Roboto, sans-serif',
      fontSize: '15px',
      textColor: '#1A1A1A',
      backgroundColor: 'rgb(255, 255, 255)',
      borderColor: 'rgba(0, 0, 0, 0.5)',
      focusColor: 'hsl(220 80% 50%)',
      errorColor: '#b3261e',
      borderRadius: '0.5rem',
    });
    const res = await page(good.toString());
    expect(res.statusCode, res.body).toBe(200);
    const config = JSON.parse(
      /data-config="([^"]*)"/.exec(res.body)![1]!.replace(/&#34;/g, '"').replace(/&#39;/g, "'").replace(/&#38;/g, '&'),
    );
    expect(config).toEqual({
      parentOrigin: SHOP,
      lang: 'en',
      style: {
        fontFamily: '"Segoe UI", "Roboto", sans-serif',
        fontSize: '15px',
        textColor: '#1a1a1a',
        backgroundColor: 'rgb(255, 255, 255)',
        borderColor: 'rgba(0, 0, 0, 0.5)',
        focusColor: 'hsl(220 80% 50%)',
        errorColor: '#b3261e',
        borderRadius: '0.5rem',
      },
    });

    const bad = new URLSearchParams({
      origin: SHOP,
      fontFamily: 'Arial;} body{background:url(https://evil.example.com/x)',
      fontSize: '200px',
      textColor: 'red;background:url(x)',
      backgroundColor: 'expression(alert(1))',
      borderColor: 'var(--x)',
      focusColor: 'url(https://evil.example.com)',
      errorColor: '#12345',
      borderRadius: '1e3px',
    });
    const refused = await page(bad.toString());
    expect(refused.statusCode).toBe(400);
    expect(errorsOf(refused).map((e) => e.Key)).toEqual([
      'fontFamily',
      'fontSize',
      'textColor',
      'backgroundColor',
      'borderColor',
      'focusColor',
      'errorColor',
      'borderRadius',
    ]);
    // No refused value is repeated back.
    expect(refused.body).not.toMatch(/evil|expression|background:url/);
  });
});

describe('the card fields script and stylesheet', () => {
  it('are served from here, bundled from our TypeScript with the shared card rules, revalidated on every load', async () => {
    const script = await open.inject({ method: 'GET', url: '/hosted/card-fields.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toBe('no-cache');
    // The shared rules are in it (Luhn), and nothing is loaded from anywhere else.
    expect(script.body).toContain('renew-card-fields/1');
    expect(script.body).not.toMatch(/https?:\/\/|import\(|importScripts/);
    const again = await open.inject({
      method: 'GET',
      url: '/hosted/card-fields.js',
      headers: { 'if-none-match': script.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);

    const css = await open.inject({ method: 'GET', url: '/hosted/card-fields.css' });
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.body).toContain('--fields-font');
    expect(css.body).not.toMatch(/url\(|@import/);
  });
});

describe('a capture from the card fields (their own origin)', () => {
  it("is accepted from this host's own origin where the shop domains are restricted, and other origins are still refused", async () => {
    const customerId = await t.customer();
    const captureToken = await t.captureToken(customerId);
    const params = t.params(customerId, {
      cardNumber: '4242424242424242',
      cvv: '468',
      recaptcha: `dev-${Date.now()}`,
      captureToken,
      paymentCollectOptions: { collectionAmount: '12.00' },
    });
    const elsewhere = await t.post(params, { app: restricted, headers: { origin: 'https://evil.example.com', host: CAPTURE_HOST } });
    expect(elsewhere.statusCode).toBe(403);
    const own = await t.post(params, { app: restricted, headers: { origin: `http://${CAPTURE_HOST}`, host: CAPTURE_HOST } });
    expect(own.statusCode, own.body).toBe(200);
    expect(own.json()).toMatchObject({ maskedCardNumber: '************4242', customerId });
    // The first payment's id, for the frame's result.
    const payments = (await t.billing.call('GET', `/v1/customers/${customerId}/payments`)).json() as Array<{ id: number; amount: number }>;
    expect(own.headers['renew-payment-id']).toBe(String(payments[0]!.id));
    expect(payments).toEqual([expect.objectContaining({ amount: 12 })]);
    // No card data in the log: neither the number nor the CVV of this capture.
    const log = logged.join('');
    expect(log).toContain('/hosted/card-fields?');
    expect(log).not.toMatch(/4242424242424242|"468"|=468(?![0-9])/);
  });
});
