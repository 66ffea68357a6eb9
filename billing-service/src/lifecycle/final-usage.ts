import type { AppContext } from '../app-context.js';
import type { Queryable } from '../db/database.js';
import type { CustomerRow } from '../db/schema.js';
import { loadBillingContext, saveInvoices, utcDate } from '../invoices/billing-run.js';
import { addDays, usageInvoice } from '../invoices/engine/index.js';
import { usageChargesOf } from '../catalog/usage-charges-of.js';
import { usageToBill } from '../invoices/usage-to-bill.js';
import { findSubscriptionsOfCustomers, lockSubscriptionRows, markUsageBilledUntil } from '../subscriptions/repository.js';
import { usageWindowStart } from '../usage/quantities.js';

/**
 * A cancellation bills the usage of the metered subscriptions it ends (issue 41): from where their unbilled usage
 * starts to the end of today, on an invoice of its own (posted as the customer's settings say), in the cancellation's
 * transaction, under the subscriptions' row locks (as a renewal reads usage, so no event is stored meanwhile). The
 * subscriptions remember the day it was billed up to, so an uncancelled one's next renewal does not bill it again;
 * after an uncancel the rest of today takes no events (they would be dated in billed usage).
 */
export async function billFinalUsage(
  ctx: AppContext,
  trx: Queryable,
  customer: CustomerRow,
  ended: ReadonlyArray<{ id: number; activatedAt: Date | null }>,
  now: Date,
): Promise<void> {
  const started = new Set(ended.filter((s) => s.activatedAt !== null).map((s) => s.id));
  if (started.size === 0) return;
  const metered = (await findSubscriptionsOfCustomers(trx, customer.accountId, [customer.id])).filter(
    (s) => started.has(s.id) && usageChargesOf(ctx.catalog, s.planFrequencyId).length > 0,
  );
  if (metered.length === 0) return;
  const ids = metered.map((s) => s.id);
  await lockSubscriptionRows(trx, ids);
  const until = addDays(utcDate(now), 1);
  const usages = await Promise.all(
    metered.map(async (s) => {
      const from = usageWindowStart(s);
      if (from === null) return [];
      return (await usageToBill(trx, ctx.catalog, s, from, until)).map((usage) => ({ subscriptionId: s.id, usage }));
    }),
  );
  const context = await loadBillingContext(trx, ctx.catalog, customer);
  const drafts = usageInvoice(usages.flat(), {
    currency: customer.currency,
    effectiveDate: utcDate(now),
    term: context.settings.term,
    taxRates: context.taxRates,
    rollUpTaxes: context.settings.rollUpTaxes,
    showZeroDollarCharges: context.settings.showZeroDollarCharges,
  });
  await saveInvoices(trx, context, drafts, {
    post: context.settings.autoPostDraftInvoice,
    now,
    notifier: ctx.notifier,
    webhooks: ctx.webhooks,
  });
  await markUsageBilledUntil(trx, ids, until);
}
