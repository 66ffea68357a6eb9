import type { AppContext } from '../app-context.js';
import { findCustomerRow } from '../customers/repository.js';
import type { Caller } from '../http/auth.js';
import { loadBillingContext, utcDate } from '../invoices/billing-run.js';
import { allocateAvailableFunds } from '../ledger/allocation.js';
import { amountDueBy } from '../ledger/balances.js';
import { findDefaultPaymentMethod } from '../payment-methods/repository.js';
import { earlierOutcome } from '../payments/outcome.js';
import { recordPayment } from '../payments/record-payment.js';
import { wallClockNow } from '../clock/account-clock.js';
import { claimCollectionAttempt, findCollectionAttempt, type CustomerRef } from './clock-repository.js';

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
    { idempotencyKey: clockCollectionKey(customer.id, today, card.id) },
  );
  return outcome.status === 'Succeeded' ? 'collected' : 'declined';
}

function clockCollectionKey(customerId: number, today: string, paymentMethodId: number): string {
  return `auto-collect-${customerId}-${today}-${paymentMethodId}`;
}

/** Longer than any charge takes: a clock's claim older than this with no payment recorded belongs to an instance that died. */
const CLOCK_CHARGE_SETTLE_MS = 10 * 60_000;

/**
 * A customer paying now (the portal) takes the day's attempt of the card it pays with and of the default card: the
 * clock then leaves them for tomorrow, so a card saved and paid with in one step is not charged again by the clock.
 * 'inFlight' when the clock took one of them first and has not recorded its payment yet: its charge may be at the
 * gateway now, and a second charge must wait for its outcome (the caller answers payment_in_progress).
 */
export async function takeTodaysAttempts(
  ctx: AppContext,
  accountId: number,
  customerId: number,
  paymentMethodIds: number[],
  now: Date,
): Promise<'clear' | 'inFlight'> {
  const today = utcDate(now);
  for (const cardId of new Set(paymentMethodIds)) {
    if (await claimCollectionAttempt(ctx.db, customerId, today, cardId, 'portal')) continue;
    const attempt = await findCollectionAttempt(ctx.db, customerId, today, cardId);
    if (!attempt || attempt.claimedBy === 'portal') continue;
    // The clock's payment, once recorded, is in the balance the caller reads next.
    if (await earlierOutcome(ctx, systemCaller(accountId), clockCollectionKey(customerId, today, cardId))) continue;
    if (wallClockNow().getTime() - attempt.createdAt.getTime() < CLOCK_CHARGE_SETTLE_MS) return 'inFlight';
  }
  return 'clear';
}
