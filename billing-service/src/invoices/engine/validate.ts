import { Decimal } from 'decimal.js';
import { findCurrency } from '../../catalog/currencies.js';
import { TERMS } from '../../catalog/schema.js';
import { parseDate } from './dates.js';
import type { BillingPeriodRule, EngineInput } from './types.js';

const RULE_TYPES = ['CustomerActivation', 'FirstSubscriptionActivation', 'SpecifiedDate'];
const RULES = ['SingleInvoice', 'MultipleInvoices', 'OneInvoicePerDay', 'Prompt'];

function nonNegative(value: unknown, field: string) {
  if (!Decimal.isDecimal(value) || !value.isFinite() || value.isNegative()) {
    throw new RangeError(`${field}: must be a finite, non-negative Decimal, got ${String(value)}`);
  }
}

function checkRule(rule: BillingPeriodRule | undefined, interval: 'Monthly' | 'Yearly') {
  if (rule === undefined) return;
  const key = `billingPeriods.${interval}`;
  if (!RULE_TYPES.includes(rule.type)) throw new RangeError(`${key}.type: unknown type ${JSON.stringify(rule.type)}`);
  if (!RULES.includes(rule.rule)) throw new RangeError(`${key}.rule: unknown rule ${JSON.stringify(rule.rule)}`);
  if (rule.type !== 'SpecifiedDate') return;
  if (rule.day == null || !Number.isInteger(rule.day) || rule.day < 1 || rule.day > 31) {
    throw new RangeError(`${key}.day: SpecifiedDate needs an integer day 1-31, got ${rule.day}`);
  }
  if (interval === 'Yearly' && (rule.month == null || !Number.isInteger(rule.month) || rule.month < 1 || rule.month > 12)) {
    throw new RangeError(`${key}.month: a Yearly SpecifiedDate needs an integer month 1-12, got ${rule.month}`);
  }
}

/**
 * Rejects input the engine cannot bill, with a RangeError naming the field: unknown currency or
 * term, bad dates, duplicate subscription ids, non-integer or < 1 numberOfIntervals, negative or
 * non-finite quantities, prices, fees, discount/coupon values and tax rates, a Periods coupon
 * without periods, a SpecifiedDate rule without its day (and month for Yearly). A `billFrom` outside
 * its period is refused when the period is computed (restOfPeriod).
 */
export function validateInput(input: EngineInput) {
  if (typeof input.currency !== 'string' || !findCurrency(input.currency)) {
    throw new RangeError(`currency: not an ISO 4217 currency code: ${JSON.stringify(input.currency)}`);
  }
  parseDate(input.effectiveDate, 'effectiveDate');
  if (!(TERMS as readonly string[]).includes(input.term)) throw new RangeError(`term: unknown payment term ${JSON.stringify(input.term)}`);
  checkRule(input.billingPeriods.Monthly, 'Monthly');
  checkRule(input.billingPeriods.Yearly, 'Yearly');
  for (const [i, t] of input.taxRates.entries()) nonNegative(t.rate, `taxRates[${i}].rate`);

  const ids = new Set<number>();
  input.subscriptions.forEach((s, i) => {
    const key = `subscriptions[${i}]`;
    if (!Number.isInteger(s.subscriptionId)) throw new RangeError(`${key}.subscriptionId: must be an integer`);
    if (ids.has(s.subscriptionId)) throw new RangeError(`${key}.subscriptionId: ${s.subscriptionId} appears twice`);
    ids.add(s.subscriptionId);
    if (s.interval !== 'Monthly' && s.interval !== 'Yearly') throw new RangeError(`${key}.interval: must be Monthly or Yearly`);
    if (!Number.isInteger(s.numberOfIntervals) || s.numberOfIntervals < 1) {
      throw new RangeError(`${key}.numberOfIntervals: must be an integer of at least 1`);
    }
    parseDate(s.periodStart, `${key}.periodStart`);
    if (s.billFrom != null) parseDate(s.billFrom, `${key}.billFrom`);
    s.products.forEach((p, j) => {
      const pk = `${key}.products[${j}]`;
      nonNegative(p.quantity, `${pk}.quantity`);
      nonNegative(p.unitPrice, `${pk}.unitPrice`);
      if (p.setupFee != null) nonNegative(p.setupFee, `${pk}.setupFee`);
      if (p.discount != null) {
        if (p.discount.kind !== 'Percentage' && p.discount.kind !== 'Amount')
          throw new RangeError(`${pk}.discount.kind: must be Percentage or Amount`);
        nonNegative(p.discount.value, `${pk}.discount.value`);
      }
    });
    s.coupons.forEach((c, j) => {
      const ck = `${key}.coupons[${j}]`;
      if (c.kind !== 'Percentage' && c.kind !== 'Amount') throw new RangeError(`${ck}.kind: must be Percentage or Amount`);
      nonNegative(c.value, `${ck}.value`);
      if (!Number.isInteger(c.periodsUsed) || c.periodsUsed < 0) throw new RangeError(`${ck}.periodsUsed: must be a non-negative integer`);
      if (!['Once', 'Periods', 'Forever'].includes(c.duration)) throw new RangeError(`${ck}.duration: must be Once, Periods or Forever`);
      if (c.duration === 'Periods' && (c.periods == null || !Number.isInteger(c.periods) || c.periods < 1)) {
        throw new RangeError(`${ck}.periods: a Periods coupon needs an integer number of periods of at least 1`);
      }
    });
  });
}
