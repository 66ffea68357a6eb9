import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DevCaptcha } from '../src/captcha/dev-captcha.js';
import { SiteverifyCaptcha } from '../src/captcha/siteverify-captcha.js';
import { UsedCaptchaTokens } from '../src/captcha/used-tokens.js';
import { ACCOUNT_SECRET, SERVICE_SECRET, errorsOf, startCaptureTest, type CaptureTest } from './helpers/capture-test.js';

let t: CaptureTest;
let customerId: number;
beforeAll(async () => {
  t = await startCaptureTest();
  customerId = await t.customer();
});
afterAll(async () => t?.close());

describe('the public API key', () => {
  it('is required: 401', async () => {
    const res = await t.post(t.params(customerId, { publicApiKey: undefined }));
    expect(res.statusCode).toBe(401);
    expect(errorsOf(res)).toEqual([
      { Key: 'Api Error', Value: 'publicApiKey required: send the public API key of the account', Code: 'unauthenticated' },
    ]);
  });

  it('must be a known public key: 401 for an unknown one', async () => {
    const res = await t.post(t.params(customerId, { publicApiKey: 'pk_0000000000000000000000000000000000000000000000000' }));
    expect(res.statusCode).toBe(401);
    expect(errorsOf(res)[0]!.Value).toBe('publicApiKey not valid for this environment');
  });

  it('refuses the private key (it must never be in a web page): 401', async () => {
    const res = await t.post(t.params(customerId, { publicApiKey: t.account.apiKey }));
    expect(res.statusCode).toBe(401);
    expect(errorsOf(res)[0]!.Value).toMatch(/private API key is never accepted here/);
  });

  it('is checked before the CAPTCHA: a bad key does not spend the token', async () => {
    const params = t.params(customerId, { publicApiKey: 'pk_wrong_wrong_wrong' });
    const calls = t.stub.calls.length;
    expect((await t.post(params)).statusCode).toBe(401);
    expect(t.stub.calls.length).toBe(calls);
    expect((await t.post({ ...params, publicApiKey: t.account.publicApiKey })).statusCode).toBe(200);
  });
});

