/**
 * What the browser and the checkout proxy say to each other: the types are inferred
 * from the proxy's zod schemas (proxy/proxy-schemas.ts, the one source of the
 * contract and of its OpenAPI document). Types only: no zod ships in the bundle.
 * Amounts are decimal strings in the currency's minor unit ("31.19", "1500" for JPY), never floats.
 */
import type { z } from 'zod';
import type {
  CheckoutConfigResponse,
  CompletedCheckoutResponse,
  ChangedSubscriptionResponse,
  CountryOptionResponse,
  ErrorBodyResponse,
  OrderSummaryResponse,
  PlanChangeBody,
  PlanChangeResponse,
  PlanOptionResponse,
  ShopperDetailsBody,
  StartedCheckoutResponse,
  SubscriptionBody,
} from './proxy/proxy-schemas.js';

export type CheckoutConfig = z.infer<typeof CheckoutConfigResponse>;
export type PlanOption = z.infer<typeof PlanOptionResponse>;
export type CountryOption = z.infer<typeof CountryOptionResponse>;
export type ShopperDetails = z.input<typeof ShopperDetailsBody>;
/** Step 4: the plan, the chosen quantities and the coupon. */
export type OrderChoice = z.input<typeof SubscriptionBody>;
/** Step 2 done: the Draft customer, and the session that lets this browser act on it. */
export type StartedCheckout = z.infer<typeof StartedCheckoutResponse>;
/** Step 5: the simulated first invoice, and what the shopper will pay after it. `total` is the amount to collect. */
export type OrderSummary = z.infer<typeof OrderSummaryResponse>;
/** Step 8 done. */
export type CompletedCheckout = z.infer<typeof CompletedCheckoutResponse>;
/** A plan change the signed-in customer asks for (preview or apply). */
export type PlanChangeRequest = z.input<typeof PlanChangeBody>;
/** A plan change previewed, applied or scheduled: the subscription after it, its invoice, the next renewal. */
export type PlanChange = z.infer<typeof PlanChangeResponse>;
/** A subscription as a plan change leaves it. */
export type ChangedSubscription = z.infer<typeof ChangedSubscriptionResponse>;
/** The spec's error body, as the proxy and the capture host send it. */
export type ErrorResponse = z.infer<typeof ErrorBodyResponse>;

/** Header carrying the checkout session. */
export const SESSION_HEADER = 'x-checkout-session';
