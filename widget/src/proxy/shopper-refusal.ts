import { ApiError } from '@renew/billing-service/http';

export const CHECKOUT_COMPLETE = 'this checkout is complete: its order can no longer change (start a new checkout for another order)';

/**
 * The billing API's refusal of the shopper's order, in the checkout's terms: the billing API's
 * field keys name its own fields, while the shopper typed one coupon code. Branches on the
 * error codes only (never on the English words, which may change).
 */
export function shopperRefusal(error: ApiError): ApiError {
  if (error.hasCode('subscription_not_draft')) return ApiError.conflict(CHECKOUT_COMPLETE, 'customerId', 'checkout_complete');
  if (error.hasCode('coupon_unknown')) return ApiError.badRequest('this coupon code does not exist', 'couponCode', 'coupon_unknown');
  if (error.hasCode('coupon_inapplicable'))
    return ApiError.badRequest('this coupon cannot be used for this order', 'couponCode', 'coupon_inapplicable');
  return error;
}
