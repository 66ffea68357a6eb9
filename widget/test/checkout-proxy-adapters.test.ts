import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_HEADER } from '../src/checkout-contract.js';
import { expressCheckoutProxy } from '../src/proxy/express-checkout-proxy.js';
import { nextCheckoutRoutes } from '../src/proxy/next-checkout-routes.js';
import { checkoutOpenApiDocument } from '../src/proxy/openapi.js';
import { SHOPPER, startCheckoutHarness, type CheckoutHarness } from './helpers/checkout-harness.js';

let h: CheckoutHarness;
const servers: Server[] = [];
beforeAll(async () => {
  h = await startCheckoutHarness();
});
afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  await h?.close();
});

/** An Express shop on a real port with the proxy mounted at /shop/checkout (a router under a prefix), with or without express.json() before it. */
async function expressShop(withJsonParser: boolean): Promise<string> {
  const app = express();
  const router = express.Router();
  if (withJsonParser) router.use(express.json());
  router.use('/checkout', expressCheckoutProxy(h.proxyOptions));
  app.use('/shop', router);
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/shop/checkout`;
}

/**
 * A checkout's steps 2-5 through any mounted proxy, over HTTP. `seesRawBody: false`: a body parser
 * before the proxy (express.json()) has already kept the last of two equal names, out of the proxy's sight.
 */
async function orderThrough(send: (path: string, init?: RequestInit) => Promise<Response>, { seesRawBody = true } = {}) {
  const json = (body: unknown, session?: string): RequestInit => ({
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(session ? { [SESSION_HEADER]: session } : {}) },
    body: JSON.stringify(body),
  });
  const plans = await send('/plans');
  expect(plans.status).toBe(200);
  expect(await plans.json()).toContainEqual(expect.objectContaining({ planFrequencyId: 21, quantityChoosable: true }));
  const started = await send('/customers', json(SHOPPER));
  expect(started.status).toBe(200);
  const { customerId, session } = (await started.json()) as { customerId: number; session: string };
  const summary = await send(`/customers/${customerId}/subscriptions`, json({ planFrequencyId: 11, couponCode: 'WELCOME10' }, session));
  expect(summary.status).toBe(200);
  expect(await summary.json()).toMatchObject({ customerId, total: '29.11', coupon: { code: 'WELCOME10' } });
  const refused = await send(`/customers/${customerId}/subscriptions`, json({ planFrequencyId: 11, couponCode: 'NOPE' }, session));
  expect(refused.status).toBe(400);
  expect(((await refused.json()) as { Errors: unknown[] }).Errors).toEqual([
    { Key: 'couponCode', Value: 'this coupon code does not exist', Code: 'coupon_unknown' },
  ]);
  const malformed = await send('/customers', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"firstName":' });
  expect(malformed.status).toBe(400);
  if (seesRawBody) {
    const twice = await send(`/customers/${customerId}/subscriptions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [SESSION_HEADER]: session },
      body: '{"planFrequencyId":11,"couponCode":"WELCOME10","couponCode":"WELCOME10"}',
    });
    expect(twice.status).toBe(400);
    expect(((await twice.json()) as { Errors: unknown[] }).Errors).toEqual([
      { Key: 'couponCode', Value: 'is given more than once in the same object', Code: 'value_invalid' },
    ]);
  }
  const unknown = await send('/nope');
  expect(unknown.status).toBe(404);
  expect(((await unknown.json()) as { HttpStatusCode: number }).HttpStatusCode).toBe(404);
}

describe('the checkout proxy in every framework', () => {
  it('runs in Express mounted under a router, with express.json() before it', async () => {
    const base = await expressShop(true);
    await orderThrough((path, init) => fetch(`${base}${path}`, init), { seesRawBody: false });
  });

  it('runs in Express (or Connect) reading the body itself', async () => {
    const base = await expressShop(false);
    await orderThrough((path, init) => fetch(`${base}${path}`, init));
    // The rate limit is per shopper address, the socket's: the headers are there.
    const res = await fetch(`${base}/config`);
    expect(res.headers.get('x-rate-limit-limit-minute')).toBe('100000');
    expect(((await res.json()) as { clientIp: string }).clientIp).toBe('127.0.0.1');
  });

  it("runs as Next.js route handlers: GET and POST called with real Requests, the shopper's address from the nearest proxy", async () => {
    const { GET, POST } = nextCheckoutRoutes({ ...h.proxyOptions, basePath: '/checkout' });
    await orderThrough((path, init) => {
      const request = new Request(`https://shop.example.com/checkout${path}`, {
        ...init,
        headers: { ...(init?.headers as Record<string, string>), 'x-forwarded-for': '198.51.100.1, 203.0.113.5' },
      });
      return request.method === 'POST' ? POST(request) : GET(request);
    });
    const config = await GET(
      new Request('https://shop.example.com/checkout/config', { headers: { 'x-forwarded-for': 'forged, 203.0.113.5' } }),
    );
    expect(((await config.json()) as { clientIp: string }).clientIp).toBe('203.0.113.5');
  });

  it('keeps the Fastify plugin: the same routes under its prefix', async () => {
    await orderThrough((path, init) => fetch(`${h.proxyUrl}${path}`, init));
  });
});

describe("the proxy's OpenAPI document", () => {
  it('is served by the proxy and lists every route with the schemas it validates with', async () => {
    const res = await fetch(`${h.proxyUrl}/openapi.json`);
    expect(res.status).toBe(200);
    const document = (await res.json()) as { openapi: string; paths: Record<string, Record<string, any>> };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths).sort()).toEqual([
      '/config',
      '/countries',
      '/customers',
      '/customers/{customerId}/activation',
      '/customers/{customerId}/invoices/{invoiceId}/pdf',
      '/customers/{customerId}/subscriptions',
      '/plans',
      '/subscriptions/{subscriptionId}/changes',
      '/subscriptions/{subscriptionId}/changes/pending',
    ]);
    const change = document.paths['/subscriptions/{subscriptionId}/changes']!.post;
    expect(change.security).toEqual([{ signedInCustomer: [] }]);
    expect(Object.keys(change.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409', '429', '502']);
    expect(change.requestBody.content['application/json'].schema.properties.timing.enum).toEqual(['now', 'periodEnd']);
    expect(document.paths['/subscriptions/{subscriptionId}/changes/pending']!.delete.operationId).toBe('withdrawPlanChange');
    const order = document.paths['/customers/{customerId}/subscriptions']!.post;
    expect(order.security).toEqual([{ checkoutSession: [] }]);
    expect(order.requestBody.content['application/json'].schema.properties.couponCode.maxLength).toBe(255);
    expect(order.requestBody.content['application/json'].schema.required).toEqual(['planFrequencyId']);
    expect(order.responses['200'].content['application/json'].schema.properties.renewal.required).toContain('nextChargeDate');
  });

  it('is written to widget/openapi.json as it is generated (npm run openapi -w @renew/widget)', () => {
    const written = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8'));
    expect(written).toEqual(checkoutOpenApiDocument());
  });
});
