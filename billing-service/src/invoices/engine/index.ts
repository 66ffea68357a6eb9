/**
 * Invoice engine: pure computation of draft invoices (periods, proration, discounts, taxes,
 * due dates). No I/O, no clock; the caller passes every date. Rules: README.md in this folder.
 */
export type {
  BillingPeriodRule,
  DraftCharge,
  DraftDiscount,
  DraftInvoice,
  DraftTax,
  EngineCoupon,
  EngineInput,
  EngineProduct,
  EnginePurchase,
  EngineSubscription,
  EngineUsage,
  Interval,
  Term,
} from './types.js';
export { computeInvoices, SETUP_FEE_SUFFIX } from './compute-invoices.js';
export { dueDate } from './due-date.js';
export { attachPurchases, purchaseIdsOf, type PurchasePricing } from './purchases.js';
export {
  anniversaryPeriodStart,
  billingPeriod,
  DEFAULT_BILLING_PERIOD_RULE,
  nextPeriodStart,
  periodStartBefore,
  restOfPeriod,
  ruleFor,
  type BillingPeriod,
} from './billing-periods.js';
export { FULL_PERIOD, prorate, proratedAmount, prorationFactor, type ProrationFactor } from './proration.js';
export {
  allocateProportionally,
  couponIsActive,
  PRODUCT_DISCOUNT_NAME,
  ROLLED_UP_DISCOUNT_NAME,
} from './discounts.js';
export { computeTaxes, ROLLED_UP_TAX_NAME } from './taxes.js';
export { groupSubscriptions } from './grouping.js';
export { validateInput } from './validate.js';
export { addDays, daysBetween } from './dates.js';
export {
  couponsForChange,
  isDowngrade,
  isFrequencySwitch,
  planChangeInvoice,
  unusedCredit,
  type PlanChangeCharge,
  type PlanChangeInput,
  type PlanChangeInvoice,
  type RunningLine,
} from './plan-change.js';
export { usageDescription, usageLine } from './usage-lines.js';
export { usageInvoice } from './usage-invoice.js';
