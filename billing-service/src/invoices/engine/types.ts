import type { Decimal } from 'decimal.js';
import type { Term } from '../../catalog/schema.js';
import type { UsageCharge } from '../../catalog/usage-schema.js';

export type { Term };

/** Billing interval of a plan frequency. */
export type Interval = 'Monthly' | 'Yearly';

/** One product of a subscription, as the engine bills it. All money values are decimals, never floats. */
export interface EngineProduct {
  productCode: string;
  name: string;
  description?: string | null;
  /** Units; 0 or more. */
  quantity: Decimal;
  /** Recurring charge per period, per unit, after any price override; 0 or more. */
  unitPrice: Decimal;
  /** Per unit, charged on the first invoice only (never prorated, never discounted). null/undefined/0 = no setup fee line. */
  setupFee?: Decimal | null;
  /** false = the product is not charged at all (no recurring line, no setup fee line). */
  included: boolean;
  /**
   * Product-level discount per period on the recurring line: Percentage of the line amount
   * (value 10 = 10 %), or Amount off the line (prorated like the line on a prorated partial period).
   */
  discount?: { kind: 'Percentage' | 'Amount'; value: Decimal } | null;
}

/** A coupon attached to a subscription. */
export interface EngineCoupon {
  code: string;
  name?: string | null;
  /** Percentage: value 10 = 10 % of each recurring line; Amount: value off the subscription's recurring lines per invoice. */
  kind: 'Percentage' | 'Amount';
  value: Decimal;
  /** Once = first invoice only; Periods = while periodsUsed < periods; Forever = always. */
  duration: 'Once' | 'Periods' | 'Forever';
  /** Required (integer ≥ 1) when duration is Periods. */
  periods?: number | null;
  /** How many invoices already applied it. */
  periodsUsed: number;
  /** The first service day of the period its last use discounted (null or absent: never used). Plan changes read it. */
  lastUsedOn?: string | null;
  /** The end (exclusive) of that period (null or absent: never used, or not recorded). */
  lastUsedUntil?: string | null;
}

/** A subscription to bill for the period starting at `periodStart`. */
export interface EngineSubscription {
  subscriptionId: number;
  name: string;
  interval: Interval;
  /** Integer ≥ 1: a period is numberOfIntervals months (Monthly) or years (Yearly). */
  numberOfIntervals: number;
  /** Whether a partial (SpecifiedDate) first period is prorated. */
  isProrated: boolean;
  products: EngineProduct[];
  coupons: EngineCoupon[];
  /** Setup fees apply. */
  isFirstInvoice: boolean;
  /** YYYY-MM-DD, UTC date the period being billed starts. */
  periodStart: string;
  /**
   * Anniversary periods only: the day of month the anniversary falls on, remembered across clamped
   * months (activated Jan 31 → anchorDay 31, so the period starting Feb 28 ends Mar 31).
   * Default: the day of `periodStart`. Must be ≥ that day, and > it only when periodStart is the
   * last day of its month.
   */
  anchorDay?: number | null;
  /**
   * Bills only the rest of the period that starts at `periodStart`: from this date (within that
   * period) to its end, as for a customer back mid-period. The period and the full period it
   * belongs to stay what `periodStart` makes them, so the next period starts where it would have,
   * and a prorated frequency charges the days from here to the end over the days of the full period.
   */
  billFrom?: string | null;
  /** Usage of past periods billed in arrears on this invoice (issue 41): one line per metric and period. */
  usage?: EngineUsage[];
}

/**
 * A metric's quantity over a past period of the subscription, billed in arrears (issue 41): priced by its charge
 * (pricing/usage-charges.ts), never prorated, discounted by coupons like a recurring line, taxed like any line.
 */
export interface EngineUsage {
  metricCode: string;
  /** The line's name: the charge's, else the metric's. */
  name: string;
  quantity: Decimal;
  charge: UsageCharge;
  /** YYYY-MM-DD: the usage period [from, to) in UTC days. */
  from: string;
  to: string;
}

