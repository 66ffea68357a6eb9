import type { AppContext } from '../app-context.js';
import { recordChange } from '../audit/audit-log.js';
import type { Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import { savePendingChange } from '../subscriptions/repository.js';

import { quantitiesOf, type ComputedChange } from './plan-change-rules.js';
import { enqueueChangeEmail } from './plan-change-email.js';

/** Stores a change for the period end (replacing one pending), with its audit entry and events; nothing is posted. */
export async function schedule(ctx: AppContext, trx: Queryable, caller: Caller, change: ComputedChange, now: Date): Promise<void> {
  const { s, customer, target, products } = change;
  if (!change.pendingChange) throw new Error('schedule: a periodEnd change is computed with its pending change');
  const { effectiveDate } = change.pendingChange;
  await savePendingChange(trx, {
    subscriptionId: s.id,
    planFrequencyId: target.frequency.id,
    quantities: quantitiesOf(products),
    effectiveDate,
    createdAt: now,
  });
  await recordChange(trx, caller, {
    entityType: 'Subscription',
    entityId: s.id,
    action: 'update',
    changes: { pendingChange: [null, { planFrequencyId: target.frequency.id, quantities: quantitiesOf(products), effectiveDate }] },
  });
  for (const type of ['subscription.updated', 'subscription.changeScheduled'] as const)
    await ctx.webhooks?.subscription(trx, customer.accountId, customer.id, s.id, type, now);
  await enqueueChangeEmail(ctx, trx, customer, change, 'scheduled', effectiveDate, null, change.nextRenewal);
}
