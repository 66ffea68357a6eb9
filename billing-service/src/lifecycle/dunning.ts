import type { EffectiveBillingSettings } from '../billing-settings/effective-settings.js';
import { TRANSITIONS } from './transitions.js';

/**
 * Dunning: when the billing clock suspends an overdue customer and cancels a
 * long-suspended one. The clock acts on these and the customer overview counts
 * down to them, so both read the same rules. The grace period runs from when the
 * customer entered PoorStanding (an invoice unpaid and overdue, see
 * ledger/overdue.ts and ledger/account-status.ts): the spec's "stays in
 * PoorStanding longer than the grace period".
 */
export type DunningSettings = Pick<EffectiveBillingSettings, 'customerGracePeriod' | 'gracePeriodExtension' | 'customerAutoCancel'>;

const DAY_MS = 86_400_000;

/** Days a customer may stay in PoorStanding before suspension: its grace period plus its extension. */
export function gracePeriodDays(settings: DunningSettings): number {
  return settings.customerGracePeriod + settings.gracePeriodExtension;
}

/** Whether the grace period since the customer entered PoorStanding has run out. */
export function suspensionDue(poorStandingSince: Date, settings: DunningSettings, now: Date): boolean {
  return hasPassed(poorStandingSince, gracePeriodDays(settings), now);
}

/** Whole days left before suspension (0 once due). */
export function daysUntilSuspension(poorStandingSince: Date, settings: DunningSettings, now: Date): number {
  return daysLeft(poorStandingSince, gracePeriodDays(settings), now);
}

/** Whether the clock cancels the customer now: suspended `customerAutoCancel` days ago (0: never). */
export function autoCancelDue(customer: { status: string; statusAt: Date }, settings: DunningSettings, now: Date): boolean {
  return autoCancels(customer, settings) && hasPassed(customer.statusAt, settings.customerAutoCancel, now);
}

/** Whole days left before auto-cancel (0 once due); null when the customer is not suspended or auto-cancel is off. */
export function daysUntilCancellation(customer: { status: string; statusAt: Date }, settings: DunningSettings, now: Date): number | null {
  return autoCancels(customer, settings) ? daysLeft(customer.statusAt, settings.customerAutoCancel, now) : null;
}

function autoCancels(customer: { status: string }, settings: DunningSettings): boolean {
  return settings.customerAutoCancel !== 0 && TRANSITIONS.autoCancel.from.some((s) => s === customer.status);
}

function hasPassed(since: Date, days: number, now: Date): boolean {
  return now.getTime() >= since.getTime() + days * DAY_MS;
}

/** Counted in whole days elapsed, so it reaches 0 on the day hasPassed turns true. */
function daysLeft(since: Date, days: number, now: Date): number {
  return Math.max(0, days - Math.floor((now.getTime() - since.getTime()) / DAY_MS));
}
