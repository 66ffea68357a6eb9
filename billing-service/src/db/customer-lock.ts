import type { Queryable } from './database.js';
import { isStorableId } from './ids.js';
import { reusableQuery } from './reusable-query.js';
import type { CustomerRow } from './schema.js';

/*
 * The customer's row is the lock every domain takes before changing what belongs to that customer
 * (README "Concurrency"): a read of the customers table that sits here, below the domains, so that
 * billing settings, addresses or payments can serialise on it without importing customers.
 */

const lockedCustomerRowById = reusableQuery((db: Queryable, accountId: number, id: number) =>
  db.selectFrom('customers').selectAll().where('accountId', '=', accountId).where('id', '=', id).forUpdate(),
);

export async function lockCustomer(db: Queryable, accountId: number, id: number): Promise<CustomerRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return (await lockedCustomerRowById(db, accountId, id))[0];
}

/** Locks several customers of the account, in id order (so that two batches never wait on each other in a cycle). */
export function lockCustomers(db: Queryable, accountId: number, ids: number[]): Promise<CustomerRow[]> {
  const storable = [...new Set(ids.filter(isStorableId))];
  if (storable.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('customers')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('id', 'in', storable)
    .orderBy('id')
    .forUpdate()
    .execute();
}

export async function customerExists(db: Queryable, accountId: number, id: number): Promise<boolean> {
  if (!isStorableId(id)) return false;
  const row = await db.selectFrom('customers').select('id').where('accountId', '=', accountId).where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}
