import type { InsertObject, Insertable, QueryCreator, Selectable, Updateable } from 'kysely';
import type { Queryable } from '../db/database.js';
import { reusableQuery } from '../db/reusable-query.js';
import { lockCustomer } from '../customers/repository.js';
import { isStorableId } from '../db/ids.js';
import type { Database, PaymentMethodsTable } from '../db/schema.js';

export type PaymentMethodRow = Selectable<PaymentMethodsTable>;

export function selectPaymentMethods(db: Queryable, accountId: number) {
  return db
    .selectFrom('paymentMethods')
    .selectAll('paymentMethods')
    .where('paymentMethods.accountId', '=', accountId)
    .where('paymentMethods.removedAt', 'is', null);
}

export async function findPaymentMethod(db: Queryable, accountId: number, id: number): Promise<PaymentMethodRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return selectPaymentMethods(db, accountId).where('paymentMethods.id', '=', id).executeTakeFirst();
}

export async function findDefaultPaymentMethod(db: Queryable, customerId: number): Promise<PaymentMethodRow | undefined> {
  return db
    .selectFrom('paymentMethods')
    .selectAll()
    .where('customerId', '=', customerId)
    .where('removedAt', 'is', null)
    .where('isDefault', '=', true)
    .executeTakeFirst();
}

const activeCardCount = reusableQuery((db: Queryable, customerId: number) =>
  db
    .selectFrom('paymentMethods')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('customerId', '=', customerId)
    .where('removedAt', 'is', null),
);

/** Whether the customer has a card (not removed); the first card becomes the default. */
export async function hasActiveCard(db: Queryable, customerId: number): Promise<boolean> {
  const [row] = await activeCardCount(db, customerId);
  return Number(row?.n ?? 0) > 0;
}

/**
 * Locks the customer row for the transaction and counts its payment methods. Two statements: a
 * statement's snapshot is taken before it waits for the lock, so a count read in the locking
 * statement would miss the card that the previous holder of the lock committed (two first
 * cards added at once would both become the default).
 */
export async function lockCustomerCountingCards(
  db: Queryable,
  accountId: number,
  customerId: number,
): Promise<{ id: number; paymentMethodCount: number } | undefined> {
  const locked = await lockCustomer(db, accountId, customerId);
  if (!locked) return undefined;
  const [row] = await activeCardCount(db, customerId);
  return { id: locked.id, paymentMethodCount: Number(row?.n ?? 0) };
}

export async function insertPaymentMethod(db: Queryable, row: Insertable<PaymentMethodsTable>): Promise<PaymentMethodRow> {
  return db.insertInto('paymentMethods').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updatePaymentMethodRow(db: Queryable, id: number, row: Updateable<PaymentMethodsTable>): Promise<PaymentMethodRow> {
  return db.updateTable('paymentMethods').set(row).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** The newest remaining method, to become the default when the default goes. */
export async function newestPaymentMethod(db: Queryable, customerId: number): Promise<PaymentMethodRow | undefined> {
  return db
    .selectFrom('paymentMethods')
    .selectAll()
    .where('customerId', '=', customerId)
    .where('removedAt', 'is', null)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Marks a card's expiry notice as given; false when another instance did it first. */
export async function markExpiryNotified(db: Queryable, paymentMethodId: number, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('paymentMethods')
    .set({ expiryNotifiedAt: now })
    .where('id', '=', paymentMethodId)
    .where('expiryNotifiedAt', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The customer's default card is no longer the default (before another becomes it: the partial unique index allows one). */
export async function clearDefaultCard(db: Queryable, customerId: number): Promise<void> {
  await db
    .updateTable('paymentMethods')
    .set({ isDefault: false })
    .where('customerId', '=', customerId)
    .where('isDefault', '=', true)
    .execute();
}

/** Moves the default flag to one of the customer's cards: the old default's cleared first (the partial unique index keeps a single default). */
export async function makeDefaultCard(db: Queryable, customerId: number, paymentMethodId: number, now: Date): Promise<void> {
  await clearDefaultCard(db, customerId);
  await db.updateTable('paymentMethods').set({ isDefault: true, modifiedAt: now }).where('id', '=', paymentMethodId).execute();
}

/** A card's insert as a piece of another folder's combined statement (a first payment stores its card in the same statement). */
export function paymentMethodInsert(qc: QueryCreator<Database>, row: InsertObject<Database, 'paymentMethods'>) {
  return qc.insertInto('paymentMethods').values(row);
}
