import { readOncePerTransaction, rememberInTransaction } from '../db/transaction-cache.js';
import { sql, type Compilable, type InsertObject, type Insertable, type QueryCreator, type RawBuilder, type Updateable } from 'kysely';
import type { Queryable } from '../db/database.js';
import { isStorableId } from '../db/ids.js';
import { reusableQuery, reusableWriteByShape } from '../db/reusable-query.js';
import { addressesInsert, addressPreferenceInsert } from '../addresses/repository.js';
import { auditInsert } from '../audit/audit-log.js';
import { billingPeriodConfigurationsInsert, billingSettingInsert } from '../billing-settings/repository.js';
import { enabledEndpointsJson, type EnabledEndpoint } from '../outbox/webhook-repository.js';
import { customerAccountStatusSql } from '../ledger/account-status.js';
import type { RevenueProductRow, RevenueSubscription } from '../plans/recurring-revenue.js';
import type {
  AddressesTable,
  AuditLogTable,
  Database,
  CustomerAcquisitionsTable,
  CustomerBillingPeriodConfigurationsTable,
  CustomerAddressPreferencesTable,
  CustomerBillingSettingsTable,
  CustomerReferencesTable,
  CustomerRow,
  CustomerSalesTrackingCodesTable,
  CustomersTable,
} from '../db/schema.js';

export interface SalesTrackingCodeRow {
  position: number;
  type: string;
  code: string;
  name: string | null;
}

/** A customer with the rows that travel with it in every response. */
export interface CustomerRecord extends CustomerRow {
  reference1: string | null;
  reference2: string | null;
  reference3: string | null;
  adContent: string | null;
  campaign: string | null;
  keyword: string | null;
  landingPage: string | null;
  medium: string | null;
  source: string | null;
  salesTrackingCodes: SalesTrackingCodeRow[];
  /** Whether recurring revenue needs computing (most reads find none and skip that query). */
  hasActiveSubscriptions: boolean;
  /** Read with the customer (findCustomerRecord): what its recurring revenue is computed from, without another query. */
  activeSubscriptions?: RevenueSubscription[];
}

/**
 * The customer query every read uses (one, list): one round trip with the
 * reference, acquisition and sales tracking codes joined in.
 */
export function selectCustomerRecords(db: Queryable, accountId: number, now: Date) {
  return db
    .selectFrom('customers')
    .leftJoin('customerReferences', 'customerReferences.customerId', 'customers.id')
    .leftJoin('customerAcquisitions', 'customerAcquisitions.customerId', 'customers.id')
    .selectAll('customers')
    .select([
      customerAccountStatusSql(now).as('customerAccountStatus'),
      'customerReferences.reference1',
      'customerReferences.reference2',
      'customerReferences.reference3',
      'customerAcquisitions.adContent',
      'customerAcquisitions.campaign',
      'customerAcquisitions.keyword',
      'customerAcquisitions.landingPage',
      'customerAcquisitions.medium',
      'customerAcquisitions.source',
      sql<SalesTrackingCodeRow[]>`coalesce((
        select json_agg(json_build_object('position', s.position, 'type', s.type, 'code', s.code, 'name', s.name) order by s.position)
        from customer_sales_tracking_codes s where s.customer_id = customers.id), '[]'::json)`.as('salesTrackingCodes'),
      sql<boolean>`exists (select 1 from subscriptions a where a.customer_id = customers.id and a.status = 'Active')`.as(
        'hasActiveSubscriptions',
      ),
    ])
    .where('customers.accountId', '=', accountId);
}

const customerCount = reusableQuery((db: Queryable, accountId: number) =>
  db
    .selectFrom('accountRowCounts')
    .select(sql<string>`coalesce(sum(row_count), 0)`.as('count'))
    .where('accountId', '=', accountId)
    .where('tableName', '=', 'customers'),
);

/** The account's customers, from the counts migration 0019's triggers keep in each writing transaction. */
export async function countCustomers(db: Queryable, accountId: number): Promise<number> {
  // a sum without rows is one row of 0 (coalesce), never none
  return Number((await customerCount(db, accountId))[0]?.count ?? 0);
}

// One customer's read also brings its Active subscriptions' recurring revenue inputs: one round trip, not two more.
const customerRecordById = reusableQuery((db: Queryable, accountId: number, id: number, now: Date) =>
  selectCustomerRecords(db, accountId, now)
    .select(activeSubscriptionsJson(sql<number>`customers.id`).as('activeSubscriptions'))
    .where('customers.id', '=', id),
);

/** One customer as the API shows it; `now` (the account's time) decides PoorStanding. */
export async function findCustomerRecord(db: Queryable, accountId: number, id: number, now: Date): Promise<CustomerRecord | undefined> {
  if (!isStorableId(id)) return undefined;
  return (await customerRecordById(db, accountId, id, now))[0];
}

