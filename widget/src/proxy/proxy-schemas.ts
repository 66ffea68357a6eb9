import { z } from 'zod';
import { ErrorBodySchema } from '@renew/billing-service/http';

/**
 * The checkout proxy's contract, in one place: the request schemas validate what
 * shoppers' browsers send, the response schemas type the handler's answers, the
 * browser's types are inferred from them (checkout-contract.ts) and the OpenAPI
 * document is generated from them (openapi.ts). Bounds are the billing API's.
 * Amounts are decimal strings in the currency's minor unit ("31.19", "1500" for JPY), never floats.
 */
const text = (max: number) => z.string().trim().min(1, 'required').max(max, `at most ${max} characters`);
const amount = z
  .string()
  .regex(/^-?\d+(\.\d+)?$/)
  .describe('a decimal amount, exact, as a string');
const date = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .describe('YYYY-MM-DD');

export const ShopperDetailsBody = z.object({
  language: z
    .enum(['en', 'fr', 'de', 'es'], { error: 'must be one of en, fr, de, es' })
    .optional()
    .describe("the language the shopper used the checkout in: the customer's e-mails are written in it"),
  firstName: text(50),
  lastName: text(50),
  email: z.email('must be an e-mail address').max(255),
  address: z.object({
    line1: text(60),
    line2: z.string().trim().max(60).optional(),
    city: text(50),
    postalZip: text(10),
    country: z
      .string()
      .regex(/^[A-Za-z]{2}$/, 'must be a 2-letter ISO 3166 country code')
      .describe('ISO 3166-1 alpha-2'),
    state: z
      .string()
      .regex(/^[A-Za-z]{2}-[A-Za-z0-9]{1,3}$/, 'must be an ISO 3166-2 code such as US-NY')
      .optional()
      .describe('ISO 3166-2, e.g. US-NY'),
  }),
});

/** What an invoice line is: a period's charge, a setup fee, or a plan change's credit of days billed before and unused (negative). */
const ChargeKind = z.enum(['Recurring', 'SetupFee', 'Credit', 'Purchase', 'Usage']);

/** A quantity the browser sends: product code -> a whole number (the billing API checks the catalogue's bounds). */
const Quantities = z.record(
  z.string().min(1).max(255),
  z.number({ error: 'must be a whole number' }).int('must be a whole number').min(0, 'must not be negative').max(1_000_000),
);

export const SubscriptionBody = z.object({
  planFrequencyId: z.number().int().positive(),
  /** Product code -> quantity, for the products whose quantity the shopper chooses (within the catalogue's bounds). */
  quantities: Quantities.optional().describe(
    "product code -> quantity, within the catalogue's minQuantity and maxQuantity; others keep the plan's quantity",
  ),
  couponCode: z.string().trim().max(255, 'at most 255 characters').optional().describe('a coupon code; empty or absent: no coupon'),
});

const id = z.coerce
  .number()
  .int()
  .positive()
  .max(2 ** 31 - 1);
export const CustomerParams = z.object({ customerId: id });
export const SubscriptionParams = z.object({ subscriptionId: id });
export const InvoiceParams = z.object({ customerId: id, invoiceId: id });

export const CheckoutConfigResponse = z.object({
  captureUrl: z.string().describe('base address of the card-capture host; the browser posts the card there, never to the proxy'),
  publicApiKey: z.string(),
  captcha: z.object({
    mode: z.enum(['dev', 'google']),
    siteKey: z.string().nullable(),
    scriptUrl: z.string().nullable().optional().describe("where reCAPTCHA's api.js is loaded from (null: Google's)"),
  }),
  currency: z.string(),
  clientIp: z.string().describe("the shopper's address as the proxy saw it: one of the capture host's risk fields"),
});

export const PlanOptionResponse = z.object({
  planFrequencyId: z.number(),
  planCode: z.string(),
  planName: z.string(),
  description: z.string().nullable(),
  interval: z.enum(['Monthly', 'Yearly']),
  numberOfIntervals: z.number(),
  currency: z.string(),
  recurringPrice: amount.describe('per period, default quantities, before tax'),
  setupFee: amount.describe('once, with the first invoice'),
  /** True when the shopper chooses a quantity (seats) at review. */
  quantityChoosable: z.boolean(),
  /**
   * What the plan bills on usage, in arrears (issue 41), in the shop's currency: per metric the units free each period,
   * then the price of `per` units (a unit price may be finer than the minor unit: 0.002); `from`: tiers make it vary.
   */
  usage: z.array(z.object({ name: z.string(), free: z.number(), unitAmount: z.string(), per: z.number(), from: z.boolean() })),
});

export const CountryOptionResponse = z.object({
  id: z.number(),
  name: z.string(),
  iso: z.string(),
  states: z.array(z.object({ id: z.number(), name: z.string(), code: z.string() })),
});

