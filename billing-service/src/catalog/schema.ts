import { z } from 'zod';
import { findCurrency } from './currencies.js';
import { BillableMetric, checkUsageReferences, UsageCharge } from './usage-schema.js';

/**
 * The account configuration and product catalogue file (RENEW_CATALOG).
 * Validated at start; a bad file stops the service with every problem listed.
 */
const CurrencyCode = z
  .string()
  .length(3)
  .transform((c) => c.toUpperCase())
  .refine((c) => findCurrency(c) !== undefined, 'not an ISO 4217 currency code');

const Money = z.union([z.string().regex(/^-?\d+(\.\d+)?$/), z.number()]).transform(String);

export const TERMS = ['Net0', 'Net5', 'Net7', 'Net10', 'Net15', 'Net21', 'Net30', 'Net45', 'Net60', 'Net75', 'Net90', 'MFI1'] as const;
/** Payment terms of a customer: Net0 … Net90, MFI1. */
export type Term = (typeof TERMS)[number];
export const CANCEL_OPTIONS = ['Full', 'None', 'Unearned'] as const;
export const EMAIL_TYPES = [
  'InvoicePost',
  'PaymentReceived',
  'InvoiceOverdue',
  'PasswordReset',
  'PaymentFailed',
  'CustomerActivation',
  'SubscriptionActivation',
  'SubscriptionCancellation',
  'CustomerCredentialCreate',
  'CustomerCredentialPasswordReset',
  'CustomerSuspend',
  'PaymentMethodUpdate',
  'CreditCardExpiry',
  'StatementNotification',
  'UpcomingBillingNotification',
  'Refund',
  'PendingExpiryRenewalNotice',
  'DraftInvoice',
  // an extension of the spec (issue 28): a plan change applied or scheduled
  'SubscriptionChange',
  // an extension of the spec (issue 37): a renewal's charge waits for the customer's 3-D Secure authentication
  'AuthenticationRequired',
  // an extension of the spec (issue 40): a credit note corrected one of the customer's invoices
  'CreditNote',
  // an extension of the spec (issue 41): a metered subscription's usage reached a threshold set on it
  'UsageThresholdReached',
] as const;

/** The languages Renew writes to customers in (e-mails; the checkout and the portal speak the same ones). */
export const CUSTOMER_LANGUAGES = ['en', 'fr', 'de', 'es'] as const;
export type CustomerLanguage = (typeof CUSTOMER_LANGUAGES)[number];

const AmountPerCurrency = z.object({ currency: CurrencyCode, amount: Money });

/** A product's price on one frequency: per unit and period, and a one-time setup fee per unit. */
const ProductPrice = z.object({
  product: z.string().min(1),
  charges: z.array(AmountPerCurrency).default([]),
  setupFees: z.array(AmountPerCurrency).default([]),
});

const PlanFrequency = z.object({
  id: z.number().int().positive(),
  interval: z.enum(['Monthly', 'Yearly']),
  numberOfIntervals: z.number().int().min(1).default(1),
  isProrated: z.boolean().default(false),
  prorationGranularity: z.enum(['Daily', 'Monthly']).default('Daily'),
  prices: z.array(ProductPrice).min(1),
  /** Usage charges billed in arrears on this frequency's renewal invoices (issue 41, catalog/usage-schema.ts). */
  usageCharges: z.array(UsageCharge).default([]),
});

/**
 * `minQuantity`/`maxQuantity`: the bounds within which a shopper may choose the quantity at checkout
 * (seats of a per-seat plan). A product without `maxQuantity` is sold at its `quantity` only.
 */
const PlanProduct = z
  .object({
    code: z.string().min(1),
    name: z.string().min(1),
    description: z.string().optional(),
    quantity: z.number().min(0).default(1),
    minQuantity: z.number().int().min(0).optional(),
    maxQuantity: z.number().int().min(1).optional(),
  })
  .superRefine((product, ctx) => {
    if (product.minQuantity !== undefined && product.maxQuantity === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['maxQuantity'],
        message: 'set maxQuantity too: minQuantity alone does not let shoppers choose a quantity',
      });
    }
    const min = product.minQuantity ?? 1;
    if (
      product.maxQuantity !== undefined &&
      (product.maxQuantity < min || product.quantity < min || product.quantity > product.maxQuantity)
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['quantity'],
        message: `must lie within minQuantity (${min}) and maxQuantity (${product.maxQuantity})`,
      });
    }
  });