const customerRowById = reusableQuery((db: Queryable, accountId: number, id: number) =>
  db.selectFrom('customers').selectAll().where('accountId', '=', accountId).where('id', '=', id),
);

/** The customer row alone, without locking it (checks made before a transaction). */
export async function findCustomerRow(db: Queryable, accountId: number, id: number): Promise<CustomerRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return (await customerRowById(db, accountId, id))[0];
}

const customerRowKey = (accountId: number, id: number) => `customer ${accountId} ${id}`;

/**
 * findCustomerRow read once per transaction or read scope (db/transaction-cache.ts): the steps of one
 * capture (its capture token, its amount, its card) share the row the first of them read.
 */
export function findCustomerRowOnce(db: Queryable, accountId: number, id: number): Promise<CustomerRow | undefined> {
  return readOncePerTransaction(db, customerRowKey(accountId, id), () => findCustomerRow(db, accountId, id));
}

/** A customer row a statement of this transaction or read scope already returned: findCustomerRowOnce gets it without a read. */
export function rememberCustomerRow(db: Queryable, row: CustomerRow): void {
  rememberInTransaction(db, customerRowKey(row.accountId, row.id), row);
}

/** Locks the customer row for the rest of the transaction (read-modify-write). */
/** The customer lock lives below the domains (db/customer-lock.ts); re-exported for the domains above. */
export { customerExists, lockCustomer, lockCustomers } from '../db/customer-lock.js';

export async function updateCustomerRow(db: Queryable, accountId: number, id: number, row: Updateable<CustomersTable>) {
  await db.updateTable('customers').set(row).where('accountId', '=', accountId).where('id', '=', id).execute();
}

/** Replaces the reference row and its sales tracking codes (PUT semantics: omitted means cleared). */
export async function replaceCustomerReference(
  db: Queryable,
  customerId: number,
  reference: Omit<CustomerReferencesTable, 'customerId'> | null,
  codes: Array<Omit<CustomerSalesTrackingCodesTable, 'customerId'>>,
) {
  await db.deleteFrom('customerSalesTrackingCodes').where('customerId', '=', customerId).execute();
  await db.deleteFrom('customerReferences').where('customerId', '=', customerId).execute();
  if (reference)
    await db
      .insertInto('customerReferences')
      .values({ customerId, ...reference })
      .execute();
  if (codes.length > 0) {
    await db
      .insertInto('customerSalesTrackingCodes')
      .values(codes.map((c) => ({ customerId, ...c })))
      .execute();
  }
}

export async function replaceCustomerAcquisition(
  db: Queryable,
  customerId: number,
  acquisition: Omit<CustomerAcquisitionsTable, 'customerId'> | null,
) {
  await db.deleteFrom('customerAcquisitions').where('customerId', '=', customerId).execute();
  if (acquisition)
    await db
      .insertInto('customerAcquisitions')
      .values({ customerId, ...acquisition })
      .execute();
}

type Row<T> = Omit<Insertable<T>, 'customerId'>;

/** Everything a new customer is created with: the customer row and the rows that hang off it. */
export type NewCustomerRows = {
  customer: Insertable<CustomersTable>;
  reference: Omit<CustomerReferencesTable, 'customerId'> | null;
  salesTrackingCodes: Array<Omit<CustomerSalesTrackingCodesTable, 'customerId'>>;
  acquisition: Omit<CustomerAcquisitionsTable, 'customerId'> | null;
  billingSetting: Row<CustomerBillingSettingsTable>;
  billingPeriodConfigurations: Array<Row<CustomerBillingPeriodConfigurationsTable>>;
  addressPreference: Row<CustomerAddressPreferencesTable>;
  addresses: Array<Row<AddressesTable>>;
  /** The audit entry of the creation; its entity id is the new customer's. */
  audit: Omit<Insertable<AuditLogTable>, 'entityId'>;
};

/** What `insertNewCustomer` gives back: the stored customer, and the account's webhook endpoints read in the same statement. */
export interface NewCustomer {
  record: CustomerRecord;
  enabledEndpoints: EnabledEndpoint[];
}

type NewCustomerStatementRow = Omit<CustomerRecord, 'salesTrackingCodes'> & {
  salesTrackingCodes: SalesTrackingCodeRow[];
  enabledEndpoints: EnabledEndpoint[];
};

/**
 * The one statement of a customer creation: data-modifying CTEs insert the customer and every
 * row that goes with it, each child row taking the id the customer insert returns (the foreign
 * keys are checked at the end of the statement, when the customer row exists). Its result is
 * the customer as `selectCustomerRecords` reads it (a new customer has no invoice, so its
 * account status is the stored one, and no subscription), so no read follows the commit, plus
 * the webhook endpoints. Compiled once per shape of the body (which parts, how many rows).
 */
