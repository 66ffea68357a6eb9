import { z } from 'zod';
import { optionalText } from '../http/field-schemas.js';
import { moneyInput } from '../billing-settings/schemas.js';
import { PlanFrequencyResponse } from '../plans/schemas.js';

export const SUBSCRIPTION_STATUSES = ['Draft', 'Active', 'Suspended', 'Cancelled'] as const;
export const DISCOUNT_TYPES = ['Percentage', 'Amount'] as const;

const text = optionalText;
const nonNegativeMoney = moneyInput.refine((v) => !v.startsWith('-'), 'must not be negative');
const timestamp = z.iso.datetime({ offset: true, local: true, message: 'must be an ISO 8601 timestamp' }).or(z.iso.date()).nullish();

export const CreateSubscriptionBody = z.object({
  customerId: z.number().int().positive(),
  planFrequencyId: z.number().int().positive(),
  /** The plan's code; when given it must match the frequency's plan. */
  code: text(255),
  name: text(255),
  reference: text(255),
});
export type CreateSubscriptionInput = z.infer<typeof CreateSubscriptionBody>;

export const SubscriptionProductInput = z.object({
  id: z.number().int().positive(),
  quantity: moneyInput.refine((v) => !v.startsWith('-'), 'must not be negative').nullish(),
  isIncluded: z.boolean().nullish(),
  /** Replaces the catalogue price per unit and period; null = catalogue price. */
  priceOverride: nonNegativeMoney.nullish(),
  discount: z
    .object({ type: z.enum(DISCOUNT_TYPES), amount: nonNegativeMoney })
    .refine((d) => d.type !== 'Percentage' || Number(d.amount) <= 100, { message: 'a percentage is at most 100', path: ['amount'] })
    .nullish(),
});

/** Custom fields: a flat object of names (at most 100 characters) and scalar values, at most 50 of them. */
export const CustomFieldsInput = z
  .record(
    z.string().min(1, 'a custom field needs a name').max(100, 'a custom field name is at most 100 characters'),
    z.union([z.string().max(2000, 'must be at most 2000 characters'), z.number(), z.boolean(), z.null()], {
      error: 'a custom field value is a string, number, boolean or null',
    }),
  )
  .refine((fields) => Object.keys(fields).length <= 50, 'at most 50 custom fields');
export type CustomFields = z.infer<typeof CustomFieldsInput>;

/** Why a value of a field the service does not model is refused (400 keyed on the field). */
const unsupported = {
  subscriptionDiscount:
    'a subscription-wide charge discount is not supported: give each product its discount (subscriptionProducts[].discount) or add coupons',
  setupFeeDiscount: 'setup fee discounts are not supported: setup fees are billed at their catalogue amount',
  planAutoApplyChanges: "is the plan's setting and read only: plans here never apply catalogue changes to subscriptions (false)",
  autoApplyCatalogChanges:
    'catalogue changes are not applied to existing subscriptions: a subscription keeps the prices it was created with (false)',
  endOfPeriodCharge: 'end-of-period charges are not supported: recurring charges are billed at the start of each period (false)',
  remainingInterval: 'fixed-length subscriptions are not supported: subscriptions renew until cancelled (null)',
  scheduledActivation:
    'scheduled activation is not supported: subscriptions are activated with their customer (POST /v1/customeractivation)',
};

export const UpdateSubscriptionBody = z.object({
  id: z.number().int().positive(),
  customerId: z.number().int().positive().nullish(),
  status: z.enum(SUBSCRIPTION_STATUSES),
  reference: text(255),
  subscriptionOverride: z.object({ name: text(255), description: text(1000) }).nullish(),
  contractStartTimestamp: timestamp,
  contractEndTimestamp: timestamp,
  expiredTimestamp: timestamp,
  subscriptionProducts: z.array(SubscriptionProductInput).nullish(),
  coupons: z
    .array(z.object({ code: z.string().min(1).max(255) }))
    .max(10)
    .nullish(),
  customFields: CustomFieldsInput.nullish(),
  // Fields with no model here: accepted only as the GET returns them (null, [], false); any other value is a 400 on the field.
  chargeDiscount: z.null({ error: unsupported.subscriptionDiscount }).optional(),
  setupFeeDiscount: z.null({ error: unsupported.setupFeeDiscount }).optional(),
  chargeDiscounts: z.array(z.unknown()).max(0, unsupported.subscriptionDiscount).nullish(),
  setupFeeDiscounts: z.array(z.unknown()).max(0, unsupported.setupFeeDiscount).nullish(),
  planAutoApplyChanges: z.literal(false, { error: unsupported.planAutoApplyChanges }).nullish(),
  autoApplyCatalogChanges: z.literal(false, { error: unsupported.autoApplyCatalogChanges }).nullish(),
  subscriptionHasRecurringEndOfPeriodCharge: z.literal(false, { error: unsupported.endOfPeriodCharge }).nullish(),
  remainingInterval: z.null({ error: unsupported.remainingInterval }).optional(),
  remainingIntervalPushOut: z.null({ error: unsupported.remainingInterval }).optional(),
  scheduledActivationTimestamp: z.null({ error: unsupported.scheduledActivation }).optional(),
  // The subscription's plan: read only; a different one is a 400 (the service compares).
  planFrequency: z.object({ id: z.number().int().positive().nullish() }).nullish(),
  planFrequencyId: z.number().int().positive().nullish(),
  planCode: z.string().nullish(),
  planName: z.string().nullish(),
  planDescription: z.string().nullish(),
  planReference: z.string().nullish(),
});
export type UpdateSubscriptionInput = z.infer<typeof UpdateSubscriptionBody>;