const Plan = z
  .object({
    id: z.number().int().positive(),
    code: z.string().min(1),
    name: z.string().min(1),
    reference: z.string().optional(),
    description: z.string().optional(),
    longDescription: z.string().optional(),
    status: z.enum(['Active', 'Inactive']).default('Active'),
    products: z.array(PlanProduct).min(1),
    frequencies: z.array(PlanFrequency).min(1),
  })
  .superRefine((plan, ctx) => {
    const codes = new Set(plan.products.map((p) => p.code));
    for (const [i, f] of plan.frequencies.entries()) {
      for (const [j, price] of f.prices.entries()) {
        if (!codes.has(price.product)) {
          ctx.addIssue({
            code: 'custom',
            path: ['frequencies', i, 'prices', j, 'product'],
            message: `no product ${price.product} in plan ${plan.code}`,
          });
        }
      }
    }
  });

/**
 * A product sold once, outside any plan (issue 40: purchases, `POST /v1/purchases`): a price per unit in each
 * currency it is sold in. Taxed like plan products (the invoice's tax rates at the customer's address).
 */
const OneTimeProduct = z.object({
  code: z.string().min(1),
  name: z.string().min(1),
  description: z.string().optional(),
  prices: z.array(AmountPerCurrency).min(1),
});

const Coupon = z.object({
  code: z.string().min(1),
  name: z.string().optional(),
  kind: z.enum(['Percentage', 'Amount']),
  value: Money,
  currency: CurrencyCode.optional(),
  duration: z.enum(['Once', 'Periods', 'Forever']),
  periods: z.number().int().positive().optional(),
});

/**
 * A switch between different plans a subscriber may make (issue 28, `POST /v1/subscriptions/{id}/changes`):
 * `from` → `to` (that direction only), or any switch among the plans of a `family`.
 */
const AllowedPlanChange = z.union([
  z.strictObject({ from: z.string().min(1), to: z.string().min(1) }),
  z.strictObject({ family: z.array(z.string().min(1)).min(2) }),
]);

/** When a downgrade without a `timing` applies: at the end of the period (the default), or now, prorated. */
export const DOWNGRADE_TIMINGS = ['periodEnd', 'now'] as const;

/** A postal address as printed: every part optional, `country` as written (a name, not a code). */
const PostalAddress = z.object({
  line1: z.string().min(1).max(100).optional(),
  line2: z.string().min(1).max(100).optional(),
  city: z.string().min(1).max(100).optional(),
  state: z.string().min(1).max(100).optional(),
  postalZip: z.string().min(1).max(20).optional(),
  country: z.string().min(1).max(100).optional(),
});

const TaxRate = z.object({
  name: z.string().min(1),
  country: z.string().length(2),
  state: z.string().optional(),
  rate: Money,
});