const newCustomerStatement = reusableWriteByShape((db: Queryable, rows: NewCustomerRows) => {
  // the CTEs below (CamelCasePlugin writes newCustomer as new_customer)
  const customerId = sql<number>`(select id from new_customer)`;
  type WithNewCustomer = QueryCreator<Database & { newCustomer: CustomerRow }>;
  let query = db.with('newCustomer', (qc) => qc.insertInto('customers').values(rows.customer).returningAll()) as unknown as WithNewCustomer;
  const present = new Set<string>();
  type Piece<T extends keyof Database & string> = (qc: QueryCreator<Database>, rows: Array<InsertObject<Database, T>>) => unknown;
  // Each part is inserted by its table's owner's piece (one writer per table).
  const add = <T extends keyof Database & string>(
    name: string,
    piece: Piece<T>,
    values: Array<InsertObject<Database, T>>,
    returning: string[] = [],
  ) => {
    // an absent part (no reference, no addresses) adds no CTE
    if (values.length === 0) return;
    present.add(name);
    query = query.with(name, (qc) => {
      const insert = piece(qc as unknown as QueryCreator<Database>, values) as { returning(columns: never): unknown };
      return (returning.length > 0 ? insert.returning(returning as never) : insert) as never;
    }) as unknown as WithNewCustomer;
  };
  // the customer's own tables
  const referencesInsert: Piece<'customerReferences'> = (qc, values) => qc.insertInto('customerReferences').values(values);
  const salesTrackingCodesInsert: Piece<'customerSalesTrackingCodes'> = (qc, values) =>
    qc.insertInto('customerSalesTrackingCodes').values(values);
  const acquisitionInsert: Piece<'customerAcquisitions'> = (qc, values) => qc.insertInto('customerAcquisitions').values(values);
  const { reference, acquisition } = rows;
  add('newBillingSetting', billingSettingInsert, [{ ...rows.billingSetting, customerId }]);
  add('newAddressPreference', addressPreferenceInsert, [{ ...rows.addressPreference, customerId }]);
  add('newAudit', auditInsert, [{ ...rows.audit, entityId: customerId }]);
  add('newReference', referencesInsert, reference ? [{ ...reference, customerId }] : [], ['reference1', 'reference2', 'reference3']);
  add(
    'newSalesTrackingCodes',
    salesTrackingCodesInsert,
    rows.salesTrackingCodes.map((code) => ({ ...code, customerId })),
    ['position', 'type', 'code', 'name'],
  );
  add('newAcquisition', acquisitionInsert, acquisition ? [{ ...acquisition, customerId }] : [], [
    'adContent',
    'campaign',
    'keyword',
    'landingPage',
    'medium',
    'source',
  ]);
  add(
    'newBillingPeriods',
    billingPeriodConfigurationsInsert,
    rows.billingPeriodConfigurations.map((period) => ({ ...period, customerId })),
  );
  add(
    'newAddresses',
    addressesInsert,
    rows.addresses.map((address) => ({ ...address, customerId })),
  );
  const from = (cte: string, column: string) =>
    (present.has(cte) ? sql`(select ${sql.ref(column)} from ${sql.table(cte)})` : sql`null::text`).as(column);
  const codes = present.has('newSalesTrackingCodes')
    ? sql<
        SalesTrackingCodeRow[]
      >`(select json_agg(json_build_object('position', s.position, 'type', s.type, 'code', s.code, 'name', s.name) order by s.position) from new_sales_tracking_codes s)`
    : sql<SalesTrackingCodeRow[]>`'[]'::json`;
  return query
    .selectFrom('newCustomer')
    .selectAll('newCustomer')
    .select([
      sql<string>`new_customer.customer_account_status`.as('customerAccountStatus'),
      ...['reference1', 'reference2', 'reference3'].map((c) => from('newReference', c)),
      ...['adContent', 'campaign', 'keyword', 'landingPage', 'medium', 'source'].map((c) => from('newAcquisition', c)),
      codes.as('salesTrackingCodes'),
      sql<boolean>`false`.as('hasActiveSubscriptions'),
      enabledEndpointsJson(sql<number>`new_customer.account_id`).as('enabledEndpoints'),
    ]) as unknown as Compilable<NewCustomerStatementRow>;
});

/** Inserts a new customer and every row that goes with it in one statement (see newCustomerStatement). */
export async function insertNewCustomer(db: Queryable, rows: NewCustomerRows): Promise<NewCustomer> {
  const [row] = await newCustomerStatement(db, rows);
  if (!row) throw new Error('the new customer statement returned no row (its INSERT … RETURNING always returns one)');
  const { enabledEndpoints, ...record } = row;
  return { record, enabledEndpoints };
}

