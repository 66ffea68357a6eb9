import { getCustomer } from '../customers/service.js';
import type { CustomerResponse } from '../customers/schemas.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import { transitionCustomer } from './transitions.js';
import { transactionWithRetry } from '../db/conflict-retry.js';

/** Active → Hold; the customer's Active subscriptions are suspended with it. */
export async function holdCustomer(ctx: AppContext, caller: Caller, customerId: number, now?: Date): Promise<CustomerResponse> {
  now ??= await ctx.clock.now(caller.accountId);
  await transactionWithRetry(ctx.db, (trx) =>
    transitionCustomer(ctx, trx, caller, customerId, 'hold', now, (suspended) => ({ suspendedSubscriptions: suspended.map((s) => s.id) })),
  );
  return getCustomer(ctx, caller, customerId);
}
