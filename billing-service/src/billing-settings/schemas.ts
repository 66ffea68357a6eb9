import { z } from 'zod';
import { CANCEL_OPTIONS, TERMS } from '../catalog/schema.js';
import { decimalInput, optionalText, sqlInteger } from '../http/field-schemas.js';

/** Billing-setting schemas: the PUT body, the response, and the fields customer creation shares. */

export const BILLING_PERIOD_TYPES = ['SpecifiedDate', 'CustomerActivation', 'FirstSubscriptionActivation'] as const;
export const BILLING_PERIOD_RULES = ['SingleInvoice', 'MultipleInvoices', 'OneInvoicePerDay', 'Prompt'] as const;
export const INTERVALS = ['Monthly', 'Yearly'] as const;
export const SERVICE_START_OPTIONS = [
  'ChargeForAllMissedPeriods',
  'ChargeForLastMissedPeriods',
  'NoChargesForMissedPeriods',
  'ChargeForCurrentFullPeriod',
] as const;
export const STATEMENT_OPTIONS = ['Detailed', 'BySubscription', 'Summarized', 'Disabled'] as const;
export const STATEMENT_TYPES = ['CustomerAnniversary', 'SpecifiedDate'] as const;
export const STATEMENT_ACTIVITY_TYPES = ['OnlyParentActivity', 'OnlyChildActivity', 'ParentAndChildActivity'] as const;
export const PDF_ATTACHMENT_OPTIONS = ['Details', 'Summary', 'Both'] as const;

const text = optionalText;
const integer = sqlInteger;
export const moneyInput = decimalInput;

export const TrackedItemDisplay = z.object({
  trackedItemDisplayFormat: z.enum(['Inline', 'SeperatePage']).nullish(),
  showTrackedItemName: z.boolean().nullish(),
  showTrackedItemReference: z.boolean().nullish(),
  showTrackedItemDescription: z.boolean().nullish(),
  showTrackedItemCreatedDate: z.boolean().nullish(),
});

const dayOfMonth = integer.min(1, 'must be 1-31').max(31, 'must be 1-31');
const monthOfYear = integer.min(1, 'must be 1-12').max(12, 'must be 1-12');

export const BillingPeriodConfiguration = z.object({
  type: z.enum(BILLING_PERIOD_TYPES),
  rule: z.enum(BILLING_PERIOD_RULES),
  interval: z.enum(INTERVALS),
  day: dayOfMonth.nullish(),
  month: monthOfYear.nullish(),
});
export type BillingPeriodConfiguration = z.infer<typeof BillingPeriodConfiguration>;

export const BillingStatementSetting = z.object({
  option: z.enum(STATEMENT_OPTIONS).nullish(),
  type: z.enum(STATEMENT_TYPES).nullish(),
  interval: z.enum(INTERVALS).nullish(),
  day: dayOfMonth.nullish(),
  month: monthOfYear.nullish(),
  trackedItemDisplay: TrackedItemDisplay.nullish(),
  statementActivityType: z.enum(STATEMENT_ACTIVITY_TYPES).nullish(),
});

/** The writable fields that customer creation's `billingSetting` and the PUT share. */
export const billingSettingFields = {
  term: z.enum(TERMS).nullish(),
  interval: z.enum(INTERVALS).nullish(),
  autoCollect: z.boolean().nullish(),
  rechargeType: z.enum(['BringBalanceBackTo']).nullish(),
  rechargeThresholdAmount: moneyInput.nullish(),
  rechargeTargetAmount: moneyInput.nullish(),
  statusOnThreshold: z.boolean().nullish(),
  autoPostDraftInvoice: z.boolean().nullish(),
  customerGracePeriod: integer.min(0).nullish(),
  gracePeriodExtension: integer.min(0).nullish(),
  customerAutoCancel: integer.min(0).nullish(),
  defaultCancelOption: z.enum(CANCEL_OPTIONS).nullish(),
  standingPoNumber: text(255),
  acquisitionCost: moneyInput.nullish(),
  showZeroDollarCharges: z.boolean().nullish(),
  taxExempt: z.boolean().nullish(),
  taxExemptCode: text(255),
  useCustomerBillingAddress: z.boolean().nullish(),
  taxUsageType: text(4),
  // a bigint column: any safe integer fits
  vatIdentificationNumber: z.number().int('must be a whole number').min(0).nullish(),
  // "or null/empty" in the spec: an empty string means the account default, like null.
  customerServiceStartOption: z.union([z.enum(SERVICE_START_OPTIONS), z.literal('').transform(() => null)]).nullish(),
  rollUpTaxes: z.boolean().nullish(),
  rollUpDiscounts: z.boolean().nullish(),
  rollUpPdfsByPlanProduct: z.boolean().nullish(),
  rollUpPdfsDisplayName: z.boolean().nullish(),
  rollUpPdfsDisplayDescription: z.boolean().nullish(),
  rollUpPdfsDisplayAllUnitPrices: z.boolean().nullish(),
  pdfInvoiceEmailAttachmentOption: z.enum(PDF_ATTACHMENT_OPTIONS).nullish(),
  postReadyChargesOnRenew: z.boolean().nullish(),
};

