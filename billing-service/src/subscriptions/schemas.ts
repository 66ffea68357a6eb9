import { z } from 'zod';
import { optionalText } from '../http/field-schemas.js';
import { moneyInput } from '../billing-settings/schemas.js';

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
  coupons: z.array(z.object({ code: z.string().min(1).max(255) })).max(10).nullish(),
});
export type UpdateSubscriptionInput = z.infer<typeof UpdateSubscriptionBody>;

export const SubscriptionIdParams = z.object({ subscriptionId: z.coerce.number().int().positive() });

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

export const SubscriptionResponse = z.object({
  customerId: z.number(),
  planFrequency: z.object({
    id: z.number(), interval: z.string(), numberOfIntervals: z.number(), isProrated: z.boolean(), uri: z.string(),
  }),
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
  openSubscriptionPeriodEndDate: z.string().nullable(),
  coupons: z.array(z.object({ code: z.string(), name: z.string().nullable(), periodsUsed: z.number(), remainingPeriods: z.number().nullable() })),
  monthlyRecurringRevenue: z.number(),
  netMonthlyRecurringRevenue: z.number(),
  amount: z.number(),
  currency: z.string(),
  contractStartTimestamp: z.string().nullable(),
  contractEndTimestamp: z.string().nullable(),
  expiredTimestamp: z.string().nullable(),
  cancellationTimestamp: z.string().nullable(),
  id: z.number(),
  uri: z.string(),
});
export type SubscriptionResponse = z.infer<typeof SubscriptionResponse>;
