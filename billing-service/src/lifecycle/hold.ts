import { getCustomer } from '../customers/service.js';
import type { CustomerResponse } from '../customers/schemas.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import { lockCustomerIn, setCustomerStatus } from './customer-status.js';

/** Active → Hold; the customer's Active subscriptions are suspended with it. */
export async function holdCustomer(ctx: AppContext, caller: Caller, customerId: number, now = new Date()): Promise<CustomerResponse> {
  await ctx.db.transaction().execute(async (trx) => {
    const customer = await lockCustomerIn(trx, caller, customerId, ['Active']);
    const suspended = await trx
      .updateTable('subscriptions')
      .set({ status: 'Suspended', suspendedAt: now, modifiedAt: now })
      .where('customerId', '=', customer.id)
      .where('status', '=', 'Active')
      .returning('id')
      .execute();
    await setCustomerStatus(trx, caller, customer, 'Hold', now, { suspendedSubscriptions: suspended.map((s) => s.id) });
  });
  return getCustomer(ctx, caller, customerId);
}
