/**
 * What the browser and the checkout proxy say to each other (types only: nothing
 * of this ships in the bundle). Amounts are decimal strings in the currency's
 * minor unit ("31.19", "1500" for JPY), never floats.
 */

export interface CheckoutConfig {
  /** Base address of the card-capture host; the browser posts the card there, never to the proxy. */
  captureUrl: string;
  publicApiKey: string;
  /** `scriptUrl`: where reCAPTCHA's api.js is loaded from (null: Google's; www.recaptcha.net where google.com is blocked). */
  captcha: { mode: 'dev' | 'google'; siteKey: string | null; scriptUrl?: string | null };
  currency: string;
  /** The shopper's address as the proxy saw it: one of the capture host's risk fields. */
  clientIp: string;
}

export interface PlanOption {
  planFrequencyId: number;
  planCode: string;
  planName: string;
  description: string | null;
  interval: 'Monthly' | 'Yearly';
  numberOfIntervals: number;
  currency: string;
  /** Per period, default quantities, before tax. */
  recurringPrice: string;
  /** Once, with the first invoice. */
  setupFee: string;
}

export interface CountryOption {
  id: number;
  name: string;
  iso: string;
  states: Array<{ id: number; name: string; code: string }>;
}

export interface ShopperDetails {
  firstName: string;
  lastName: string;
  email: string;
  address: {
    line1: string;
    line2?: string;
    city: string;
    postalZip: string;
    /** ISO 3166-1 alpha-2 */
    country: string;
    /** ISO 3166-2, e.g. US-NY */
    state?: string;
  };
}

/** Step 2 done: the Draft customer, and the session that lets this browser act on it. */
export interface StartedCheckout {
  customerId: number;
  session: string;
}

/** Step 5: the simulated first invoice. `total` is the amount to collect. */
export interface OrderSummary {
  customerId: number;
  currency: string;
  lines: Array<{ name: string; quantity: number; amount: string }>;
  subtotal: string;
  totalDiscount: string;
  taxes: Array<{ name: string; amount: string }>;
  totalTaxes: string;
  total: string;
  /** Lets the capture host put the shopper's card on this customer, once, for at most `total` (POST /v1/captureTokens). */
  captureToken: string;
}

/** Step 8 done. */
export interface CompletedCheckout {
  customerId: number;
  status: string;
  invoice: { id: number; number: number; total: string; amountPaid: string; outstandingBalance: string; status: string } | null;
}

/** The spec's error body, as the proxy and the capture host send it. */
export interface ErrorResponse {
  ErrorId: number;
  HttpStatusCode: number;
  Errors: Array<{ Key: string; Value: string }>;
}

/** Header carrying the checkout session. */
export const SESSION_HEADER = 'x-checkout-session';
