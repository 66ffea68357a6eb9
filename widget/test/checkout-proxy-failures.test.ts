import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_HEADER } from '../src/checkout-contract.js';
import { errorsOf, SHOPPER, startCheckoutHarness, type CheckoutHarness } from './helpers/checkout-harness.js';

let h: CheckoutHarness;
const standIns: Server[] = [];
beforeAll(async () => {
  h = await startCheckoutHarness();
});
afterAll(async () => {
  for (const server of standIns) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await h?.close();
});

/** A local stand-in for a broken billing API, on a real port. */
async function standInBillingApi(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  standIns.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A port nothing listens on: bound once, then closed. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

describe('the checkout proxy when things go wrong', () => {
  it('answers 502 with the spec error body when the billing API cannot be reached', async () => {
    const { app } = await h.buildShop({ billingApiUrl: await closedPortUrl() });
    for (const [method, path, body] of [
      ['GET', '/plans'],
      ['GET', '/countries'],
      ['POST', '/customers', SHOPPER],
    ] as const) {
      const res = await h.proxy(method, path, body, undefined, app);
      expect(res.statusCode, path).toBe(502);
      expect(errorsOf(res)).toEqual([{ Key: 'Api Error', Value: 'the billing service cannot be reached', Code: 'gateway_unavailable' }]);
    }
  });

  it('answers 502, not 401, when the merchant configured a wrong private key (the shopper cannot fix it)', async () => {
    const { app } = await h.buildShop({ apiKey: 'not-the-key' });
    for (const [method, path, body] of [
      ['GET', '/plans'],
      ['POST', '/customers', { ...SHOPPER, email: 'wrong-key@example.com' }],
    ] as const) {
      const res = await h.proxy(method, path, body, undefined, app);
      expect(res.statusCode, path).toBe(502);
      expect(errorsOf(res)[0]!.Value).toBe('the billing service refused the request (401)');
      expect(res.body).not.toContain('not-the-key');
    }
    const created = await sql<{
      n: number;
    }>`select count(*)::int as n from customers where primary_email = ${'wrong-key@example.com'}`.execute(h.billing.database.db);
    expect(created.rows[0]!.n).toBe(0);
  });

  it('answers 504 when the billing API accepts the connection and never answers', async () => {
    const silent = await standInBillingApi(() => undefined);
    const { app } = await h.buildShop({ billingApiUrl: silent, billingTimeoutMs: 200 });
    const started = Date.now();
    const res = await h.proxy('GET', '/plans', undefined, undefined, app);
    expect(res.statusCode).toBe(504);
    expect(errorsOf(res)).toEqual([{ Key: 'Api Error', Value: 'the billing service did not answer in time', Code: 'gateway_timed_out' }]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('answers 504 when the billing API sends its headers and then stalls in the middle of the body', async () => {
    const stalling = await standInBillingApi((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('[{"code":');
    });
    const { app } = await h.buildShop({ billingApiUrl: stalling, billingTimeoutMs: 200 });
    const res = await h.proxy('GET', '/plans', undefined, undefined, app);
    expect(res.statusCode, res.body).toBe(504);
    expect(errorsOf(res)[0]!.Value).toBe('the billing service did not answer in time');
  });

  it('answers 502 when the billing API address answers 200 with something that is not JSON (a misconfigured URL)', async () => {
    const website = await standInBillingApi((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<!doctype html><title>Our shop</title>');
    });
    const { app } = await h.buildShop({ billingApiUrl: website });
    const res = await h.proxy('GET', '/plans', undefined, undefined, app);
    expect(res.statusCode, res.body).toBe(502);
    expect(errorsOf(res)[0]!.Key).toBe('Api Error');
  });

  it('answers 502 when the billing API drops the connection in the middle of the body', async () => {
    const dropping = await standInBillingApi((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('[{"code":', () => response.destroy());
    });
    const { app } = await h.buildShop({ billingApiUrl: dropping });
    const res = await h.proxy('GET', '/plans', undefined, undefined, app);
    expect(res.statusCode, res.body).toBe(502);
    expect(errorsOf(res)[0]!.Value).toBe('the billing service cannot be reached');
  });

  it('refuses the request over the per-address budget with 429 and the rate-limit headers, per shopper address', async () => {
    const { app } = await h.buildShop({ perIpPerMinute: 3 });
    const from = (remoteAddress: string) => app.inject({ method: 'GET', url: '/checkout/config', remoteAddress });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await from('203.0.113.7'));
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 429]);
    expect(answers.map((r) => r.headers['x-rate-limit-remaining-minute'])).toEqual(['2', '1', '0', '0']);
    const refused = answers[3]!;
    expect(errorsOf(refused)).toEqual([{ Key: 'Api Error', Value: 'rate limit exceeded: 3 requests per minute', Code: 'rate_limited' }]);
    expect(refused.headers['x-rate-limit-limit-minute']).toBe('3');
    expect(refused.headers['x-rate-limit-limit-day']).toBe('180');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(new Date(String(refused.headers['x-rate-limit-reset-minute'])).getTime()).toBeGreaterThan(Date.now());
    // Another shopper still gets through.
    expect((await from('198.51.100.2')).statusCode).toBe(200);
  });

  it("labels the customer the proxy created with the source 'checkout-widget' in the billing API's audit log", async () => {
    const started = await h.proxy('POST', '/customers', SHOPPER);
    expect(started.statusCode, started.body).toBe(200);
    const { customerId } = started.json();
    const entries = await sql<{ source: string; action: string; accountId: number }>`
      select source, action, account_id from audit_log where entity_type = 'Customer' and entity_id = ${customerId}
    `.execute(h.billing.database.db);
    expect(entries.rows).toEqual([{ source: 'checkout-widget', action: 'create', accountId: h.billing.account.accountId }]);
  });

  it('lets browsers and CDNs cache the country list (public, max-age)', async () => {
    const res = await h.proxy('GET', '/countries');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toMatch(/\bpublic\b/);
    expect(res.headers['cache-control']).toMatch(/\bmax-age=[1-9]\d*/);
    expect(res.json()).toContainEqual(expect.objectContaining({ iso: 'US' }));
  });

  it('answers an unknown proxy path with 404 and the spec error body', async () => {
    for (const [method, path] of [
      ['GET', '/nope'],
      ['POST', '/customers/1/nope'],
      ['GET', '/customers'],
    ] as const) {
      const res = await h.proxy(method, path);
      expect(res.statusCode, path).toBe(404);
      expect(errorsOf(res)[0]!.Value).toMatch(/not found/);
    }
  });

  it('refuses a malformed body with 400 and the spec error body, never 500', async () => {
    const post = (url: string, payload: string) =>
      h.shop.inject({ method: 'POST', url: `/checkout${url}`, headers: { 'content-type': 'application/json' }, payload });
    for (const payload of ['{"firstName":', 'null', '[]', '"Grace"', '42', '{"address":null}']) {
      const res = await post('/customers', payload);
      expect(res.statusCode, payload).toBe(400);
      expect(errorsOf(res).length, payload).toBeGreaterThan(0);
    }
    const { customerId, session } = (await h.proxy('POST', '/customers', SHOPPER)).json();
    for (const payload of ['{', '{"planFrequencyId":"eleven"}', '{}']) {
      const res = await h.shop.inject({
        method: 'POST',
        url: `/checkout/customers/${customerId}/subscriptions`,
        payload,
        headers: { 'content-type': 'application/json', [SESSION_HEADER]: session },
      });
      expect(res.statusCode, payload).toBe(400);
      expect(errorsOf(res).length, payload).toBeGreaterThan(0);
    }
    expect((await h.proxy('POST', '/customers/not-a-number/subscriptions', { planFrequencyId: 11 })).statusCode).toBe(400);
  });

  it('sends a write again under the same Idempotency-Key when its answer is lost behind a 503: the billing API does it once', async () => {
    // A billing API whose first answer to a new customer is lost: the write reaches it and commits, the proxy gets a 503.
    const seen: Array<{ method: string; key: string | undefined }> = [];
    let lost = false;
    const flaky = await standInBillingApi(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const key = request.headers['idempotency-key'] as string | undefined;
      seen.push({ method: request.method ?? '', key });
      const forwarded = await fetch(`${h.billingUrl}${request.url}`, {
        method: request.method ?? 'GET',
        headers: Object.fromEntries(
          Object.entries(request.headers).filter(
            (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[0] !== 'host' && entry[0] !== 'connection',
          ),
        ),
        ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
      });
      const text = await forwarded.text();
      if (request.method === 'POST' && request.url === '/v1/customers' && !lost) {
        lost = true;
        response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' }).end('{"Errors":[]}');
        return;
      }
      response.writeHead(forwarded.status, { 'content-type': forwarded.headers.get('content-type') ?? 'application/json' }).end(text);
    });
    const { app } = await h.buildShop({ billingApiUrl: flaky });
    const email = 'lost-answer@example.com';
    const res = await h.proxy('POST', '/customers', { ...SHOPPER, email }, undefined, app);
    expect(res.statusCode, res.body).toBe(200);
    const creates = seen.filter((s) => s.method === 'POST');
    expect(creates.length).toBeGreaterThanOrEqual(2);
    expect(creates[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(creates[1]!.key).toBe(creates[0]!.key);
    expect(seen.filter((s) => s.method === 'GET').every((s) => s.key === undefined)).toBe(true);
    const created = await sql<{ n: number }>`select count(*)::int as n from customers where primary_email = ${email}`.execute(
      h.billing.database.db,
    );
    expect(created.rows[0]!.n).toBe(1);
  });
});