/** A billing period configuration (spec "Billing period configuration") for one interval. */
export interface BillingPeriodRule {
  type: 'CustomerActivation' | 'FirstSubscriptionActivation' | 'SpecifiedDate';
  rule: 'SingleInvoice' | 'MultipleInvoices' | 'OneInvoicePerDay' | 'Prompt';
  /** 1-31, SpecifiedDate only (required there); clamped to the month length. */
  day?: number | null;
  /** 1-12, SpecifiedDate with Yearly only (required there). */
  month?: number | null;
}

/** Everything the engine needs; the caller resolves settings (account defaults, tax address) first. */
export interface EngineInput {
  /** ISO 4217 code; amounts are rounded to its minor unit. */
  currency: string;
  /** YYYY-MM-DD: the invoice date. */
  effectiveDate: string;
  subscriptions: EngineSubscription[];
  /** Missing = CustomerActivation + SingleInvoice. */
  billingPeriods: { Monthly?: BillingPeriodRule; Yearly?: BillingPeriodRule };
  /** Already chosen for the taxation address; empty when tax exempt. rate 0.05 = 5 %. */
  taxRates: Array<{ name: string; rate: Decimal }>;
  term: Term;
  showZeroDollarCharges: boolean;
  rollUpTaxes: boolean;
  rollUpDiscounts: boolean;
}

/** One discount on a charge line. */
export interface DraftDiscount {
  name: string;
  /** Rounded to the minor unit; > 0. */
  amount: Decimal;
}

/**
 * A one-time purchase to bill (issue 40): its amount was computed once, when it was made (quantity ×
 * unitPrice, rounded to the minor unit), so a preview and the posted invoice carry the same line.
 */
export interface EnginePurchase {
  purchaseId: number;
  /** The catalogue's one-time product, or '' for an ad hoc charge. */
  productCode: string;
  name: string;
  description: string | null;
  quantity: Decimal;
  unitPrice: Decimal;
  amount: Decimal;
}

/** One invoice line. */
export interface DraftCharge {
  /** null: a purchase's line (it belongs to no subscription). */
  subscriptionId: number | null;
  productCode: string;
  kind: 'Recurring' | 'SetupFee' | 'Purchase' | 'Usage';
  /** A Purchase line's purchase. */
  purchaseId?: number;
  /** A Usage line's metric (its productCode too). */
  metricCode?: string;
  name: string;
  description: string | null;
  quantity: Decimal;
  unitPrice: Decimal;
  /** unitPrice × proration factor, unrounded (40 significant digits); = unitPrice when not prorated. */
  proratedUnitPrice: Decimal;
  /** quantity × proratedUnitPrice, rounded once to the minor unit. */
  amount: Decimal;
  discounts: DraftDiscount[];
  /** amount − its discounts, never below 0. */
  taxableAmount: Decimal;
  /** YYYY-MM-DD, the period start. */
  startServiceDate: string;
  /** YYYY-MM-DD, exclusive end = next period start. */
  endServiceDate: string;
}

/** One tax line of an invoice. */
export interface DraftTax {
  name: string;
  rate: Decimal;
  /** Invoice taxable amount × rate, rounded once to the minor unit. */
  amount: Decimal;
}

/** An invoice as computed, before it is stored or posted. */
export interface DraftInvoice {
  currency: string;
  effectiveDate: string;
  dueDate: string;
  /** Ascending. */
  subscriptionIds: number[];
  charges: DraftCharge[];
  /** Σ amount. */
  subtotal: Decimal;
  /** Σ of every line's discounts. */
  totalDiscount: Decimal;
  taxes: DraftTax[];
  /** Σ taxes. */
  totalTaxes: Decimal;
  /** subtotal − totalDiscount + totalTaxes. */
  total: Decimal;
  /** Per subscription: where the next period starts (= endServiceDate of its recurring lines). */
  nextPeriodStart: Record<number, string>;
  /** Per subscription: codes of the coupons applied on this invoice (the caller adds 1 to their periodsUsed). */
  couponsApplied: Record<number, string[]>;
}
