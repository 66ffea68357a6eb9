import type { AppContext } from '../app-context.js';
import { amountDueBy, customerBalances } from '../ledger/balances.js';
import { toJsonAmount } from '../money/money.js';
import type { PortalSession } from './links.js';

/** What paying in the portal charges: the posted invoices' balance, less the money the customer already holds. */
export async function owedOnPostedInvoices(ctx: AppContext, customerId: number) {
  const { arBalance, unallocatedPayments, unallocatedCredits } = await customerBalances(ctx.db, customerId);
  return arBalance.minus(unallocatedPayments).minus(unallocatedCredits);
}

/**
 * What the card form offers to pay with the card it saves ("pay now", checked by default, as Stripe's portal does):
 * what paying charges, once an invoice is due (its due date reached on the account's clock); 0 while none is.
 */
export async function portalAmountDue(ctx: AppContext, session: PortalSession): Promise<number> {
  const now = await ctx.clock.now(session.accountId);
  if ((await amountDueBy(ctx.db, session.customerId, now)).lte(0)) return 0;
  const owed = await owedOnPostedInvoices(ctx, session.customerId);
  return owed.gt(0) ? toJsonAmount(owed) : 0;
}
