import type { z } from 'zod';
import {
  CheckoutConfigResponse,
  CompletedCheckoutResponse,
  CountryOptionResponse,
  CustomerParams,
  InvoiceParams,
  ChangedSubscriptionResponse,
  OrderSummaryResponse,
  PlanChangeBody,
  PlanChangeResponse,
  PlanOptionResponse,
  ShopperDetailsBody,
  StartedCheckoutResponse,
  SubscriptionBody,
  SubscriptionParams,
} from './proxy-schemas.js';

interface ProxyRouteBase {
  method: 'GET' | 'POST' | 'DELETE';
  /** Under the proxy's base path, OpenAPI style: `/customers/{customerId}/subscriptions`. */
  path: string;
  summary: string;
  params?: z.ZodObject;
  body?: z.ZodType;
  /** Needs the x-checkout-session header naming the customer of the path. */
  session: boolean;
  /**
   * For the customer signed in to the merchant's site, as the proxy's `signedInCustomer` option says (never a
   * customer id the browser sends): the subscription of the path must be that customer's.
   */
  signedIn?: boolean;
  /** Errors this route answers besides the common ones (400, 403, 429, 502): status -> when. */
  errors?: Record<number, string>;
}

/**
 * One route of the checkout proxy: what the handler validates and answers, and what the OpenAPI document says.
 * It answers JSON (`response`), or a file of the `binary` media type (its handler gives a ProxyFile).
 */
export type ProxyRoute = ProxyRouteBase & ({ response: z.ZodType; binary?: never } | { binary: 'application/pdf'; response?: never });

/** What the handler of a `binary` route gives: the bytes, answered as they are, and the name the browser saves them under. */
export interface ProxyFile {
  bytes: Uint8Array<ArrayBuffer>;
  filename: string;
}

export const PROXY_ROUTES = {
  config: {
    method: 'GET',
    path: '/config',
    session: false,
    response: CheckoutConfigResponse,
    summary: "The capture host, the account's public key, the CAPTCHA, the currency and the shopper's address",
  },
  plans: {
    method: 'GET',
    path: '/plans',
    session: false,
    response: PlanOptionResponse.array(),
    summary: "Step 1: the plan frequencies on sale, priced in the shop's currency",
  },
  countries: {
    method: 'GET',
    path: '/countries',
    session: false,
    response: CountryOptionResponse.array(),
    summary: 'Step 3: countries and their subdivisions (cacheable an hour)',
  },
  startCheckout: {
    method: 'POST',
    path: '/customers',
    session: false,
    body: ShopperDetailsBody,
    response: StartedCheckoutResponse,
    summary: 'Steps 2-3: a Draft customer with its billing address, and the session for it',
  },
  order: {
    method: 'POST',
    path: '/customers/{customerId}/subscriptions',
    session: true,
    params: CustomerParams,
    body: SubscriptionBody,
    response: OrderSummaryResponse,
    errors: {
      409: 'the checkout already has another plan, or it is complete (the customer was activated): its order can no longer change',
    },
    summary:
      'Steps 4-5: the subscription with the chosen quantities and coupon, its previewed first invoice, the renewal terms and a capture token. One plan per checkout; sent again with other quantities or another coupon, it changes them and answers the new preview',
  },
  activate: {
    method: 'POST',
    path: '/customers/{customerId}/activation',
    session: true,
    params: CustomerParams,
    response: CompletedCheckoutResponse,
    summary: 'Step 8: activation, refused (402) unless the payments received cover the first invoice',
  },
  invoicePdf: {
    method: 'GET',
    path: '/customers/{customerId}/invoices/{invoiceId}/pdf',
    session: true,
    params: InvoiceParams,
    binary: 'application/pdf',
    errors: { 404: "no such invoice of this customer (another customer's invoice is not found either)" },
    summary:
      'After step 8: an invoice of the checkout\'s customer as a PDF, to download (content-disposition: attachment; filename="invoice-<number>.pdf")',
  },
  planChange: {
    method: 'POST',
    path: '/subscriptions/{subscriptionId}/changes',
    session: false,
    signedIn: true,
    params: SubscriptionParams,
    body: PlanChangeBody,
    response: PlanChangeResponse,
    errors: {
      404: "no such subscription of the signed-in customer (another customer's is not found either)",
      409: "the subscription's renewal is due and not billed yet: change it once it is",
    },
    summary:
      "Preview (preview: true) or apply a plan change of the signed-in customer's subscription: another plan frequency and/or other quantities, now (prorated, one invoice posted and collected) or at the period end (scheduled). The billing API's refusals pass through, keyed on the field",
  },
  withdrawPlanChange: {
    method: 'DELETE',
    path: '/subscriptions/{subscriptionId}/changes/pending',
    session: false,
    signedIn: true,
    params: SubscriptionParams,
    response: ChangedSubscriptionResponse,
    errors: { 404: 'no such subscription of the signed-in customer, or no plan change pending (keyed id)' },
    summary: "Withdraw the plan change scheduled for the period end of the signed-in customer's subscription",
  },
} as const satisfies Record<string, ProxyRoute>;

export type ProxyRouteName = keyof typeof PROXY_ROUTES;

/** What the handler of a route answers: the JSON its response schema describes, or a file. */
export type ProxyAnswer<R extends ProxyRoute> = R extends { binary: string }
  ? ProxyFile
  : R extends { response: z.ZodType }
    ? z.infer<R['response']>
    : never;