export const StartedCheckoutResponse = z.object({
  customerId: z.number(),
  session: z.string().describe('send it back in the x-checkout-session header: it lets this browser act on this customer only'),
});

export const OrderSummaryResponse = z.object({
  customerId: z.number(),
  currency: z.string(),
  /** name: the product's (the catalogue's words); kind tells a setup fee from a period's charge, for the browser to say in the shopper's language. */
  lines: z.array(z.object({ name: z.string(), kind: ChargeKind, quantity: z.number(), amount })),
  subtotal: amount,
  totalDiscount: amount,
  taxes: z.array(z.object({ name: z.string(), amount })),
  totalTaxes: amount,
  total: amount.describe('due today: the amount to collect'),
  /** The products whose quantity the shopper may change, with the catalogue's bounds. */
  quantities: z.array(
    z.object({ code: z.string(), name: z.string(), quantity: z.number(), minQuantity: z.number(), maxQuantity: z.number() }),
  ),
  coupon: z.object({ code: z.string(), name: z.string().nullable() }).nullable(),
  /** What happens next, from the billing API's own data: the subscription's amount per period and the first period's end. */
  renewal: z.object({
    amount: amount.describe('charged every period from nextChargeDate on, before tax and before discounts'),
    interval: z.enum(['Monthly', 'Yearly']),
    numberOfIntervals: z.number(),
    nextChargeDate: date,
    plusTax: z.boolean().describe('tax is added to the amount (it was on the first invoice)'),
    discountContinues: z.boolean().describe('the coupon also lowers later invoices'),
  }),
  captureToken: z.string().describe('lets the capture host put the card on this customer, once, for at most total'),
});

export const CompletedCheckoutResponse = z.object({
  customerId: z.number(),
  status: z.string(),
  invoice: z
    .object({ id: z.number(), number: z.number(), total: amount, amountPaid: amount, outstandingBalance: amount, status: z.string() })
    .nullable(),
});

/** A plan change of the signed-in customer's subscription: the billing API's `POST /v1/subscriptions/{id}/changes` body. */
export const PlanChangeBody = z.object({
  planFrequencyId: z.number().int().positive().optional().describe('the plan frequency to switch to (absent: the same one)'),
  quantities: Quantities.optional().describe("product code -> new quantity, within the catalogue's minQuantity and maxQuantity"),
  timing: z
    .enum(['now', 'periodEnd'], { error: 'must be now or periodEnd' })
    .optional()
    .describe(
      "now: prorated at once; periodEnd: at the next renewal; absent: upgrades now, downgrades as the catalogue's planChanges.downgradeTiming",
    ),
  preview: z.boolean().optional().describe('true: answers what the change would do, changes nothing'),
});

/** A subscription of the signed-in customer as a plan change leaves it (or, in a preview, would). */
export const ChangedSubscriptionResponse = z.object({
  subscriptionId: z.number(),
  status: z.string(),
  planFrequencyId: z.number(),
  planCode: z.string(),
  planName: z.string(),
  interval: z.enum(['Monthly', 'Yearly']),
  numberOfIntervals: z.number(),
  currency: z.string(),
  quantities: z.array(z.object({ code: z.string(), name: z.string(), quantity: z.number() })),
  amount: amount.describe('per period, before tax and discounts'),
  nextPeriodStartDate: date.nullable(),
  pendingChange: z
    .object({ planFrequencyId: z.number(), quantities: z.record(z.string(), z.number()), effectiveDate: date })
    .nullable()
    .describe('a change scheduled for the period end: what, from when (null: none)'),
});

export const PlanChangeResponse = z.object({
  preview: z.boolean(),
  timing: z.enum(['now', 'periodEnd']).describe('now: the invoice is posted (a preview: would be); periodEnd: scheduled, nothing posted'),
  subscription: ChangedSubscriptionResponse,
  /** The change's invoice (credits for the unused part of the old plan, charges for the new one); null when nothing is posted now. */
  invoice: z
    .object({
      id: z.number().nullable().describe('null in a preview'),
      number: z.number().nullable().describe('null in a preview'),
      lines: z.array(
        z.object({
          name: z.string(),
          kind: ChargeKind,
          quantity: z.number(),
          amount,
          startServiceDate: date,
          endServiceDate: date,
        }),
      ),
      subtotal: amount,
      totalDiscount: amount,
      taxes: z.array(z.object({ name: z.string(), amount })),
      totalTaxes: amount,
      total: amount.describe('negative when the change gives back more than it charges (a credit for the next invoices)'),
      outstandingBalance: amount.nullable().describe('what is left to pay once posted and collected (null in a preview)'),
      status: z.string().nullable().describe("the posted invoice's status (null in a preview)"),
    })
    .nullable(),
  nextRenewal: z.object({ date, amount: amount.describe('the total the next renewal will charge') }),
});

/** The spec's error body with its optional machine `Code`: the billing API's own schema. */
export const ErrorBodyResponse = ErrorBodySchema;
