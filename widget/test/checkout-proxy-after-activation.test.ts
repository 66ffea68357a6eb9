import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_HEADER } from '../src/checkout-contract.js';
import { completedCheckout, errorsOf, startCheckoutHarness, type CheckoutHarness } from './helpers/checkout-harness.js';

/**
 * The red team's finding: after paying and activating, the same session sent 50 seats; the proxy answered 400,
 * but its PUT /v1/subscriptions had already been committed: 1 seat became 50 without any charge. Once the
 * customer is activated, the session may only read its own invoice, and nothing is written before that is checked.
 */

let h: CheckoutHarness;
beforeAll(async () => {
  h = await startCheckoutHarness();
});
afterAll(async () => h?.close());

const subscriptionOf = async (customerId: number) => (await h.billing.call('GET', `/v1/customers/${customerId}/subscriptions`)).json()[0];

describe('a checkout session once its customer is activated', () => {
  it('cannot change the seats nor the coupons of the Active subscription, and writes nothing trying', async () => {
    const { customerId, session, invoice } = await completedCheckout(h, { planFrequencyId: 21, quantities: { SEAT: 1 } });
    const before = await subscriptionOf(customerId);
    expect(before).toMatchObject({ status: 'Active', coupons: [] });
    expect(before.subscriptionProducts.find((p: { productCode: string }) => p.productCode === 'SEAT').quantity).toBe(1);
    const tokensBefore = await h.billing.database.db
      .selectFrom('captureTokens')
      .select(({ fn }) => fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();

    for (const change of [
      { planFrequencyId: 21, quantities: { SEAT: 50 } },
      { planFrequencyId: 21, quantities: { SEAT: 1 }, couponCode: 'WELCOME10' },
      { planFrequencyId: 21 },
    ]) {
      const res = await h.proxy('POST', `/customers/${customerId}/subscriptions`, change, session);
      expect(res.statusCode, JSON.stringify(change)).toBe(409);
      expect(errorsOf(res)).toEqual([
        {
          Key: 'customerId',
          Value: 'this checkout is complete: its order can no longer change (start a new checkout for another order)',
          Code: 'checkout_complete',
        },
      ]);
    }
    const after = await subscriptionOf(customerId);
    expect(after.subscriptionProducts).toEqual(before.subscriptionProducts);
    expect(after.coupons).toEqual([]);
    expect(after.amount).toBe(before.amount);
    // No capture token was minted for the Active customer either.
    const tokensAfter = await h.billing.database.db
      .selectFrom('captureTokens')
      .select(({ fn }) => fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(tokensAfter.n)).toBe(Number(tokensBefore.n));

    // What it may still do: read its own invoice, and see its checkout completed.
    const pdf = await fetch(`${h.proxyUrl}/customers/${customerId}/invoices/${invoice.id}/pdf`, { headers: { [SESSION_HEADER]: session } });
    expect(pdf.status).toBe(200);
    const again = await h.proxy('POST', `/customers/${customerId}/activation`, {}, session);
    expect(again.json()).toMatchObject({ customerId, status: 'Active', invoice: { id: invoice.id } });
  });
});
