import { sql } from 'kysely';
import { createAccount } from '../src/accounts/service.js';
import type { Catalog } from '../src/catalog/schema.js';
import type { CustomerResponse } from '../src/customers/schemas.js';
import type { Db } from '../src/db/database.js';

/** Accounts, seed data, request bodies and URLs the benchmark uses. */

export const SEEDED_CUSTOMERS = 100_000;
/** Far above anything a run sends, still a PostgreSQL integer. */
export const BENCH_RATE_LIMIT = 2_000_000_000;

export interface BenchAccount {
  accountId: number;
  apiKey: string;
  authorization: string;
  /** For the card-capture host. */
  publicApiKey: string;
}

/** A fresh account whose minute and day limits are raised out of the way, so 429s do not distort the figures. */
export async function createBenchAccount(db: Db, catalog: Catalog): Promise<BenchAccount> {
  const created = await createAccount(db, catalog);
  await db
    .updateTable('accounts')
    .set({ rateLimitPerMinute: BENCH_RATE_LIMIT, rateLimitPerDay: BENCH_RATE_LIMIT })
    .where('id', '=', created.account.id)
    .execute();
  return {
    accountId: created.account.id,
    apiKey: created.apiKey,
    authorization: `Basic ${created.apiKey}`,
    publicApiKey: created.publicApiKey,
  };
}

/**
 * Inserts `count` customers for the account in one statement, with varied
 * names (360 last names, 1 in 6 starting with S), statuses (20% Draft, 50%
 * Active, 10% Hold, 10% Suspended, 10% Cancelled) and creation times (one every
 * ten minutes from 2024-01-01), then vacuums and analyzes the table. Same SQL on PostgreSQL and PGlite.
 * `first` numbers the first new customer: the growth section adds customers
 * first..first+count-1 to those already seeded, continuing the same pattern.
 * Returns the elapsed milliseconds.
 */
export async function seedCustomers(db: Db, accountId: number, count = SEEDED_CUSTOMERS, first = 1): Promise<number> {
  const started = performance.now();
  await sql`
    insert into customers (
      account_id, title, first_name, last_name, company_name, primary_email, primary_phone, reference,
      status, customer_account_status, currency, erp_customer_type, lifetime_value,
      created_at, modified_at, status_at, account_status_at)
    select ${accountId},
      (array['Mr', 'Mrs', 'Ms', 'Dr', null])[1 + (h % 5)::int],
      (array['James', 'Mary', 'Robert', 'Patricia', 'John', 'Jennifer', 'Michael', 'Linda', 'David', 'Elizabeth',
             'William', 'Barbara', 'Richard', 'Susan', 'Joseph', 'Jessica', 'Thomas', 'Sarah', 'Charles', 'Karen'])[1 + (h / 5 % 20)::int],
      (array['Sm', 'Sch', 'St', 'Sa', 'Br', 'Ma', 'Ko', 'Na', 'Ga', 'Ro', 'Jo', 'Wi',
             'Le', 'Mu', 'Ha', 'Pe', 'Th', 'Cl', 'Da', 'Fe', 'Ki', 'Lo', 'Ba', 'Ch'])[1 + (h / 100 % 24)::int]
        || (array['ith', 'mitt', 'ewart', 'nders', 'own', 'rtin', 'walski', 'kamura', 'rcia', 'driguez',
                  'hnson', 'lson', 'wis', 'eller', 'nsen'])[1 + (h / 2400 % 15)::int],
      case when h % 10 = 0 then 'Company ' || i end,
      'customer' || i || '@example.com',
      '+1 555 ' || lpad((i % 10000)::text, 4, '0'),
      'REF-' || i,
      (array['Draft', 'Draft', 'Active', 'Active', 'Active', 'Active', 'Active', 'Hold', 'Suspended', 'Cancelled'])[1 + (h / 36000 % 10)::int],
      'Good',
      'USD',
      case when h % 10 = 0 then 'Company' else 'Individual' end,
      0,
      created, created, created, created
    from (
      select i,
             (i::bigint * 2654435761) % 4294967291 as h,
             timestamptz '2024-01-01 00:00:00+00' + i * interval '10 minutes' + ((i::bigint * 7919) % 600) * interval '1 second' as created
        from generate_series(${first}::int, ${first + count - 1}::int) as i
    ) as s
  `.execute(db);
  // vacuumed as well: the state autovacuum leaves a bulk-loaded table in (visibility map set, so counts can read the index alone)
  await sql`vacuum analyze customers`.execute(db);
  return performance.now() - started;
}

export async function customerIdRange(db: Db, accountId: number): Promise<{ min: number; max: number; count: number }> {
  const row = await db
    .selectFrom('customers')
    .select((eb) => [eb.fn.min<number>('id').as('min'), eb.fn.max<number>('id').as('max'), eb.fn.countAll<number>().as('count')])
    .where('accountId', '=', accountId)
    .executeTakeFirstOrThrow();
  return { min: Number(row.min), max: Number(row.max), count: Number(row.count) };
}