export const CatalogSchema = z
  .object({
    account: z
      .object({
        name: z.string().min(1).default('Renew demo account'),
        /** Where notices to the account itself go (a webhook endpoint disabled); unset: none are sent. */
        email: z.string().email().optional(),
        /** The account's postal address, printed on its invoices (PDF) under its name (`seller.address` wins). */
        address: PostalAddress.optional(),
      })
      .default({ name: 'Renew demo account' }),
    /**
     * The merchant as its invoices (PDF) name it by law (issue 38): the legal name under the brand, the
     * registered address, the VAT number or other tax ID. Unset: the brand name and `account.address` alone.
     */
    seller: z
      .strictObject({
        legalName: z.string().trim().min(1).max(200).optional(),
        address: PostalAddress.optional(),
        taxId: z.string().trim().min(1).max(50).optional(),
      })
      .optional(),
    currencies: z.object({ default: CurrencyCode, allowed: z.array(CurrencyCode).min(1) }),
    salesTrackingCodes: z
      .array(
        z.object({
          type: z.string().min(1).max(255),
          codes: z.array(z.object({ code: z.string().max(255), name: z.string().max(255).optional() })),
        }),
      )
      .max(5)
      .default([]),
    defaults: z
      .object({
        term: z.enum(TERMS).default('Net0'),
        autoCollect: z.boolean().default(false),
        autoPostDraftInvoice: z.boolean().default(true),
        showZeroDollarCharges: z.boolean().default(false),
        useCustomerBillingAddress: z.boolean().default(true),
        customerGracePeriod: z.number().int().min(0).default(7),
        customerAutoCancel: z.number().int().min(0).default(30),
        defaultCancelOption: z.enum(CANCEL_OPTIONS).default('None'),
        rollUpTaxes: z.boolean().default(false),
        rollUpDiscounts: z.boolean().default(false),
        emailPreferences: z.partialRecord(z.enum(EMAIL_TYPES), z.boolean()).default({}),
        /** Minutes a metered subscription's renewal waits after its period ends, for late usage events (issue 41). */
        usageGraceMinutes: z.number().int().min(0).max(1440).default(60),
      })
      .prefault({}),
    rateLimits: z
      .object({
        perMinute: z.number().int().positive().default(1000),
        perDay: z.number().int().positive().default(180000),
        /**
         * POST /v1/usageEvents' own budget per key (issue 41: a stream, up to 1,000 events a request): 6,000 requests a
         * minute (100 a second, 100,000 events a second in full batches), 8,640,000 a day; other requests do not spend it.
         */
        usageEvents: z
          .object({ perMinute: z.number().int().positive().default(6000), perDay: z.number().int().positive().default(8_640_000) })
          .prefault({}),
      })
      .prefault({}),
    /** The card-capture host's settings for this account. */
    capture: z
      .object({
        /** Shop domains allowed to embed the checkout (CORS origins and reCAPTCHA hostnames); empty = any. */
        allowedShopDomains: z.array(z.string().min(1)).default([]),
        /** The account's own reCAPTCHA secret; otherwise the service's RENEW_RECAPTCHA_SECRET. */
        recaptchaSecret: z.string().min(1).optional(),
        /** The account's own reCAPTCHA site key, for its checkout form. */
        recaptchaSiteKey: z.string().min(1).optional(),
        /** true: card address fields are required (address verification). */
        addressVerification: z.boolean().default(false),
        /** builtin: the platform's own (sandbox) processing, which requires the three risk fields. */
        processing: z.enum(['builtin', 'external']).default('builtin'),
        /**
         * A capture without a capture token (the spec's own calls): never (default) refuses it, since the
         * public key is in every shop's pages and customer ids are sequential; draftOnly adds a card only to
         * a Draft customer and never moves an existing default (anyone with the public key can give any Draft
         * customer its first card); any is the spec's unrestricted behaviour (unsafe: any customer, default included).
         */
        tokenlessCapture: z.enum(['draftOnly', 'never', 'any']).default('never'),
        /** The largest first payment the capture host collects when the capture token sets none (account's default currency). */
        maxCollectionAmount: z
          .union([z.number(), z.string().regex(/^\d+(\.\d+)?$/)])
          .transform(String)
          .default('10000'),
      })
      .prefault({}),
    /** The customer portal (README "Customer portal"), served by the card-capture host. */
    portal: z
      .object({
        /** How long a portal session lives without use (sliding). */
        sessionMinutes: z
          .number()
          .int()
          .min(5)
          .max(24 * 60)
          .default(60),
        /** The longest a portal session lives, however busy (the absolute cap). */
        sessionMaxMinutes: z
          .number()
          .int()
          .min(5)
          .max(7 * 24 * 60)
          .default(12 * 60),
        /** How a customer may cancel a subscription in the portal: at the end of its period, at once, either, or not at all. */
        cancelMode: z.enum(['periodEnd', 'now', 'either', 'none']).default('periodEnd'),
        /** The e-mail types whose preference a customer may change in the portal. */
        editableEmailTypes: z.array(z.enum(EMAIL_TYPES)).default([]),
        /** Where "back to the shop" leads when the portal session names no returnUrl. */
        defaultReturnUrl: z.string().url().optional(),
      })
      .prefault({}),
    /** How the customers' e-mails look and speak: the merchant's brand, and the language of customers who have none. */
    emails: z
      .object({
        /** The name e-mails are signed with and their subject starts with (unset: `account.name`). */
        brandName: z.string().trim().min(1).max(100).optional(),
        /** The logo at the top of the HTML e-mails: an https URL the customer's mail client loads (unset: the brand name in text). */
        logoUrl: z
          .url({ protocol: /^https$/, error: 'must be an https URL' })
          .max(2000)
          .optional(),
        /** The colour of the e-mails' buttons and top rule: #rrggbb. */
        brandColor: z
          .string()
          .regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour as #rrggbb')
          .default('#2f5bd3'),
        /** The language of a customer who has none stored (`language` on the customer). */
        defaultLanguage: z.enum(CUSTOMER_LANGUAGES).default('en'),
      })
      .prefault({}),
    /** Webhook endpoints an account may have at once (each event goes to at most this many: its fan-out). */
    webhooks: z.object({ maxEndpoints: z.number().int().positive().max(1000).default(16) }).prefault({}),
    /** Bulk payment jobs are activated for the account by the provider (the spec's prerequisite). */
    bulk: z
      .object({ enabled: z.boolean().default(false), maxRecords: z.number().int().positive().max(100_000).default(10_000) })
      .prefault({}),
    taxRates: z.array(TaxRate).default([]),
    plans: z.array(Plan).default([]),
    coupons: z.array(Coupon).default([]),
    oneTimeProducts: z.array(OneTimeProduct).default([]),
    /** What usage events are counted into (issue 41); plan frequencies' `usageCharges` price them. */
    billableMetrics: z.array(BillableMetric).default([]),
    /**
     * Plan changes mid-period: which switches between different plans are allowed (frequency and quantity
     * changes within a plan always are), and when a downgrade applies unless the request says (upgrades: now).
     */
    planChanges: z
      .object({
        allowed: z.array(AllowedPlanChange).default([]),
        downgradeTiming: z.enum(DOWNGRADE_TIMINGS).default('periodEnd'),
      })
      .prefault({}),
  })
  .superRefine((catalog, ctx) => {
    checkUsageReferences(catalog, ctx);
    const planCodes = new Set(catalog.plans.map((p) => p.code));
    for (const [i, rule] of catalog.planChanges.allowed.entries()) {
      const named =
        'family' in rule
          ? rule.family.map((code, j) => [code, ['family', j]] as const)
          : ([
              [rule.from, ['from']],
              [rule.to, ['to']],
            ] as const);
      for (const [code, path] of named) {
        if (!planCodes.has(code))
          ctx.addIssue({ code: 'custom', path: ['planChanges', 'allowed', i, ...path], message: `no plan ${code}` });
      }
    }
    const frequencyIds = new Set<number>();
    for (const [i, plan] of catalog.plans.entries()) {
      for (const [j, f] of plan.frequencies.entries()) {
        if (frequencyIds.has(f.id))
          ctx.addIssue({ code: 'custom', path: ['plans', i, 'frequencies', j, 'id'], message: `frequency id ${f.id} is used twice` });
        frequencyIds.add(f.id);
      }
    }
    if (new Set(catalog.plans.map((p) => p.id)).size !== catalog.plans.length) {
      ctx.addIssue({ code: 'custom', path: ['plans'], message: 'plan ids must be unique' });
    }
    if (new Set(catalog.oneTimeProducts.map((p) => p.code)).size !== catalog.oneTimeProducts.length) {
      ctx.addIssue({ code: 'custom', path: ['oneTimeProducts'], message: 'one-time product codes must be unique' });
    }
    if (!catalog.currencies.allowed.includes(catalog.currencies.default)) {
      ctx.addIssue({ code: 'custom', path: ['currencies', 'default'], message: 'the default currency must be among the allowed ones' });
    }
  });

export type Catalog = z.infer<typeof CatalogSchema>;

/**
 * Whether `planChanges.allowed` lets a subscription on plan `fromCode` switch to plan `toCode`. The same plan
 * (another frequency, other quantities) is always allowed.
 */
export function planChangeAllowed(catalog: Pick<Catalog, 'planChanges'>, fromCode: string, toCode: string): boolean {
  if (fromCode === toCode) return true;
  return catalog.planChanges.allowed.some((rule) =>
    'family' in rule ? rule.family.includes(fromCode) && rule.family.includes(toCode) : rule.from === fromCode && rule.to === toCode,
  );
}