describe('the reCAPTCHA token', () => {
  it('is verified with siteverify: a form POST of secret, response and remoteip', async () => {
    const params = t.params(customerId);
    const res = await t.post(params, { remoteAddress: '192.0.2.44' });
    expect(res.statusCode, res.body).toBe(200);
    expect(t.stub.calls.at(-1)).toEqual({
      contentType: 'application/x-www-form-urlencoded',
      secret: SERVICE_SECRET,
      response: params.recaptcha,
      remoteip: '192.0.2.44',
    });
  });

  it('missing: 400 keyed recaptcha, with no call to siteverify', async () => {
    const calls = t.stub.calls.length;
    for (const encoding of ['json', 'form', 'query'] as const) {
      const res = await t.post(t.params(customerId, { recaptcha: undefined }), { encoding });
      expect(res.statusCode).toBe(400);
      expect(errorsOf(res)).toEqual([{ Key: 'recaptcha', Value: 'required', Code: 'value_required' }]);
    }
    expect(t.stub.calls.length).toBe(calls);
  });

  it('failed (not issued by the CAPTCHA service): 400 keyed recaptcha, nothing stored', async () => {
    const fresh = await t.customer();
    const res = await t.post(t.params(fresh, { recaptcha: 'forged-token' }));
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)).toEqual([
      {
        Key: 'recaptcha',
        Value: 'the CAPTCHA was not solved or the token is not valid (invalid-input-response); solve the CAPTCHA again',
        Code: 'captcha_failed',
      },
    ]);
    expect((await t.billing.call('GET', `/v1/customers/${fresh}/paymentMethods/creditCard`)).json()).toEqual([]);
  });

  it('is used once: the second request with it is 400 without asking siteverify again', async () => {
    const params = t.params(customerId);
    expect((await t.post(params)).statusCode).toBe(200);
    const calls = t.stub.calls.length;
    const again = await t.post(params, { encoding: 'form' });
    expect(again.statusCode).toBe(400);
    expect(errorsOf(again)).toEqual([
      { Key: 'recaptcha', Value: 'this CAPTCHA token was already used; solve the CAPTCHA again', Code: 'captcha_failed' },
    ]);
    expect(t.stub.calls.length).toBe(calls);
  });

  it('is used once also when the first use failed, and across instances sharing the database', async () => {
    const failing = t.params(customerId, { cardNumber: '4000000000000002' });
    expect((await t.post(failing)).statusCode).toBe(400);
    expect(errorsOf(await t.post({ ...failing, cardNumber: '4242424242424242' }))[0]!.Key).toBe('recaptcha');
    const second = await t.build();
    const params = t.params(customerId);
    expect((await t.post(params)).statusCode).toBe(200);
    const res = await t.post(params, { app: second });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)[0]!.Value).toMatch(/already used/);
  });

  it('is spent also by a request for a customer the account does not have (the claim reads the customer)', async () => {
    const unknown = t.params(2_000_000_000);
    const res = await t.post(unknown);
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)[0]!.Key).toBe('captureToken');
    const again = await t.post({ ...unknown, customerId });
    expect(again.statusCode).toBe(400);
    expect(errorsOf(again)).toEqual([
      { Key: 'recaptcha', Value: 'this CAPTCHA token was already used; solve the CAPTCHA again', Code: 'captcha_failed' },
    ]);
  });

  it('is kept only as a hash', async () => {
    const params = t.params(customerId);
    expect((await t.post(params)).statusCode).toBe(200);
    const rows = await t.billing.database.db.selectFrom('usedCaptchaTokens').selectAll().execute();
    expect(rows.some((r) => r.tokenHash === UsedCaptchaTokens.hash(String(params.recaptcha)))).toBe(true);
    expect(rows.some((r) => r.tokenHash === params.recaptcha)).toBe(false);
  });

  it("is verified with the account's own secret when the catalogue sets one", async () => {
    const own = await t.build({ capture: { recaptchaSecret: ACCOUNT_SECRET } });
    const ok = await t.post(t.params(customerId, { recaptcha: t.token(undefined, ACCOUNT_SECRET) }), { app: own });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(t.stub.calls.at(-1)!.secret).toBe(ACCOUNT_SECRET);
    // A token of the provider's site key does not verify with the account's secret.
    const other = await t.post(t.params(customerId), { app: own });
    expect(other.statusCode).toBe(400);
    expect(errorsOf(other)[0]!.Key).toBe('recaptcha');
  });

  it('fails with a secret siteverify does not know', async () => {
    const wrong = await t.build({ recaptchaSecret: 'not-a-known-secret' });
    const res = await t.post(t.params(customerId), { app: wrong });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)[0]!.Value).toMatch(/invalid-input-secret/);
  });

  it('needs a secret in google mode: 503 when neither the service nor the account has one', async () => {
    const none = await t.build({ recaptchaSecret: null });
    const res = await t.post(t.params(customerId), { app: none });
    expect(res.statusCode).toBe(503);
    expect(errorsOf(res)[0]!.Value).toMatch(/not configured/);
  });

  it("must have been solved on one of the account's shop domains when the catalogue lists them", async () => {
    const shops = await t.build({ capture: { allowedShopDomains: ['shop.example.com', '*.example.org'] } });
    const elsewhere = await t.post(t.params(customerId, { recaptcha: t.token('evil.example.net') }), { app: shops });
    expect(elsewhere.statusCode).toBe(400);
    expect(errorsOf(elsewhere)).toEqual([
      {
        Key: 'recaptcha',
        Value: "the CAPTCHA was solved on evil.example.net, which is not one of the account's shop domains",
        Code: 'captcha_failed',
      },
    ]);
    expect((await t.post(t.params(customerId, { recaptcha: t.token('shop.example.com') }), { app: shops })).statusCode).toBe(200);
    expect((await t.post(t.params(customerId, { recaptcha: t.token('pay.example.org') }), { app: shops })).statusCode).toBe(200);
    // Without a list, any hostname will do.
    expect((await t.post(t.params(customerId, { recaptcha: t.token('evil.example.net') }))).statusCode).toBe(200);
  });

  it('when siteverify fails or hangs: 502/504, nothing stored, and the token can be used again', async () => {
    const quick = await t.build({ captcha: new SiteverifyCaptcha({ url: t.stub.url, timeoutMs: 300 }) });
    const fresh = await t.customer();
    const params = t.params(fresh);
    try {
      t.stub.behaviour = 'http500';
      const down = await t.post(params, { app: quick });
      expect(down.statusCode).toBe(502);
      expect(errorsOf(down)[0]!.Value).toMatch(/HTTP 500; nothing was stored, try again/);
      t.stub.behaviour = 'not-json';
      expect((await t.post(params, { app: quick })).statusCode).toBe(502);
      t.stub.behaviour = 'hang';
      const slow = await t.post(params, { app: quick });
      expect(slow.statusCode).toBe(504);
      expect(errorsOf(slow)[0]!.Value).toMatch(/did not answer within 300 ms/);
    } finally {
      t.stub.behaviour = 'ok';
    }
    expect((await t.billing.call('GET', `/v1/customers/${fresh}/paymentMethods/creditCard`)).json()).toEqual([]);
    expect((await t.post(params, { app: quick })).statusCode).toBe(200);
  });
});

describe('RENEW_CAPTCHA=dev', () => {
  it('accepts any non-empty token once, refuses tokens beginning with "fail", and checks no hostname', async () => {
    const dev = await t.build({ captcha: new DevCaptcha(), recaptchaSecret: null, capture: { allowedShopDomains: ['shop.example.com'] } });
    const calls = t.stub.calls.length;
    const params = t.params(customerId, { recaptcha: `dev-${Math.random()}` });
    expect((await t.post(params, { app: dev })).statusCode).toBe(200);
    expect(errorsOf(await t.post(params, { app: dev }))[0]!.Value).toMatch(/already used/);
    const fail = await t.post(t.params(customerId, { recaptcha: 'fail-please' }), { app: dev });
    expect(fail.statusCode).toBe(400);
    expect(errorsOf(fail)[0]!.Value).toMatch(/invalid-input-response/);
    expect(t.stub.calls.length).toBe(calls);
  });
});
