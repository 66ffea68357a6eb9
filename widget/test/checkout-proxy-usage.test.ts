import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../billing-service/src/catalog/load-catalog.js';
import { DEMO_CATALOG_PATH } from '../../billing-service/src/config.js';
import { testCatalog } from '../../billing-service/test/helpers/test-app.js';
import { startCheckoutHarness, type CheckoutHarness } from './helpers/checkout-harness.js';

/*
 * Issue 41: the demo catalogue's METERED plan on sale through the checkout, its usage price beside its base price:
 * the first 1,000 API calls of a month free, then 0.002 USD each (the proxy reads GET /v1/usageCharges).
 */
let h: CheckoutHarness;
beforeAll(async () => {
  h = await startCheckoutHarness({ billing: { catalog: testCatalog({ plans: loadCatalog(DEMO_CATALOG_PATH).plans }) } });
});
afterAll(async () => h?.close());

describe('the checkout proxy’s plans', () => {
  it('offers the METERED plan with what it bills on usage, and the seat plans with nothing of the kind', async () => {
    const plans = (await h.proxy('GET', '/plans')).json() as Array<Record<string, any>>;
    const metered = plans.find((p) => p.planCode === 'METERED');
    expect(metered).toMatchObject({ planFrequencyId: 31, interval: 'Monthly', recurringPrice: '0.00' });
    expect(metered?.usage).toEqual([{ name: 'API calls', free: 1000, unitAmount: '0.002', per: 1, from: false }]);
    expect(plans.find((p) => p.planCode === 'BASIC')?.usage).toEqual([]);
  });
});