/** Whether any customer of the account names this one as its parent. */
export async function hasChildren(db: Queryable, accountId: number, id: number): Promise<boolean> {
  const row = await db
    .selectFrom('customers')
    .select('id')
    .where('accountId', '=', accountId)
    .where('parentId', '=', id)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function customerDisplayName(db: Queryable, accountId: number, id: number): Promise<string | null> {
  const row = await db
    .selectFrom('customers')
    .select(['firstName', 'lastName', 'companyName'])
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return null;
  return row.companyName ?? ([row.firstName, row.lastName].filter(Boolean).join(' ') || null);
}

/** PostgreSQL unique violation on the portal user name index, from either driver. */
export function isPortalUserNameConflict(error: unknown): boolean {
  const e = error as { code?: string; constraint?: string; message?: string };
  return e?.code === '23505' && (e.constraint === 'customers_portal_user_name' || /customers_portal_user_name/.test(e.message ?? ''));
}

/** Draft invoices not yet posted (pending charges) and the earliest next period start of Active subscriptions. */
export async function pendingChargesAndNextBilling(
  db: Queryable,
  customerId: number,
): Promise<{ pendingCharges: string; nextBillingDate: string | null }> {
  const row = await db
    .selectNoFrom([
      sql<string>`coalesce((select sum(total) from invoices where customer_id = ${customerId} and status = 'Draft'), 0)`.as(
        'pendingCharges',
      ),
      sql<string | null>`(select min(next_period_start) from subscriptions where customer_id = ${customerId} and status = 'Active')`.as(
        'nextBillingDate',
      ),
    ])
    .executeTakeFirstOrThrow();
  return { pendingCharges: row.pendingCharges, nextBillingDate: row.nextBillingDate };
}

/*
 * Reads of a customer's Active subscriptions for recurring revenue (plans/recurring-revenue.ts): a
 * customer read shows its revenue, so these reads sit with the customer's (they write nothing).
 */

// The products of subscription `s` as JSON (numerics as text: exact).
const REVENUE_PRODUCTS = sql<RevenueProductRow[]>`coalesce((select json_agg(json_build_object('quantity', p.quantity::text,
  'catalogPrice', p.catalog_price::text, 'priceOverride', p.price_override::text, 'included', p.included, 'discountKind', p.discount_kind,
  'discountValue', p.discount_value::text) order by p.position) from subscription_products p where p.subscription_id = s.id), '[]'::json)`;

/**
 * The Active subscriptions of the customer whose id is `customerId` (a column of the read that adds
 * this one) as JSON, with what recurring revenue needs: a customer read computes it without another query.
 */
export function activeSubscriptionsJson(customerId: RawBuilder<number>) {
  return sql<RevenueSubscription[]>`coalesce((select json_agg(json_build_object('customerId', s.customer_id, 'currency', s.currency,
    'interval', f.interval, 'numberOfIntervals', f.number_of_intervals, 'products', ${REVENUE_PRODUCTS}) order by s.id)
    from subscriptions s join plan_frequencies f on f.id = s.plan_frequency_id where s.customer_id = ${customerId} and s.status = 'Active'), '[]'::json)`;
}

// Every read of customers with an Active subscription computes their recurring revenue: compiled once (see reusableQuery).
const activeSubscriptionsWithProducts = reusableQuery((db: Queryable, accountId: number, customerIds: number[]) =>
  db
    .selectFrom('subscriptions as s')
    .innerJoin('planFrequencies as f', 'f.id', 's.planFrequencyId')
    .select(['s.id', 's.customerId', 's.currency', 'f.interval', 'f.numberOfIntervals', REVENUE_PRODUCTS.as('products')])
    .where('s.accountId', '=', accountId)
    .where('s.customerId', '=', sql<number>`any(${customerIds})`)
    .where('s.status', '=', 'Active')
    .orderBy('s.id'),
);

/** The customers' Active subscriptions with their frequency and products, in one round trip (for recurring revenue). */
export async function findActiveSubscriptionsWithProducts(db: Queryable, accountId: number, customerIds: number[]) {
  if (customerIds.length === 0) return [];
  return activeSubscriptionsWithProducts(db, accountId, customerIds);
}

/** A customer's new status, as a piece of the lifecycle's combined transition statement (lifecycle/transition-repository.ts). */
export function customerStatusUpdate(qc: QueryCreator<Database>, customer: { id: number; status: string; now: Date }) {
  return qc
    .updateTable('customers')
    .set({ status: customer.status, statusAt: customer.now, modifiedAt: customer.now })
    .where('id', '=', customer.id);
}
