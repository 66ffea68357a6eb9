import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_HEADER } from '../src/checkout-contract.js';
import { errorsOf, SHOPPER, startCheckoutHarness, type CheckoutHarness } from './helpers/checkout-harness.js';

/**
 * The proxy turns an anonymous request into billing API calls made with the merchant's private key.
 * One shopper address (an IPv6 one by its /64) must not be able to spend more than 10 % of the merchant's
 * per-minute budget, nor all shoppers together more than half of it.
 */

let h: CheckoutHarness;
beforeAll(async () => {
  h = await startCheckoutHarness();
});
afterAll(async () => h?.close());

/** How many billing API calls the merchant's key has left this minute (its X-Rate-Limit header). */
async function merchantRemaining(): Promise<number> {
  const res = await h.billing.call('GET', '/v1/customers?pageSize=1');
  return Number(res.headers['x-rate-limit-remaining-minute']);
}

describe("what one shopper address can spend of the merchant's budget", () => {
  it('stays within 10 % of the per-minute limit however it hammers the checkout', async () => {
    // The account default: 1,000 calls a minute; so at most 100 from one shopper address.
    const { app } = await h.buildShop({ perIpPerMinute: 100_000, merchantPerMinute: 1000, perIpNewCustomersPerMinute: 1000 });
    // The plans are fetched once for every shopper (next test): not this address's spending.
    await h.proxy('GET', '/plans', undefined, undefined, app);
    const before = await merchantRemaining();
    const started = (await h.proxy('POST', '/customers', SHOPPER, undefined, app)).json();
    let refused = 0;
    for (let i = 0; i < 60; i++) {
      const res = await h.proxy('POST', `/customers/${started.customerId}/subscriptions`, { planFrequencyId: 11 }, started.session, app);
      if (res.statusCode === 429) refused++;
      else expect(res.statusCode, res.body).toBe(200);
    }
    for (let i = 0; i < 20; i++) await h.proxy('GET', '/plans', undefined, undefined, app);
    const spent = before - (await merchantRemaining()) - 1; // the last read itself counts one
    expect(refused).toBeGreaterThan(0);
    expect(spent).toBeLessThanOrEqual(100);
  });

  it('fetches what every shopper sees alike once, not once per shopper', async () => {
    const { app } = await h.buildShop();
    const before = await merchantRemaining();
    for (let i = 0; i < 10; i++) {
      expect((await h.proxy('GET', '/plans', undefined, undefined, app)).statusCode).toBe(200);
      expect((await h.proxy('GET', '/countries', undefined, undefined, app)).statusCode).toBe(200);
    }
    expect(before - (await merchantRemaining()) - 1).toBeLessThanOrEqual(2);
  });

  it('lets one address start only a few checkouts a minute', async () => {
    const { app } = await h.buildShop({ perIpNewCustomersPerMinute: 3 });
    const answers: number[] = [];
    for (let i = 0; i < 5; i++) answers.push((await h.proxy('POST', '/customers', SHOPPER, undefined, app)).statusCode);
    expect(answers).toEqual([200, 200, 200, 429, 429]);
  });
});

/** Counting tests must not straddle a minute boundary, where the windows (rightly) start again. */
async function awayFromMinuteBoundary() {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
}

/**
 * A shopper at `remoteAddress` starting a checkout and sending its order again and again (each order is
 * several billing API calls) until the proxy refuses: the refusal's message, or null if none came.
 */
async function hammerFrom(app: FastifyInstance, remoteAddress: string, orders: number): Promise<string | null> {
  const send = (url: string, body: unknown, session?: string) =>
    app.inject({
      method: 'POST',
      url: `/checkout${url}`,
      remoteAddress,
      headers: { 'content-type': 'application/json', ...(session ? { [SESSION_HEADER]: session } : {}) },
      payload: JSON.stringify(body),
    });
  const started = await send('/customers', SHOPPER);
  if (started.statusCode === 429) return errorsOf(started)[0]!.Value;
  expect(started.statusCode, started.body).toBe(200);
  const { customerId, session } = started.json();
  for (let i = 0; i < orders; i++) {
    const res = await send(`/customers/${customerId}/subscriptions`, { planFrequencyId: 11 }, session);
    if (res.statusCode === 429) return errorsOf(res)[0]!.Value;
    expect(res.statusCode, res.body).toBe(200);
  }
  return null;
}

describe("what all shoppers together can spend of the merchant's budget", () => {
  it('stays within half of the per-minute limit however many addresses join in, so the back office keeps the rest', async () => {
    await awayFromMinuteBoundary();
    // Told the merchant's limit is 200 a minute: 20 calls per address, 100 for all shoppers together.
    const { app } = await h.buildShop({ perIpPerMinute: 100_000, perIpNewCustomersPerMinute: 1000, merchantPerMinute: 200 });
    // The plans are fetched once for every shopper: out of this count.
    await h.proxy('GET', '/plans', undefined, undefined, app);
    const before = await merchantRemaining();
    const refusals: Array<string | null> = [];
    // A dozen addresses, each of which could spend its own 20 (240 in all).
    for (let i = 1; i <= 12; i++) refusals.push(await hammerFrom(app, `198.51.100.${i}`, 10));
    const spent = before - (await merchantRemaining()) - 1; // the last read itself counts one
    expect(spent).toBeLessThanOrEqual(100);
    expect(spent).toBeGreaterThan(80);
    // The first addresses were held to their own 20; the last ones by the shoppers' share.
    expect(refusals[0]).toBe('rate limit exceeded: 20 requests per minute');
    expect(refusals.at(-1)).toBe('rate limit exceeded: 100 requests per minute');
    // Another shopper is refused too, without any billing API call: the rest is the merchant's.
    expect(await hammerFrom(app, '203.0.113.77', 1)).toBe('rate limit exceeded: 100 requests per minute');
    expect(before - (await merchantRemaining()) - 2).toBe(spent);
  });

  it('counts the addresses of one IPv6 /64 as one shopper address', async () => {
    await awayFromMinuteBoundary();
    const { app } = await h.buildShop({ perIpPerMinute: 100_000, perIpNewCustomersPerMinute: 1000, merchantPerMinute: 200 });
    // The plans are fetched once for every shopper: out of this count.
    await h.proxy('GET', '/plans', undefined, undefined, app);
    const before = await merchantRemaining();
    const refusals: Array<string | null> = [];
    for (let i = 1; i <= 12; i++) refusals.push(await hammerFrom(app, `2001:db8:5:6:${i.toString(16)}::${(i * 3).toString(16)}`, 10));
    const spent = before - (await merchantRemaining()) - 1;
    // One address's 20, not twelve times that.
    expect(spent).toBeLessThanOrEqual(20);
    expect(refusals.slice(1).every((r) => r === 'rate limit exceeded: 20 requests per minute')).toBe(true);
    // Another /64 is another shopper.
    expect(await hammerFrom(app, '2001:db8:5:7::1', 1)).toBeNull();
  });
});
