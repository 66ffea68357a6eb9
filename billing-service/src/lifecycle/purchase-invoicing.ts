import type { AppContext } from '../app-context.js';
import type { Queryable } from '../db/database.js';
import type { CustomerRow } from '../db/schema.js';
import { loadBillingContext, saveInvoices, utcDate, withPurchases } from '../invoices/billing-run.js';
import { purchasesInStatus } from '../purchases/repository.js';
import type { PurchaseInvoicing } from '../purchases/service.js';
import { collectDueBalance } from './collection.js';

/**
 * `invoiceNow` of a purchase (purchases/service.ts declares the port): an invoice of the purchase alone, posted
 * in the purchase's transaction through the path every posting takes (saveInvoices: its number, ledger entry,
 * held funds applied, invoice.posted and the InvoicePost e-mail); after the commit, collected as the billing
 * clock collects (collectDueBalance: only with auto-collect and a default card, what is due today).
 */
export const purchaseInvoicing: PurchaseInvoicing = {
  async invoiceNow(ctx: AppContext, trx: Queryable, customer: CustomerRow, purchaseIds: number[], now: Date) {
    const context = await loadBillingContext(trx, ctx.catalog, customer);
    const purchases = (await purchasesInStatus(trx, customer.id, 'Pending')).filter((p) => purchaseIds.includes(p.id));
    await saveInvoices(trx, context, withPurchases(context, [], purchases, utcDate(now)), {
      post: true,
      now,
      notifier: ctx.notifier,
      webhooks: ctx.webhooks,
    });
  },
  async collect(ctx: AppContext, customer: CustomerRow, now: Date) {
    await collectDueBalance(ctx, { id: customer.id, accountId: customer.accountId }, now);
  },
};
