import type { AppContext } from '../app-context.js';
import { findCustomerRow } from '../customers/repository.js';
import type { Caller } from '../http/auth.js';
import { loadBillingContext, utcDate } from '../invoices/billing-run.js';
import { allocateAvailableFunds } from '../ledger/allocation.js';
import { amountDueBy } from '../ledger/balances.js';
import { findDefaultPaymentMethod } from '../payment-methods/repository.js';
import { recordPayment } from '../payments/record-payment.js';
import { claimCollectionAttempt, type CustomerRef } from './clock-repository.js';

/** The service acting on its own: audited as `system`, source `billing clock`. */
export function systemCaller(accountId: number): Caller {
  return { accountId, keyKind: 'system', auditSource: 'billing clock', rateLimits: { perMinute: 0, perDay: 0 }, keyHash: '' };
}

/**
 * Automatic collection (the dunning retries): once a day, a customer who collects
 * automatically and owes on invoices now due is charged what is due (due date on
 * or before today), after the money the customer already holds (unallocated
 * payments and credits) is applied to it; invoices not yet due are left for their
 * day. The day's attempt is claimed first, so it is made once across instances. A plan change applied now
 * collects through it after its commit (lifecycle/plan-change.ts). The attempt is per default card: a new default
 * card (portal, API, checkout) is charged at the clock's next tick rather than the next day's.
 */
export async function collectDueBalance(ctx: AppContext, ref: CustomerRef, now: Date): Promise<'collected' | 'declined' | 'skipped'> {
  const customer = await findCustomerRow(ctx.db, ref.accountId, ref.id);
  if (!customer) return 'skipped';
  const context = await loadBillingContext(ctx.db, ctx.catalog, customer);
  const card = context.settings.autoCollect ? await findDefaultPaymentMethod(ctx.db, customer.id) : undefined;
  if (!card) return 'skipped';
  await ctx.db.transaction().execute((trx) => allocateAvailableFunds(trx, ref.accountId, customer.id, now, 'OldestToNewest'));
  const due = await amountDueBy(ctx.db, customer.id, now);
  if (due.lessThanOrEqualTo(0)) return 'skipped';
  const today = utcDate(now);
  if (!(await claimCollectionAttempt(ctx.db, customer.id, today, card.id))) return 'skipped';
  // Allocated oldest due first: the invoices now due, since every one not yet due falls due later.
  const outcome = await recordPayment(
    ctx,
    systemCaller(ref.accountId),
    {
      customerId: customer.id,
      amount: due.toString(),
      paymentMethod: 'CreditCard',
      paymentMethodId: card.id,
      source: 'Automatic',
      autoAllocate: true,
      autoAllocateOrder: 'OldestToNewest',
      reference: `automatic collection ${today}`,
    },
    now,
    { idempotencyKey: `auto-collect-${customer.id}-${today}-${card.id}` },
  );
  return outcome.status === 'Succeeded' ? 'collected' : 'declined';
}

/**
 * A customer paying now with one of their cards (the portal) takes that card's attempt of the day: the clock then
 * leaves that card for tomorrow, so a card saved and paid with in one step is never charged again by the clock.
 */
export async function takeTodaysAttempt(ctx: AppContext, customerId: number, paymentMethodId: number, now: Date): Promise<void> {
  await claimCollectionAttempt(ctx.db, customerId, utcDate(now), paymentMethodId);
}
