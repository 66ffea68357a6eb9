import { ruleFor } from './billing-periods.js';
import type { EngineInput, EngineSubscription } from './types.js';

/**
 * Which subscriptions share an invoice. A subscription whose interval's rule is MultipleInvoices
 * gets an invoice of its own; all the others (SingleInvoice, and OneInvoicePerDay and Prompt,
 * which are scheduling/approval rules and compute like SingleInvoice) share one invoice, Monthly
 * and Yearly together. Groups hold subscriptions in ascending id order and are ordered by their
 * first id, so the input order does not matter.
 */
export function groupSubscriptions(
  subscriptions: readonly EngineSubscription[],
  billingPeriods: EngineInput['billingPeriods'],
): EngineSubscription[][] {
  const sorted = [...subscriptions].sort((a, b) => a.subscriptionId - b.subscriptionId);
  const shared: EngineSubscription[] = [];
  const groups: EngineSubscription[][] = [];
  for (const subscription of sorted) {
    if (ruleFor(subscription.interval, billingPeriods).rule === 'MultipleInvoices') groups.push([subscription]);
    else {
      if (shared.length === 0) groups.push(shared);
      shared.push(subscription);
    }
  }
  return groups;
}
