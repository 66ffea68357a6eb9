import { sql, type InsertObject, type Insertable, type QueryCreator, type Selectable } from 'kysely';
import type { Queryable } from '../db/database.js';
import { reusableQuery } from '../db/reusable-query.js';
import type { CustomerBillingPeriodConfigurationsTable, CustomerBillingSettingsTable, Database } from '../db/schema.js';

export type BillingSettingRow = Selectable<CustomerBillingSettingsTable>;
export type BillingPeriodRow = Selectable<CustomerBillingPeriodConfigurationsTable>;

type TaxAddress = { countryId: number | null; stateId: number | null };

/**
 * Everything billing reads about a customer besides its subscriptions, from `customers as c` (the
 * caller adds the where, and may add columns: an activation reads its subscriptions alongside).
 */
export function selectBillingInputs(db: Queryable) {
  return db
    .selectFrom('customers as c')
    .leftJoin('customerBillingSettings as s', 's.customerId', 'c.id')
    .selectAll('s')
    .select([
      sql<Array<Omit<BillingPeriodRow, 'customerId'>>>`coalesce((
        select json_agg(json_build_object('interval', p.interval, 'type', p.type, 'rule', p.rule, 'day', p.day, 'month', p.month) order by p.interval)
        from customer_billing_period_configurations p where p.customer_id = c.id), '[]'::json)`.as('billingPeriodRows'),
      sql<TaxAddress | null>`(select json_build_object('countryId', a.country_id, 'stateId', a.state_id)
        from addresses a where a.customer_id = c.id and a.address_type = 'Billing' order by a.id limit 1)`.as('billingTaxAddress'),
      sql<TaxAddress | null>`(select json_build_object('countryId', a.country_id, 'stateId', a.state_id)
        from addresses a where a.customer_id = c.id and a.address_type = 'Shipping' order by a.id limit 1)`.as('shippingTaxAddress'),
    ]);
}

// Compiled once (see reusableQuery).
const billingInputsById = reusableQuery((db: Queryable, customerId: number) => selectBillingInputs(db).where('c.id', '=', customerId));

type BillingInputsRow = Awaited<ReturnType<typeof billingInputsById>>[number];

/**
 * The billing setting row, the billing period configurations and the places of the billing and
 * shipping addresses (what tax rates depend on), in one round trip: what a billing run or an
 * activation (and its preview) reads before computing invoices.
 */
export async function findBillingInputs(db: Queryable, customerId: number) {
  return billingInputsOf((await billingInputsById(db, customerId))[0], customerId);
}

/** The parts of a row of selectBillingInputs (undefined: no such customer). */
export function billingInputsOf(row: BillingInputsRow | undefined, customerId: number) {
  if (!row) return { setting: undefined, periods: [], billingAddress: undefined, shippingAddress: undefined };
  const { billingPeriodRows, billingTaxAddress, shippingTaxAddress, ...setting } = row;
  return {
    // no setting row: every column of the join is null
    setting: setting.customerId === null ? undefined : (setting as BillingSettingRow),
    periods: billingPeriodRows.map((p) => ({ ...p, customerId })),
    billingAddress: billingTaxAddress ?? undefined,
    shippingAddress: shippingTaxAddress ?? undefined,
  };
}

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
    await db
      .insertInto('customerBillingPeriodConfigurations')
      .values(rows.map((r) => ({ customerId, ...r })))
      .execute();
  }
}

/** The customer's payment methods on file (not removed): whether any, and which is the default. */
export async function paymentMethodsOnFile(
  db: Queryable,
  customerId: number,
): Promise<{ any: boolean; defaultId: number | null; ids: number[] }> {
  const rows = await db
    .selectFrom('paymentMethods')
    .select(['id', 'isDefault'])
    .where('customerId', '=', customerId)
    .where('removedAt', 'is', null)
    .execute();
  return { any: rows.length > 0, defaultId: rows.find((r) => r.isDefault)?.id ?? null, ids: rows.map((r) => r.id) };
}

/** Automatic collection off: the customer's last card was removed, so there is nothing to collect with. */
export async function turnOffAutoCollect(db: Queryable, customerId: number): Promise<void> {
  await db
    .updateTable('customerBillingSettings')
    .set({ autoCollect: false })
    .where('customerId', '=', customerId)
    .where('autoCollect', '=', true)
    .execute();
}

/** A new customer's billing setting, as a piece of the customer creation's one statement (customers/repository.ts). */
export function billingSettingInsert(qc: QueryCreator<Database>, rows: Array<InsertObject<Database, 'customerBillingSettings'>>) {
  return qc.insertInto('customerBillingSettings').values(rows);
}

/** A new customer's billing period configurations, as a piece of the customer creation's one statement (customers/repository.ts). */
export function billingPeriodConfigurationsInsert(
  qc: QueryCreator<Database>,
  rows: Array<InsertObject<Database, 'customerBillingPeriodConfigurations'>>,
) {
  return qc.insertInto('customerBillingPeriodConfigurations').values(rows);
}
