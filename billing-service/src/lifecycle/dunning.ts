import type { EffectiveBillingSettings } from '../billing-settings/effective-settings.js';
import { TRANSITIONS } from './transitions.js';

/**
 * Dunning: when the billing clock suspends an overdue customer and cancels a
 * long-suspended one. The clock acts on these and the customer overview counts
 * down to them, so both read the same rules.
 */
export type DunningSettings = Pick<EffectiveBillingSettings, 'customerGracePeriod' | 'gracePeriodExtension' | 'customerAutoCancel'>;

const DAY_MS = 86_400_000;

/** Days an invoice may stay overdue before suspension: the customer's grace period plus its extension. */
export function gracePeriodDays(settings: DunningSettings): number {
  return settings.customerGracePeriod + settings.gracePeriodExtension;
}

/** Whether the grace period after the oldest unpaid invoice's due date has run out. */
export function suspensionDue(overdueSince: Date, settings: DunningSettings, now: Date): boolean {
  return hasPassed(overdueSince, gracePeriodDays(settings), now);
}

/** Whole days left before suspension (0 once due). */
export function daysUntilSuspension(overdueSince: Date, settings: DunningSettings, now: Date): number {
  return daysLeft(overdueSince, gracePeriodDays(settings), now);
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