export const SubscriptionIdParams = z.object({ subscriptionId: z.coerce.number().int().positive() });
export const SubscriptionProductParams = SubscriptionIdParams.extend({ subscriptionProductId: z.coerce.number().int().positive() });

const DiscountResponse = z.object({ type: z.enum(DISCOUNT_TYPES), amount: z.number() });

export const SubscriptionProductResponse = z.object({
  subscriptionId: z.number(),
  productCode: z.string(),
  productName: z.string(),
  productDescription: z.string().nullable(),
  quantity: z.number(),
  isIncluded: z.boolean(),
  unitPrice: z.number(),
  priceOverride: z.number().nullable(),
  setupFee: z.number(),
  discount: DiscountResponse.nullable(),
  amount: z.number(),
  id: z.number(),
  uri: z.string(),
});

/** A plan change scheduled for the end of the period (issue 28, an extension): what it changes, from when. */
export const PendingChangeResponse = z.object({
  planFrequencyId: z.number(),
  /** Every product's quantity after the change, by product code. */
  quantities: z.record(z.string(), z.number()),
  /** The period start from which it applies (the renewal of that period applies it). */
  effectiveDate: z.string(),
  createdTimestamp: z.string(),
});
export type PendingChangeResponse = z.infer<typeof PendingChangeResponse>;

export const SubscriptionResponse = z.object({
  customerId: z.number(),
  /** The plan frequency as the plan list shows it. */
  planFrequency: PlanFrequencyResponse,
  planCode: z.string(),
  planName: z.string(),
  planDescription: z.string().nullable(),
  planReference: z.string().nullable(),
  status: z.enum(SUBSCRIPTION_STATUSES),
  reference: z.string().nullable(),
  subscriptionOverride: z.object({ name: z.string().nullable(), description: z.string().nullable() }),
  hasPostedInvoice: z.boolean(),
  createdTimestamp: z.string(),
  activatedTimestamp: z.string().nullable(),
  provisionedTimestamp: z.string().nullable(),
  nextPeriodStartDate: z.string().nullable(),
  scheduledActivationTimestamp: z.string().nullable(),
  subscriptionProducts: z.array(SubscriptionProductResponse),
  remainingInterval: z.number().nullable(),
  remainingIntervalPushOut: z.number().nullable(),
  openSubscriptionPeriodEndDate: z.string().nullable(),
  /** Subscription-wide discounts: not modelled (discounts are per product and coupons), so always null and []. */
  chargeDiscount: DiscountResponse.nullable(),
  setupFeeDiscount: DiscountResponse.nullable(),
  chargeDiscounts: z.array(DiscountResponse),
  setupFeeDiscounts: z.array(DiscountResponse),
  customFields: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).nullable(),
  planAutoApplyChanges: z.boolean(),
  autoApplyCatalogChanges: z.boolean(),
  coupons: z.array(
    z.object({ code: z.string(), name: z.string().nullable(), periodsUsed: z.number(), remainingPeriods: z.number().nullable() }),
  ),
  monthlyRecurringRevenue: z.number(),
  netMonthlyRecurringRevenue: z.number(),
  amount: z.number(),
  currency: z.string(),
  contractStartTimestamp: z.string().nullable(),
  contractEndTimestamp: z.string().nullable(),
  expiredTimestamp: z.string().nullable(),
  cancellationTimestamp: z.string().nullable(),
  subscriptionHasRecurringEndOfPeriodCharge: z.boolean(),
  /** A plan change scheduled for the period end (POST /v1/subscriptions/{id}/changes, an extension); null when none. */
  pendingChange: PendingChangeResponse.nullable(),
  id: z.number(),
  uri: z.string(),
});
export type SubscriptionResponse = z.infer<typeof SubscriptionResponse>;
