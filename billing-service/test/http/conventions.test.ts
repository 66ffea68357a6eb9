import { brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe('HTTP conventions', () => {
  it('treats path casing and a trailing slash as insignificant', async () => {
    const created = (await t.call('POST', '/v1/Customers/', { firstName: 'Casey' })).json();
    for (const path of [`/v1/customers/${created.id}`, `/v1/Customers/${created.id}`, `/V1/CUSTOMERS/${created.id}/`]) {
      const res = await t.call('GET', path);
      expect(res.statusCode, path).toBe(200);
      expect(res.json().firstName).toBe('Casey');
    }
  });

  it('builds every uri from the public base address', async () => {
    const created = (await t.call('POST', '/v1/customers', {})).json();
    expect(created.uri).toBe(`https://billing.test/v1/customers/${created.id}`);
  });

  it('answers an unknown endpoint with 404 in the spec error body', async () => {
    const res = await t.call('GET', '/v1/nothing-here');
    expect(res.statusCode).toBe(404);
    expect(errorsOf(res)[0]).toMatchObject({ Key: 'Api Error' });
  });

  it('answers a known path with the wrong method with 405 and Allow', async () => {
    const res = await t.call('DELETE', '/v1/customers');
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toContain('GET');
    expect(res.headers.allow).toContain('POST');
    expect(errorsOf(res)[0]!.Value).toMatch(/DELETE/);
  });

  it('refuses a body that is not JSON with 415 and the error body', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/customers',
      headers: { authorization: `Basic ${t.account.apiKey}`, 'content-type': 'text/plain' },
      payload: 'firstName=Ann',
    });
    expect(res.statusCode).toBe(415);
    expect(errorsOf(res)[0]!.Value).toMatch(/application\/json/);
  });

  it('answers malformed JSON with 400', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/customers',
      headers: { authorization: `Basic ${t.account.apiKey}`, 'content-type': 'application/json' },
      payload: '{"firstName": ',
    });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)).toEqual([{ Key: 'Api Error', Value: 'body is not valid JSON', Code: 'request_malformed' }]);
  });

  it('answers a body over the limit with 413', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/customers',
      headers: { authorization: `Basic ${t.account.apiKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ reference: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(res.statusCode).toBe(413);
    expect(errorsOf(res)[0]!.Value).toBe('request body too large');
  });

  it('keys validation errors by the field path', async () => {
    const res = await t.call('POST', '/v1/customers', { primaryEmail: 'not-an-address', customerAcquisition: { source: 's'.repeat(256) } });
    expect(res.statusCode).toBe(400);
    const keys = errorsOf(res).map((e) => e.Key);
    expect(keys).toContain('primaryEmail');
    expect(keys).toContain('customerAcquisition.source');
  });

  it('hides internal errors behind a 500 with no stack trace', async () => {
    const app = await t.buildAnotherApp();
    app.get('/v1/explode', async () => {
      throw new Error('secret detail at /srv/app.ts:12');
    });
    const res = await app.inject({ method: 'GET', url: '/v1/explode', headers: { authorization: `Basic ${t.account.apiKey}` } });
    expect(res.statusCode).toBe(500);
    expect(errorsOf(res)).toEqual([{ Key: 'Api Error', Value: 'internal server error', Code: 'internal_error' }]);
    expect(res.body).not.toContain('secret');
  });

  it('answers CORS preflight for browsers and exposes the rate and paging headers', async () => {
    const res = await t.app.inject({
      method: 'OPTIONS',
      url: '/v1/customers',
      headers: {
        origin: 'https://shop.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://shop.example');
    const get = await t.call('GET', '/v1/customers', undefined, { headers: { origin: 'https://shop.example' } });
    expect(String(get.headers['access-control-expose-headers'])).toContain('X-Count');
  });

  it('compresses large responses when the client accepts gzip', async () => {
    const account = await t.newAccount();
    for (let i = 0; i < 5; i++) await t.call('POST', '/v1/customers', { firstName: `Gzip ${i}` }, { as: account });
    const res = await t.call('GET', '/v1/customers', undefined, { as: account, headers: { 'accept-encoding': 'gzip' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
  });

  it("an error answer past the compression threshold is compressed too, and decodes to the spec's error body", async () => {
    // The fuzz suite met this one: its client must decode what it accepted, as any HTTP client does.
    const eventTypes = Array.from({ length: 60 }, (_, i) => `no.such.event${i}`);
    const res = await t.call(
      'POST',
      '/v1/webhookEndpoints',
      { url: `https://hooks.example/${'a'.repeat(2100)}`, eventTypes },
      {
        headers: { 'accept-encoding': 'br' },
      },
    );
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-encoding']).toBe('br');
    const body = JSON.parse(brotliDecompressSync(res.rawPayload).toString('utf8'));
    expect(body).toMatchObject({ HttpStatusCode: 400, Errors: expect.arrayContaining([expect.objectContaining({ Key: 'url' })]) });
  });

  it('serves the OpenAPI 3.1 document and the reference page without a key', async () => {
    const doc = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(doc.statusCode).toBe(200);
    const body = doc.json();
    expect(body.openapi).toBe('3.1.0');
    expect(Object.keys(body.paths)).toEqual(expect.arrayContaining(['/v1/customers', '/v1/customers/{customerId}', '/v1/customernotes']));
    const post = body.paths['/v1/customers'].post;
    expect(JSON.stringify(post.requestBody)).toContain('primaryEmail');
    const docs = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toMatch(/text\/html/);
  });
});

describe('TLS requirement', () => {
  it('refuses plain HTTP with a JSON error and accepts HTTPS forwarded by a trusted proxy', async () => {
    const { buildApp } = await import('../../src/app.js');
    const { MemoryRateLimitStore } = await import('../../src/http/rate-limit.js');
    const app = await buildApp({
      db: t.database.db,
      catalog: t.catalog,
      rateLimitStore: new MemoryRateLimitStore(),
      publicBaseUrl: 'https://billing.test',
      requireTls: true,
      trustProxy: '127.0.0.1',
    });
    try {
      const auth = { authorization: `Basic ${t.account.apiKey}` };
      const plain = await app.inject({ method: 'GET', url: '/v1/customers', headers: auth });
      expect(plain.statusCode).toBe(403);
      expect(errorsOf(plain)[0]!.Value).toMatch(/HTTPS is required/);
      const forwarded = await app.inject({ method: 'GET', url: '/v1/customers', headers: { ...auth, 'x-forwarded-proto': 'https' } });
      expect(forwarded.statusCode).toBe(200);
      const untrusted = await app.inject({
        method: 'GET',
        url: '/v1/customers',
        remoteAddress: '203.0.113.9',
        headers: { ...auth, 'x-forwarded-proto': 'https' },
      });
      expect(untrusted.statusCode).toBe(403);
    } finally {
      await app.close();
    }
  });
});
