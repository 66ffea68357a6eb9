import type { BillingContext, PeriodToBill } from './billing-run.js';
import { nextPeriodStart, periodStartBefore, ruleFor, type BillingPeriodRule } from './engine/index.js';
import type { SubscriptionWithPlan } from '../subscriptions/repository.js';

/*
 * A subscription's periods on its grid (pure: dates only), for everything that bills part of one: a return from
 * hold, a cancellation, a plan change (lifecycle), and the invoices computed for them.
 */

/**
 * The day of the month a subscription's periods fall on: the stored one once
 * the anniversary moved (ChargeForCurrentFullPeriod starts a new period on the
 * day of the unhold), else its activation day, else the day of its current or
 * next period start. A day is kept only if the next period start fits it (that day, or
 * clamped to the end of a shorter month), as the engine requires.
 */
export function anchorDayOf(s: SubscriptionWithPlan): number | null {
  // Stored once it moved: from dates alone a moved anchor is ambiguous at month ends.
  if (s.anchorDay !== null) return s.anchorDay;
  const activated = s.activatedAt ? s.activatedAt.getUTCDate() : null;
  if (!s.nextPeriodStart) return activated;
  const [year, month, next] = s.nextPeriodStart.split('-').map(Number) as [number, number, number];
  const endOfMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const current = s.currentPeriodStart ? Number(s.currentPeriodStart.slice(8, 10)) : null;
  const fits = (day: number | null): day is number => day !== null && (day === next || (day > next && next === endOfMonth));
  return [activated, current].find(fits) ?? next;
}

/**
 * The period starts a subscription missed while on hold: from its next period
 * start up to today, period after period under the customer's billing period
 * rule for its interval (the rule its invoices are computed with).
 */
export function missedPeriodStarts(
  s: SubscriptionWithPlan,
  today: string,
  rule?: BillingPeriodRule,
): { missed: string[]; firstFuture: string } {
  const anchorDay = anchorDayOf(s);
  const missed: string[] = [];
  let start = s.nextPeriodStart ?? today;
  while (start <= today && missed.length < 1000) {
    missed.push(start);
    start = nextPeriodStart(start, s.interval, s.numberOfIntervals, rule, anchorDay);
  }
  return { missed, firstFuture: start };
}

/**
 * The rest of the period running today, from today to its end (the subscription's next period
 * start), prorated over that whole period: a rest billed again on uncancel (pure: dates only).
 * The period's start is found back from its end on the subscription's grid; when the grid no
 * longer leads there (the customer's billing period rule changed since it was billed), the rest
 * runs from today to the next billing date of the rule now in force.
 */
export function restOfRunningPeriod(
  s: SubscriptionWithPlan,
  today: string,
  billingPeriods: BillingContext['billingPeriods'],
): PeriodToBill {
  const end = s.nextPeriodStart ?? today;
  const rule = ruleFor(s.interval, billingPeriods);
  const anchorDay = anchorDayOf(s);
  const start = periodStartBefore(end, s.interval, s.numberOfIntervals, rule, anchorDay);
  const onGrid = start <= today && today < end && nextPeriodStart(start, s.interval, s.numberOfIntervals, rule, anchorDay) === end;
  if (!onGrid) return { subscription: s, periodStart: today, isFirstInvoice: false, prorate: true };
  return { subscription: s, periodStart: start, billFrom: today, isFirstInvoice: false, anchorDay, prorate: true };
}