/** A random id in [min, max]: the seeded ids are contiguous. */
export function randomIdIn(range: { min: number; max: number }): number {
  return range.min + Math.floor(Math.random() * (range.max - range.min + 1));
}

/** The two list pages of target 4 (raw `query`: its `:`, `;`, `,` and `|` must not be percent-encoded). */
export const LIST_QUERIES = [
  {
    label: 'list 1: LastName:S*;Status:Draft,Active, sorted by LastName, page 3 of 100',
    path: '/v1/customers?query=LastName:S*;Status:Draft,Active&sortOrder=Ascending&sortExpression=LastName&pageSize=100&pageNumber=3',
  },
  {
    label: 'list 2: CreatedTimestamp:2024-06-01|2024-09-01;Status:Active, sorted by CreatedTimestamp desc, page 3 of 100',
    path: '/v1/customers?query=CreatedTimestamp:2024-06-01|2024-09-01;Status:Active&sortOrder=Descending&sortExpression=CreatedTimestamp&pageSize=100&pageNumber=3',
  },
] as const;

/** The POST /v1/customers body: a typical customer with a reference, a sales tracking code, acquisition and a billing address. */
export const NEW_CUSTOMER_BODY = {
  title: 'Ms',
  firstName: 'Ada',
  lastName: 'Lovelace',
  companyName: 'Analytical Engines Ltd',
  primaryEmail: 'ada@example.com',
  primaryPhone: '+1 555 0100',
  reference: 'bench',
  currency: 'USD',
  customerReference: { reference1: 'first', reference2: 'second', salesTrackingCodes: [{ type: 'Region', code: 'EAST' }] },
  customerAcquisition: { source: 'newsletter', medium: 'email', campaign: 'spring' },
  billing: { line1: '1 Main Street', city: 'Springfield', postalZip: '62701', country: 'US', state: 'IL' },
  addressPreference: { contactName: 'Ada Lovelace' },
};

/** POST /v1/customeractivation (not a preview): the customer, its Draft subscriptions, the first invoice posted. */
export function activationBody(customerId: number): string {
  return JSON.stringify({
    customerId,
    activateAllSubscriptions: true,
    activateAllDraftPurchases: false,
    temporarilyDisableAutoPost: false,
  });
}

/** What POST /api/paymentsv2 collects with the new card. */
export const CAPTURE_COLLECTION_AMOUNT = '10.00';

/**
 * A POST /api/paymentsv2 JSON body that succeeds: the Visa test card, the risk
 * fields the built-in processing needs, a collection, and a CAPTCHA token never
 * used before (every token works once).
 */
export function captureBody(publicApiKey: string, customerId: number, recaptcha: string): string {
  return JSON.stringify({
    customerId,
    publicApiKey,
    cardNumber: '4242424242424242',
    firstName: 'Ada',
    lastName: 'Lovelace',
    expirationMonth: 12,
    expirationYear: 30,
    cvv: '123',
    riskToken: 'rt_bench',
    clientIp: '203.0.113.7',
    email: 'ada@example.com',
    recaptcha,
    paymentCollectOptions: { collectionAmount: CAPTURE_COLLECTION_AMOUNT },
  });
}

/** What the bare Fastify baseline returns: an object shaped and sized like a customer response. */
export const SAMPLE_CUSTOMER: CustomerResponse = {
  id: 48213,
  uri: 'http://127.0.0.1/v1/customers/48213',
  title: 'Mrs',
  firstName: 'Patricia',
  middleName: null,
  lastName: 'Schnsen',
  companyName: null,
  suffix: null,
  primaryEmail: 'customer48213@example.com',
  primaryPhone: '+1 555 8213',
  secondaryEmail: null,
  secondaryPhone: null,
  reference: 'REF-48213',
  status: 'Active',
  customerAccountStatus: 'Good',
  currency: 'USD',
  customerReference: {
    reference1: null,
    reference2: null,
    reference3: null,
    salesTrackingCodes: [],
    id: 48213,
    uri: 'http://127.0.0.1/v1/customers/48213/customerReference',
  },
  customerAcquisition: {
    adContent: null,
    campaign: null,
    keyword: null,
    landingPage: null,
    medium: null,
    source: null,
    id: 48213,
    uri: 'http://127.0.0.1/v1/customers/48213/customerAcquisition',
  },
  monthlyRecurringRevenue: 0,
  netMonthlyRecurringRevenue: 0,
  crmId: null,
  crmAccountType: null,
  crmSynchStatus: 'Disabled',
  erpId: null,
  erpSynchStatus: 'Disabled',
  erpCustomerType: 'Individual',
  portalUserName: null,
  language: 'en',
  parentId: null,
  accountingLatchType: null,
  accountingId: null,
  accountingSyncToken: null,
  marketingId: null,
  createdTimestamp: '2024-11-30T21:33:24.000Z',
  modifiedTimestamp: '2024-11-30T21:33:24.000Z',
};
