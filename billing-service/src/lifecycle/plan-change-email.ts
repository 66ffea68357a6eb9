import type { AppContext } from '../app-context.js';
import type { Queryable } from '../db/database.js';
import type { CustomerRow } from '../db/schema.js';
import { minorUnits, money, type Money } from '../money/money.js';
import type { PlanChangeResponse } from './schemas.js';

import type { ChangedProduct, ComputedChange } from './plan-change-rules.js';

/**
 * The SubscriptionChange e-mail (issue 28), in the change's transaction (the outbox: it commits with the change or
 * not at all): the plans before and after, the quantities that change, the change's invoice when one is posted, and
 * the next charge.
 */
export async function enqueueChangeEmail(
  ctx: AppContext,
  trx: Queryable,
  customer: CustomerRow,
  change: Pick<ComputedChange, 's' | 'target'> & { before: ReadonlyArray<ChangedProduct>; products: ReadonlyArray<ChangedProduct> },
  stage: 'applied' | 'scheduled',
  effectiveDate: string,
  invoice: { number: number; total: Money } | null,
  nextCharge: PlanChangeResponse['nextRenewal'],
): Promise<void> {
  if (!ctx.notifier?.enabled) return;
  const { s, target } = change;
  const places = minorUnits(s.currency);
  const quantities = change.products.flatMap((p) => {
    const was = change.before.find((b) => b.productCode === p.productCode);
    return was && !money(was.quantity).eq(p.quantity)
      ? [{ product: p.name, from: money(was.quantity).toString(), to: money(p.quantity).toString() }]
      : [];
  });
  await ctx.notifier.enqueue(trx, customer, {
    type: 'SubscriptionChange',
    stage,
    effectiveDate,
    from: { name: s.planName, interval: s.interval, numberOfIntervals: s.numberOfIntervals },
    to: { name: target.plan.name, interval: target.frequency.interval, numberOfIntervals: target.frequency.numberOfIntervals },
    quantities,
    currency: s.currency,
    invoice: invoice && { number: invoice.number, total: invoice.total.toFixed(places) },
    nextCharge: { date: nextCharge.date, amount: money(nextCharge.amount).toFixed(places) },
  });
}
