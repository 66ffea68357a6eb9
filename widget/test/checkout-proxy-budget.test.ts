import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHOPPER, startCheckoutHarness, type CheckoutHarness } from './helpers/checkout-harness.js';

/**
 * The proxy turns an anonymous request into billing API calls made with the merchant's private key.
 * One shopper address must not be able to spend more than 10 % of the merchant's per-minute budget.
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

describe('what one shopper address can spend of the merchant\'s budget', () => {
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
