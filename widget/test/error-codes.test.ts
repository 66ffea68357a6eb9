import { ApiError } from '@renew/billing-service/http';
import { describe, expect, it } from 'vitest';
import { fieldText } from '../src/checkout/checkout-controller.js';
import { shopperRefusal } from '../src/proxy/checkout-handler.js';

// The checkout branches on error codes, never on the English words: these refusals are reworded
// here (as a later release of the billing API may word them) and must still be understood.
const REWORDED = 'wording changed in a later release';
const SEATS = [{ code: 'SEAT', name: 'Seat', quantity: 5, minQuantity: 2, maxQuantity: 40 }];

describe('the proxy translates the billing API refusals by their codes', () => {
  it('an unknown or inapplicable coupon becomes an error on the coupon field, with its code', () => {
    const unknown = shopperRefusal(ApiError.badRequest(REWORDED, 'coupons[0].code', 'coupon_unknown'));
    expect([unknown.statusCode, unknown.errors]).toEqual([
      400,
      [{ Key: 'couponCode', Value: 'this coupon code does not exist', Code: 'coupon_unknown' }],
    ]);
    const inapplicable = shopperRefusal(ApiError.badRequest(REWORDED, 'coupons[0].code', 'coupon_inapplicable'));
    expect(inapplicable.errors).toEqual([
      { Key: 'couponCode', Value: 'this coupon cannot be used for this order', Code: 'coupon_inapplicable' },
    ]);
  });

  it('a subscription that is no longer a draft means the checkout is complete (409)', () => {
    const refused = shopperRefusal(ApiError.badRequest(REWORDED, 'status', 'subscription_not_draft'));
    expect(refused.statusCode).toBe(409);
    expect(refused.errors).toEqual([expect.objectContaining({ Key: 'customerId', Code: 'checkout_complete' })]);
  });

  it('a refusal with any other code passes through unchanged, whatever its words say', () => {
    const other = ApiError.badRequest('unknown coupon code "X"', 'coupons[0].code', 'value_invalid');
    expect(shopperRefusal(other)).toBe(other);
  });
});

describe("the widget's messages follow the codes", () => {
  it("coupon and seat refusals get the checkout's own words even when the English changes", () => {
    expect(fieldText('couponCode', { Key: 'couponCode', Value: REWORDED, Code: 'coupon_unknown' }, SEATS)).toBe(
      'This coupon code does not exist.',
    );
    expect(fieldText('couponCode', { Key: 'couponCode', Value: REWORDED, Code: 'coupon_inapplicable' }, SEATS)).toBe(
      'This coupon cannot be used for this order.',
    );
    // The bounds are the order's own, not read from the message.
    expect(fieldText('quantities.SEAT', { Key: 'quantities.SEAT', Value: REWORDED, Code: 'quantity_out_of_bounds' }, SEATS)).toBe(
      'Choose between 2 and 40.',
    );
  });

  it("without a code, the service's words are shown as they are (English)", () => {
    expect(fieldText('couponCode', { Key: 'couponCode', Value: 'this coupon code does not exist' }, SEATS)).toBe(
      'this coupon code does not exist',
    );
  });
});
