import { recordChange } from '../audit/audit-log.js';
import { lockCustomer } from '../customers/repository.js';
import type { Queryable } from '../db/database.js';
import type { CustomerRow } from '../db/schema.js';
import type { Caller } from '../http/auth.js';
import { ApiError } from '../http/errors.js';

/**
 * Locks the customer for the rest of the transaction and checks it is in one of
 * the states the operation starts from. Two concurrent operations on one
 * customer serialize here; the second sees the first's result and is refused.
 */
export async function lockCustomerIn(db: Queryable, caller: Caller, customerId: number, allowed: readonly string[]): Promise<CustomerRow> {
  const customer = await lockCustomer(db, caller.accountId, customerId);
  if (!customer) throw ApiError.notFound('customer', customerId);
  if (!allowed.includes(customer.status)) throw ApiError.badRequest(`cannot process since status is ${customer.status}`);
  return customer;
}

export async function setCustomerStatus(db: Queryable, caller: Caller, customer: CustomerRow, status: string, now: Date, details: Record<string, unknown> = {}) {
  await db.updateTable('customers').set({ status, statusAt: now, modifiedAt: now }).where('id', '=', customer.id).execute();
  await recordChange(db, caller, {
    entityType: 'Customer',
    entityId: customer.id,
    action: 'update',
    changes: { status: [customer.status, status], ...details },
  });
}
