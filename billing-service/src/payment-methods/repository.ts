import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Queryable } from '../db/database.js';
import { isStorableId } from '../db/ids.js';
import { reusableQuery } from '../db/reusable-query.js';
import type { PaymentMethodsTable } from '../db/schema.js';

export type PaymentMethodRow = Selectable<PaymentMethodsTable>;

export function selectPaymentMethods(db: Queryable, accountId: number) {
  return db.selectFrom('paymentMethods').selectAll('paymentMethods').where('paymentMethods.accountId', '=', accountId).where('paymentMethods.removedAt', 'is', null);
}

export async function findPaymentMethod(db: Queryable, accountId: number, id: number): Promise<PaymentMethodRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return selectPaymentMethods(db, accountId).where('paymentMethods.id', '=', id).executeTakeFirst();
}

export async function findDefaultPaymentMethod(db: Queryable, customerId: number): Promise<PaymentMethodRow | undefined> {
  return db.selectFrom('paymentMethods').selectAll().where('customerId', '=', customerId).where('removedAt', 'is', null).where('isDefault', '=', true).executeTakeFirst();
}

const customerLockedWithCardCount = reusableQuery((db: Queryable, accountId: number, customerId: number) =>
  db
    .selectFrom('customers')
    .select((eb) => [
      'customers.id',
      eb
        .selectFrom('paymentMethods')
        .select(eb.fn.countAll<number>().as('n'))
        .whereRef('paymentMethods.customerId', '=', 'customers.id')
        .where('paymentMethods.removedAt', 'is', null)
        .as('paymentMethodCount'),
    ])
    .where('customers.accountId', '=', accountId)
    .where('customers.id', '=', customerId)
    .forUpdate(),
);

/** Locks the customer row for the transaction and counts its payment methods, in one round trip. */
export async function lockCustomerCountingCards(db: Queryable, accountId: number, customerId: number): Promise<{ id: number; paymentMethodCount: number } | undefined> {
  if (!isStorableId(customerId)) return undefined;
  const row = (await customerLockedWithCardCount(db, accountId, customerId))[0];
  return row ? { id: row.id, paymentMethodCount: Number(row.paymentMethodCount ?? 0) } : undefined;
}

export async function insertPaymentMethod(db: Queryable, row: Insertable<PaymentMethodsTable>): Promise<PaymentMethodRow> {
  return db.insertInto('paymentMethods').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updatePaymentMethodRow(db: Queryable, id: number, row: Updateable<PaymentMethodsTable>): Promise<PaymentMethodRow> {
  return db.updateTable('paymentMethods').set(row).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** The newest remaining method, to become the default when the default goes. */
export async function newestPaymentMethod(db: Queryable, customerId: number): Promise<PaymentMethodRow | undefined> {
  return db.selectFrom('paymentMethods').selectAll().where('customerId', '=', customerId).where('removedAt', 'is', null).orderBy('id', 'desc').limit(1).executeTakeFirst();
}
