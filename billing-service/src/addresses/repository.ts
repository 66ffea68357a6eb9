import type { InsertObject, Insertable, QueryCreator, Selectable, Updateable } from 'kysely';
import type { Queryable } from '../db/database.js';
import { isStorableId } from '../db/ids.js';
import type { AddressesTable, Database } from '../db/schema.js';

export type AddressRow = Selectable<AddressesTable>;

export async function findAddress(db: Queryable, accountId: number, id: number): Promise<AddressRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return db.selectFrom('addresses').selectAll().where('accountId', '=', accountId).where('id', '=', id).executeTakeFirst();
}

export async function findCustomerAddresses(db: Queryable, customerId: number): Promise<AddressRow[]> {
  return db.selectFrom('addresses').selectAll().where('customerId', '=', customerId).orderBy('addressType').execute();
}

export async function findAddressOfType(db: Queryable, customerId: number, addressType: string): Promise<AddressRow | undefined> {
  return db
    .selectFrom('addresses')
    .selectAll()
    .where('customerId', '=', customerId)
    .where('addressType', '=', addressType)
    .executeTakeFirst();
}

export async function insertAddressRow(db: Queryable, row: Insertable<AddressesTable>): Promise<AddressRow> {
  return db.insertInto('addresses').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateAddressRow(db: Queryable, id: number, row: Updateable<AddressesTable>): Promise<AddressRow> {
  return db.updateTable('addresses').set(row).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function findAddressPreferences(db: Queryable, customerId: number) {
  return db.selectFrom('customerAddressPreferences').selectAll().where('customerId', '=', customerId).executeTakeFirst();
}

/** Every customer has a preferences row (created with it); upsert keeps that true for older rows too. */
export async function saveAddressPreferences(
  db: Queryable,
  row: { customerId: number; contactName: string | null; shippingInstructions: string | null; useBillingAddressAsShippingAddress: boolean },
) {
  await db
    .insertInto('customerAddressPreferences')
    .values(row)
    .onConflict((oc) =>
      oc.column('customerId').doUpdateSet({
        contactName: row.contactName,
        shippingInstructions: row.shippingInstructions,
        useBillingAddressAsShippingAddress: row.useBillingAddressAsShippingAddress,
      }),
    )
    .execute();
}

/** Unique (customer, address type) violation from either driver. */
export function isSecondAddressOfType(error: unknown): boolean {
  const e = error as { code?: string; constraint?: string; message?: string };
  return e?.code === '23505' && /addresses_customer_id_address_type/.test(`${e.constraint ?? ''} ${e.message ?? ''}`);
}

/** The addresses of a new customer, as a piece of the customer creation's one statement (customers/repository.ts). */
export function addressesInsert(qc: QueryCreator<Database>, rows: Array<InsertObject<Database, 'addresses'>>) {
  return qc.insertInto('addresses').values(rows);
}

/** A new customer's address preferences, as a piece of the customer creation's one statement (customers/repository.ts). */
export function addressPreferenceInsert(qc: QueryCreator<Database>, rows: Array<InsertObject<Database, 'customerAddressPreferences'>>) {
  return qc.insertInto('customerAddressPreferences').values(rows);
}