/** PUT is a full replacement (read, modify, send back); read-only fields sent back are ignored. */
export const UpdateBillingSettingBody = z.object({
  id: z.union([z.number().int().positive(), z.string().regex(/^\d+$/).transform(Number)]),
  invoiceDay: dayOfMonth.nullish(),
  ...billingSettingFields,
  billingPeriodConfigurations: z.array(BillingPeriodConfiguration).max(2).nullish(),
  trackedItemDisplay: TrackedItemDisplay.nullish(),
  customerBillingStatementSetting: BillingStatementSetting.nullish(),
  defaultPaymentMethodId: integer.positive().nullish(),
});
export type UpdateBillingSettingInput = z.infer<typeof UpdateBillingSettingBody>;

const nullableBoolean = z.boolean().nullable();
/** A tracked item display as stored: every key, null where unset. */
const WholeTrackedItemDisplay = z.object({
  trackedItemDisplayFormat: z.enum(['Inline', 'SeperatePage']).nullable(),
  showTrackedItemName: nullableBoolean,
  showTrackedItemReference: nullableBoolean,
  showTrackedItemDescription: nullableBoolean,
  showTrackedItemCreatedDate: nullableBoolean,
});
export type StoredTrackedItemDisplay = z.infer<typeof WholeTrackedItemDisplay>;
/** As answered: the spec types the flags as booleans, so an unset flag answers the value in effect (false: not shown). */
const TrackedItemDisplayInEffect = WholeTrackedItemDisplay.extend({
  showTrackedItemName: z.boolean(),
  showTrackedItemReference: z.boolean(),
  showTrackedItemDescription: z.boolean(),
  showTrackedItemCreatedDate: z.boolean(),
});
const WholeBillingStatementSetting = z.object({
  option: z.enum(STATEMENT_OPTIONS).nullable(),
  type: z.enum(STATEMENT_TYPES).nullable(),
  interval: z.enum(INTERVALS).nullable(),
  day: z.number().nullable(),
  month: z.number().nullable(),
  trackedItemDisplay: WholeTrackedItemDisplay,
  statementActivityType: z.enum(STATEMENT_ACTIVITY_TYPES).nullable(),
});
export type StoredStatementSetting = z.infer<typeof WholeBillingStatementSetting>;

/**
 * A field the spec types "or null" answers null for "the account's default"; every other field
 * answers the value in effect (the account's default when the customer has none of its own), or
 * null only where no value exists (no PO number, no VAT id, threshold billing off, no card).
 */
export const BillingSettingResponse = z.object({
  invoiceDay: z.number().nullable(),
  term: z.enum(TERMS),
  interval: z.enum(INTERVALS).nullable(),
  autoCollect: nullableBoolean,
  rechargeType: z.string().nullable(),
  rechargeThresholdAmount: z.number().nullable(),
  rechargeTargetAmount: z.number().nullable(),
  statusOnThreshold: z.boolean(),
  autoPostDraftInvoice: nullableBoolean,
  hasPaymentMethod: z.boolean(),
  customerGracePeriod: z.number(),
  gracePeriodExtension: z.number(),
  customerAutoCancel: z.number(),
  defaultCancelOption: z.enum(CANCEL_OPTIONS).nullable(),
  standingPoNumber: z.string().nullable(),
  billingPeriodConfigurations: z.array(
    z.object({ type: z.string(), rule: z.string(), interval: z.string(), day: z.number().nullable(), month: z.number().nullable() }),
  ),
  acquisitionCost: z.number(),
  showZeroDollarCharges: nullableBoolean,
  taxExempt: z.boolean(),
  taxExemptCode: z.string().nullable(),
  useCustomerBillingAddress: nullableBoolean,
  taxUsageType: z.string().nullable(),
  vatIdentificationNumber: z.number().nullable(),
  customerServiceStartOption: z.string().nullable(),
  rollUpTaxes: nullableBoolean,
  rollUpDiscounts: nullableBoolean,
  rollUpPdfsByPlanProduct: z.boolean(),
  rollUpPdfsDisplayName: z.boolean(),
  rollUpPdfsDisplayDescription: z.boolean(),
  rollUpPdfsDisplayAllUnitPrices: z.boolean(),
  pdfInvoiceEmailAttachmentOption: z.enum(PDF_ATTACHMENT_OPTIONS),
  /** Nested objects come back whole: every key. */
  trackedItemDisplay: TrackedItemDisplayInEffect,
  customerBillingStatementSetting: WholeBillingStatementSetting.extend({ trackedItemDisplay: TrackedItemDisplayInEffect }),
  defaultPaymentMethodId: z.number().nullable(),
  postReadyChargesOnRenew: nullableBoolean,
  id: z.number(),
  uri: z.string(),
});
export type BillingSettingResponse = z.infer<typeof BillingSettingResponse>;
