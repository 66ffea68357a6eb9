import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, SHOPPER, startCheckoutHarness, type CheckoutHarness } from './helpers/checkout-harness.js';

let h: CheckoutHarness;
beforeAll(async () => {
  h = await startCheckoutHarness();
});
afterAll(async () => h?.close());

const startOrder = async (body: Record<string, unknown> = { planFrequencyId: 11 }) => {
  const { customerId, session } = (await h.proxy('POST', '/customers', SHOPPER)).json();
  const order = (changes: Record<string, unknown>) => h.proxy('POST', `/customers/${customerId}/subscriptions`, changes, session);
  return { customerId, session, order, first: await order(body) };
};

describe('the order a shopper configures: coupons, seats, renewal terms', () => {
  it('applies a coupon through the billing API and answers the new preview; removing it restores the total', async () => {
    const { customerId, first, order } = await startOrder();
    expect(first.json()).toMatchObject({ total: '31.19', totalDiscount: '0.00', coupon: null });
    const discounted = await order({ planFrequencyId: 11, couponCode: 'welcome10' });
    expect(discounted.statusCode, discounted.body).toBe(200);
    // 10 % off the 19.99 period (not the setup fee) = 2.00; tax 4 % on 27.99 = 1.12.
    expect(discounted.json()).toMatchObject({
      totalDiscount: '2.00',
      totalTaxes: '1.12',
      total: '29.11',
      coupon: { code: 'WELCOME10', name: '10% off the first period' },
    });
    const subscription = (await h.billing.call('GET', `/v1/customers/${customerId}/subscriptions`)).json()[0];
    expect(subscription.coupons).toEqual([expect.objectContaining({ code: 'WELCOME10' })]);
    // The capture token follows the new total.
    expect(discounted.json().captureToken).not.toBe(first.json().captureToken);
    const removed = await order({ planFrequencyId: 11, couponCode: '' });
    expect(removed.json()).toMatchObject({ total: '31.19', coupon: null });
  });

  it('answers an unknown or inapplicable coupon with an error on the coupon field, and changes nothing', async () => {
    const { customerId, order } = await startOrder();
    const unknown = await order({ planFrequencyId: 11, couponCode: 'NOPE' });
    expect(unknown.statusCode).toBe(400);
    expect(errorsOf(unknown)).toEqual([{ Key: 'couponCode', Value: 'this coupon code does not exist', Code: 'coupon_unknown' }]);
    expect((await h.billing.call('GET', `/v1/customers/${customerId}/subscriptions`)).json()[0].coupons).toEqual([]);
  });

  it('lets the shopper choose seats within the catalogue bounds, and the preview follows', async () => {
    const { customerId, first, order } = await startOrder({ planFrequencyId: 21 });
    expect(first.json().quantities).toEqual([{ code: 'SEAT', name: 'Seat', quantity: 5, minQuantity: 1, maxQuantity: 50 }]);
    const three = await order({ planFrequencyId: 21, quantities: { SEAT: 3 } });
    expect(three.statusCode, three.body).toBe(200);
    // The total is the billing API's own preview, not a sum made by the proxy.
    const preview = (await h.billing.call('POST', '/v1/customeractivation?preview=true', { customerId })).json().invoicePreview;
    expect(three.json().total).toBe(Number(preview.total).toFixed(2));
    expect(three.json().lines).toContainEqual(expect.objectContaining({ name: 'Seat', quantity: 3, amount: '24.00' }));
    expect(three.json().quantities[0].quantity).toBe(3);
    expect(three.json().renewal).toMatchObject({
      amount: '33.00',
      interval: 'Monthly',
      numberOfIntervals: 1,
      plusTax: true,
      discountContinues: false,
    });
    expect(Number(three.json().total)).toBeLessThan(Number(first.json().total));
  });

  it('refuses a quantity outside the bounds, or of a product whose quantity is fixed, on the field', async () => {
    const { customerId, order } = await startOrder({ planFrequencyId: 21 });
    const outOfBounds = { Code: 'quantity_out_of_bounds' } as const;
    for (const [quantities, key, message, code] of [
      [{ SEAT: 51 }, 'quantities.SEAT', 'must be between 1 and 50', outOfBounds],
      [{ SEAT: 0 }, 'quantities.SEAT', 'must be between 1 and 50', outOfBounds],
      [{ SUPPORT: 2 }, 'quantities.SUPPORT', 'the quantity of this product cannot be chosen', { Code: 'quantity_fixed' }],
      [{ SEAT: 2.5 }, 'quantities.SEAT', 'must be a whole number', { Code: 'value_invalid' }],
    ] as const) {
      const res = await order({ planFrequencyId: 21, quantities });
      expect(res.statusCode, JSON.stringify(quantities)).toBe(400);
      expect(errorsOf(res), JSON.stringify(quantities)).toEqual([{ Key: key, Value: message, ...code }]);
    }
    const seats = (await h.billing.call('GET', `/v1/customers/${customerId}/subscriptions`)).json()[0].subscriptionProducts;
    expect(seats.find((p: { productCode: string }) => p.productCode === 'SEAT').quantity).toBe(5);
  });

  it("states the renewal: the subscription's amount per period and the next charge date from the billing API's period", async () => {
    const { customerId, first } = await startOrder();
    const preview = (await h.billing.call('POST', '/v1/customeractivation?preview=true', { customerId })).json().invoicePreview;
    const recurring = preview.draftCharges.find((c: { chargeType: string }) => c.chargeType === 'Recurring');
    expect(first.json().renewal).toEqual({
      amount: '19.99',
      interval: 'Monthly',
      numberOfIntervals: 1,
      nextChargeDate: recurring.endServiceDate,
      plusTax: true,
      discountContinues: false,
    });
    // A month after the first period starts.
    const start = new Date(`${recurring.startServiceDate}T00:00:00Z`);
    const next = new Date(`${first.json().renewal.nextChargeDate}T00:00:00Z`);
    expect((next.getUTCFullYear() - start.getUTCFullYear()) * 12 + next.getUTCMonth() - start.getUTCMonth()).toBe(1);
  });

  it('says when a coupon keeps lowering later invoices', async () => {
    const { order } = await startOrder();
    const res = await order({ planFrequencyId: 11, couponCode: 'FIVEOFF' });
    expect(res.json()).toMatchObject({ coupon: { code: 'FIVEOFF' }, renewal: { discountContinues: true } });
  });
});
