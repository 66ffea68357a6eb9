import type { Insertable, Selectable } from 'kysely';
import type { Queryable } from '../db/database.js';
import type { CustomerBillingPeriodConfigurationsTable, CustomerBillingSettingsTable } from '../db/schema.js';

export type BillingSettingRow = Selectable<CustomerBillingSettingsTable>;
export type BillingPeriodRow = Selectable<CustomerBillingPeriodConfigurationsTable>;

export async function findBillingSetting(db: Queryable, customerId: number): Promise<BillingSettingRow | undefined> {
  return db.selectFrom('customerBillingSettings').selectAll().where('customerId', '=', customerId).executeTakeFirst();
}

export async function findBillingPeriods(db: Queryable, customerId: number): Promise<BillingPeriodRow[]> {
  return db
    .selectFrom('customerBillingPeriodConfigurations')
    .selectAll()
    .where('customerId', '=', customerId)
    .orderBy('interval')
    .execute();
}

/** Full replacement of the setting row (one per customer, created with it). */
export async function saveBillingSetting(db: Queryable, row: Insertable<CustomerBillingSettingsTable>) {
  const { customerId, ...columns } = row;
  await db
    .insertInto('customerBillingSettings')
    .values(row)
    .onConflict((oc) => oc.column('customerId').doUpdateSet(columns))
    .execute();
}

export async function replaceBillingPeriods(
  db: Queryable,
  customerId: number,
  rows: Array<Omit<Insertable<CustomerBillingPeriodConfigurationsTable>, 'customerId'>>,
) {
  await db.deleteFrom('customerBillingPeriodConfigurations').where('customerId', '=', customerId).execute();
  if (rows.length > 0) {
    await db.insertInto('customerBillingPeriodConfigurations').values(rows.map((r) => ({ customerId, ...r }))).execute();
  }
}

/** The customer's payment methods on file (not removed): whether any, and which is the default. */
export async function paymentMethodsOnFile(db: Queryable, customerId: number): Promise<{ any: boolean; defaultId: number | null; ids: number[] }> {
  const rows = await db
    .selectFrom('paymentMethods')
    .select(['id', 'isDefault'])
    .where('customerId', '=', customerId)
    .where('removedAt', 'is', null)
    .execute();
  return { any: rows.length > 0, defaultId: rows.find((r) => r.isDefault)?.id ?? null, ids: rows.map((r) => r.id) };
}

/** Moves the default flag to one method; the partial unique index keeps a single default. */
export async function setDefaultPaymentMethod(db: Queryable, customerId: number, paymentMethodId: number, now: Date) {
  await db.updateTable('paymentMethods').set({ isDefault: false }).where('customerId', '=', customerId).where('isDefault', '=', true).execute();
  await db.updateTable('paymentMethods').set({ isDefault: true, modifiedAt: now }).where('id', '=', paymentMethodId).execute();
}
