import { dateInMonth, formatDate, monthIndex, parseDate, toDayNumber } from './dates.js';
import type { BillingPeriodRule, EngineInput, Interval } from './types.js';

/** The rule used when a customer has no configuration for an interval. */
export const DEFAULT_BILLING_PERIOD_RULE: BillingPeriodRule = Object.freeze({ type: 'CustomerActivation', rule: 'SingleInvoice' });

/** The rule that applies to subscriptions of `interval` (missing = CustomerActivation + SingleInvoice). */
export function ruleFor(interval: Interval, billingPeriods: EngineInput['billingPeriods']): BillingPeriodRule {
  return billingPeriods[interval] ?? DEFAULT_BILLING_PERIOD_RULE;
}

/**
 * The period billed from `start` (YYYY-MM-DD dates; `end` and `fullEnd` exclusive).
 * [fullStart, fullEnd) is the full period [start, end) belongs to; `partial` when they differ
 * (only a SpecifiedDate period that does not start on the billing date is partial).
 */
export interface BillingPeriod {
  start: string;
  end: string;
  fullStart: string;
  fullEnd: string;
  partial: boolean;
  /** end − start */
  days: number;
  /** fullEnd − fullStart */
  fullDays: number;
}

function monthsPerInterval(interval: Interval): number {
  return interval === 'Yearly' ? 12 : 1;
}

function checkIntervals(numberOfIntervals: number) {
  if (!Number.isInteger(numberOfIntervals) || numberOfIntervals < 1) {
    throw new RangeError(`numberOfIntervals: must be an integer of at least 1, got ${numberOfIntervals}`);
  }
}

/**
 * The billing period starting at `periodStart` for a frequency of `numberOfIntervals` ×
 * `interval`, under `rule` (default CustomerActivation + SingleInvoice).
 *
 * - Anniversary (CustomerActivation, FirstSubscriptionActivation): [periodStart, periodStart +
 *   numberOfIntervals months/years), on day `anchorDay` (default: periodStart's day) clamped to the
 *   month length. Never partial.
 * - SpecifiedDate: the period ends on the first billing date (day `rule.day`, and for Yearly month
 *   `rule.month`, clamped to the month length) after periodStart, moved on by numberOfIntervals − 1
 *   intervals, so a period is at most one full frequency long. The full period is the
 *   numberOfIntervals intervals that end there; it is partial when periodStart is not a billing date.
 */
export function billingPeriod(
  periodStart: string,
  interval: Interval,
  numberOfIntervals: number,
  rule: BillingPeriodRule = DEFAULT_BILLING_PERIOD_RULE,
  anchorDay?: number | null,
): BillingPeriod {
  checkIntervals(numberOfIntervals);
  const start = parseDate(periodStart, 'periodStart');
  const step = monthsPerInterval(interval);
  const startIndex = monthIndex(start);

  if (rule.type !== 'SpecifiedDate') {
    const day = anchorDay ?? start.day;
    if (!Number.isInteger(day) || day < start.day || day > 31) {
      throw new RangeError(`anchorDay: must be an integer from ${start.day} (the day of periodStart ${periodStart}) to 31, got ${day}`);
    }
    if (day > start.day && start.day !== dateInMonth(startIndex, 31).day) {
      throw new RangeError(`anchorDay: ${day} only fits a periodStart clamped to the end of its month, not ${periodStart}`);
    }
    const end = formatDate(dateInMonth(startIndex + numberOfIntervals * step, day));
    return period(periodStart, end, periodStart, end);
  }

  const day = rule.day;
  if (day == null || !Number.isInteger(day) || day < 1 || day > 31) {
    throw new RangeError(`billing period day: SpecifiedDate needs an integer day 1-31, got ${day}`);
  }
  // Billing dates fall in months whose index ≡ phase (mod step).
  let phase = 0;
  if (interval === 'Yearly') {
    const month = rule.month;
    if (month == null || !Number.isInteger(month) || month < 1 || month > 12) {
      throw new RangeError(`billing period month: a Yearly SpecifiedDate needs an integer month 1-12, got ${month}`);
    }
    phase = month - 1;
  }
  // c: month index of the first billing date strictly after periodStart.
  let c = startIndex + ((((phase - startIndex) % step) + step) % step);
  if (toDayNumber(dateInMonth(c, day)) <= toDayNumber(start)) c += step;
  const end = formatDate(dateInMonth(c + (numberOfIntervals - 1) * step, day));
  const fullStart = formatDate(dateInMonth(c - step, day));
  return period(periodStart, end, fullStart, end);
}

function period(start: string, end: string, fullStart: string, fullEnd: string): BillingPeriod {
  const dn = (d: string) => toDayNumber(parseDate(d));
  return {
    start,
    end,
    fullStart,
    fullEnd,
    partial: fullStart !== start,
    days: dn(end) - dn(start),
    fullDays: dn(fullEnd) - dn(fullStart),
  };
}

/**
 * The rest of the period `whole` from `from` (a date within it) to its end: the end and the full period stay,
 * so the rest is prorated over the days of the full period (partial unless `from` is its first day).
 */
export function restOfPeriod(whole: BillingPeriod, from: string): BillingPeriod {
  const day = toDayNumber(parseDate(from, 'billFrom'));
  if (day < toDayNumber(parseDate(whole.start)) || day >= toDayNumber(parseDate(whole.end))) {
    throw new RangeError(`billFrom: ${from} is not within the period ${whole.start} to ${whole.end}`);
  }
  return period(from, whole.end, whole.fullStart, whole.fullEnd);
}

/**
 * Where the period that ends at `periodEnd` (exclusive) starts on the same grid: `numberOfIntervals`
 * intervals back, on the anniversary day (`anchorDay`, default the day of periodEnd) or the rule's
 * billing day (SpecifiedDate), clamped to the month length. The inverse of nextPeriodStart for a
 * period end on that grid (the caller checks the fit when the grid may have changed since).
 */
export function periodStartBefore(
  periodEnd: string,
  interval: Interval,
  numberOfIntervals: number,
  rule: BillingPeriodRule = DEFAULT_BILLING_PERIOD_RULE,
  anchorDay?: number | null,
): string {
  checkIntervals(numberOfIntervals);
  const end = parseDate(periodEnd, 'periodEnd');
  const day = rule.type === 'SpecifiedDate' ? rule.day : anchorDay;
  return formatDate(dateInMonth(monthIndex(end) - numberOfIntervals * monthsPerInterval(interval), day ?? end.day));
}

/**
 * Where the period after the one starting at `periodStart` starts (the exclusive end of that
 * period); see billingPeriod for the rules. Jan 31 → Feb 28; with anchorDay 31, Feb 28 → Mar 31.
 */
export function nextPeriodStart(
  periodStart: string,
  interval: Interval,
  numberOfIntervals: number,
  rule?: BillingPeriodRule,
  anchorDay?: number | null,
): string {
  return billingPeriod(periodStart, interval, numberOfIntervals, rule, anchorDay).end;
}

/**
 * The start of the k-th anniversary period (k = 0, 1, 2 …) of a subscription first started on
 * `anchorDate`, computed from the anchor (not by chaining clamped dates).
 */
export function anniversaryPeriodStart(anchorDate: string, interval: Interval, numberOfIntervals: number, k: number): string {
  checkIntervals(numberOfIntervals);
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`k: must be a non-negative integer, got ${k}`);
  const anchor = parseDate(anchorDate, 'anchorDate');
  return formatDate(dateInMonth(monthIndex(anchor) + k * numberOfIntervals * monthsPerInterval(interval), anchor.day));
}
