/**
 * The growth section (BENCH_SCALE=1, not in the default run): how the cost of
 * the read paths grows with the data. One account on PostgreSQL grows to
 * 10,000, then 100,000, then 1,000,000 customers (BENCH_SCALE_SIZES to choose
 * others), each batch with subscriptions and invoices in proportion, all
 * inserted with set-based SQL (insert … select from generate_series). At each
 * size a server process is started on the data and measures, one request at a
 * time: the GET of a random customer, the two list pages and the activation
 * preview.
 */
import { sql } from 'kysely';
import type { Catalog } from '../../src/catalog/schema.js';
import { openDatabase, type Db } from '../../src/db/database.js';
import { LIST_QUERIES, createBenchAccount, customerIdRange, randomIdIn, seedCustomers, type BenchAccount } from '../fixtures.js';
import { cleanup, latencyRow, log, rotation, sequentialHttp, withServer } from '../harness.js';
import type { SequentialHttpResult } from '../load.js';
import type { RunningServer } from '../server-process.js';
import { poolMaker } from '../pools.js';
import { createFreshDatabase, type PostgresServer } from '../postgres.js';
import type { IdRange } from './get-customer.js';
import { integer, ms, seconds, table } from '../report.js';

const DEFAULT_SIZES = [10_000, 100_000, 1_000_000];
/** Seconds per measurement, one request at a time (after a 1 s warm-up). */
const MEASURE_SECONDS = 4;
/** The subscription every non-Draft seeded customer has: BASIC monthly (the catalogue's frequency 11). */
const SEEDED_PLAN_FREQUENCY = 11;
/** Invoices of every non-Draft seeded customer (each with its ledger entry, paid). */
const INVOICES_PER_CUSTOMER = 3;

export function growthSizes(): number[] {
  const given = process.env.BENCH_SCALE_SIZES?.split(',')
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);
  return given && given.length > 0 ? [...given].sort((a, b) => a - b) : DEFAULT_SIZES;
}

export interface GrowthRow {
  customers: number;
  subscriptions: number;
  invoices: number;
  seedMs: number;
  get: SequentialHttpResult;
  lists: SequentialHttpResult[];
  preview: SequentialHttpResult;
}

/**
 * Subscriptions, their product and invoices (each with its ledger entry) for the
 * account's customers with an id above `afterId`: every customer one BASIC
 * monthly subscription (Active for Active and Hold customers, Draft for Draft
 * ones, else the customer's status); every non-Draft customer three posted and
 * paid invoices of 10.00, one a month from its creation.
 */
async function seedSubscriptionsAndInvoices(db: Db, accountId: number, afterId: number) {
  await sql`
    insert into subscriptions (account_id, customer_id, plan_frequency_id, name, status, currency,
      activated_at, current_period_start, next_period_start, invoices_posted, created_at, modified_at)
    select c.account_id, c.id, ${SEEDED_PLAN_FREQUENCY}, 'BASIC monthly',
      case when c.status in ('Active', 'Hold') then 'Active' else c.status end, c.currency,
      case when c.status <> 'Draft' then c.created_at end,
      case when c.status <> 'Draft' then (c.created_at + interval '2 months')::date end,
      case when c.status <> 'Draft' then (c.created_at + interval '3 months')::date end,
      case when c.status <> 'Draft' then ${INVOICES_PER_CUSTOMER} else 0 end,
      c.created_at, c.created_at
    from customers c where c.account_id = ${accountId} and c.id > ${afterId}
  `.execute(db);
  await sql`
    insert into subscription_products (subscription_id, position, product_code, name, quantity, catalog_price, setup_fee)
    select s.id, 1, 'BASIC', 'Basic', 1, 10.00, 0
    from subscriptions s where s.account_id = ${accountId} and s.customer_id > ${afterId}
  `.execute(db);
  await sql`
    insert into invoices (account_id, customer_id, invoice_number, status, currency, terms, effective_at, posted_at, due_at,
      subtotal, total_discount, total_taxes, total, created_at)
    select c.account_id, c.id, c.id * ${INVOICES_PER_CUSTOMER} + k, 'Posted', c.currency, 'DueOnReceipt',
      c.created_at + k * interval '1 month', c.created_at + k * interval '1 month', c.created_at + k * interval '1 month',
      10.00, 0, 0, 10.00, c.created_at + k * interval '1 month'
    from customers c cross join generate_series(0, ${INVOICES_PER_CUSTOMER - 1}::int) as k
    where c.account_id = ${accountId} and c.id > ${afterId} and c.status <> 'Draft'
  `.execute(db);
  await sql`
    insert into ledger_entries (account_id, customer_id, entry_type, amount, open_amount, invoice_id, due_at, effective_at, created_at)
    select i.account_id, i.customer_id, 'invoice', i.total, 0, i.id, i.due_at, i.effective_at, i.created_at
    from invoices i where i.account_id = ${accountId} and i.customer_id > ${afterId}
  `.execute(db);
  await sql`update accounts set next_invoice_number = (select coalesce(max(invoice_number), 0) + 1 from invoices where account_id = ${accountId}) where id = ${accountId}`.execute(
    db,
  );
}

async function countOf(db: Db, table: 'subscriptions' | 'invoices', accountId: number): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('accountId', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The account that grows, and the customers of its previews (Draft, 3 Draft subscriptions), made once with the service functions, before the seed. */
async function growthAccount(databaseUrl: string, catalog: Catalog): Promise<{ account: BenchAccount; previewCustomers: number[] }> {
  const handle = await openDatabase({ databaseUrl, poolSize: 2 });
  try {
    const account = await createBenchAccount(handle.db, catalog);
    const previewCustomers = await (await poolMaker(handle.db, catalog, 2)).draftCustomers(account, 8);
    return { account, previewCustomers };
  } finally {
    await handle.close();
  }
}

type Batch = { seedMs: number; ids: IdRange; subscriptions: number; invoices: number };

/** Adds customers `seeded + 1` to `size`, with their subscriptions and invoices, then vacuums and counts. */
async function growTo(databaseUrl: string, accountId: number, seeded: number, size: number): Promise<Batch> {
  const added = size - seeded;
  log(`growth: adding ${integer(added)} customers (to ${integer(size)}) with subscriptions and invoices`);
  const seedHandle = await openDatabase({ databaseUrl, poolSize: 2 });
  try {
    const started = performance.now();
    // the batch's subscriptions and invoices go to its own customers (above every id so far, the previews' included)
    const before = (await customerIdRange(seedHandle.db, accountId)).max;
    await seedCustomers(seedHandle.db, accountId, added, seeded + 1);
    await seedSubscriptionsAndInvoices(seedHandle.db, accountId, before);
    await sql`vacuum analyze`.execute(seedHandle.db);
    const seedMs = performance.now() - started;
    const ids = await customerIdRange(seedHandle.db, accountId);
    const subscriptions = await countOf(seedHandle.db, 'subscriptions', accountId);
    const invoices = await countOf(seedHandle.db, 'invoices', accountId);
    log(
      `growth: ${integer(ids.count)} customers, ${integer(subscriptions)} subscriptions, ${integer(invoices)} invoices (seeded in ${seconds(seedMs)})`,
    );
    return { seedMs, ids, subscriptions, invoices };
  } finally {
    await seedHandle.close();
  }
}

/** What the reads at one size need: the server, its database, the account and the customers to ask for. */
interface Reads {
  app: RunningServer;
  databaseName: string;
  auth: { authorization: string };
  /** `at 10,000`: the size, for the labels. */
  at: string;
}

async function measureGet(reads: Reads, ids: IdRange): Promise<SequentialHttpResult> {
  const { app, databaseName, auth, at } = reads;
  const get = await sequentialHttp(
    `growth GET /v1/customers/{id} ${at}`,
    app,
    MEASURE_SECONDS,
    { path: () => `/v1/customers/${randomIdIn(ids)}`, headers: auth },
    databaseName,
  );
  latencyRow(
    `growth ${at}: GET /v1/customers/{id}, one at a time`,
    get,
    `random customer of ${integer(ids.count)}; non-2xx ${integer(get.non2xx)}`,
  );
  return get;
}

async function measureLists(reads: Reads): Promise<SequentialHttpResult[]> {
  const { app, databaseName, auth, at } = reads;
  const lists: SequentialHttpResult[] = [];
  for (const [i, query] of LIST_QUERIES.entries()) {
    const list = await sequentialHttp(
      `growth list ${i + 1} ${at}`,
      app,
      MEASURE_SECONDS,
      { path: query.path, headers: auth },
      databaseName,
    );
    latencyRow(
      `growth ${at}: list ${i + 1}, HTTP`,
      list,
      `X-Count ${integer(Number(list.lastHeaders['x-count']))} of ${integer(Number(list.lastHeaders['x-maxcount']))}; non-2xx ${integer(list.non2xx)}`,
    );
    lists.push(list);
  }
  return lists;
}

async function measurePreview(reads: Reads, previewCustomers: number[]): Promise<SequentialHttpResult> {
  const { app, databaseName, auth, at } = reads;
  const nextPreview = rotation(previewCustomers);
  const preview = await sequentialHttp(
    `growth activation preview ${at}`,
    app,
    MEASURE_SECONDS,
    {
      method: 'POST',
      path: '/v1/customeractivation?preview=true',
      body: () => JSON.stringify({ customerId: nextPreview() }),
      headers: { ...auth, 'content-type': 'application/json' },
    },
    databaseName,
  );
  latencyRow(
    `growth ${at}: activation preview (3 Draft subscriptions)`,
    preview,
    `8 customers in rotation; non-2xx ${integer(preview.non2xx)}`,
  );
  return preview;
}

/** Grows the account to each size in turn and measures the read paths at each. */
export async function benchGrowth(server: PostgresServer, catalog: Catalog): Promise<GrowthRow[]> {
  const database = await createFreshDatabase(server.url);
  cleanup.add('drop the growth database', () => database.drop());
  const rows: GrowthRow[] = [];
  const { account, previewCustomers } = await growthAccount(database.url, catalog);
  let seeded = 0;
  for (const size of growthSizes()) {
    const { seedMs, ids, subscriptions, invoices } = await growTo(database.url, account.accountId, seeded, size);
    seeded = size;
    const row = await withServer({ kind: 'app', database: { databaseUrl: database.url }, rateLimitStore: 'postgres' }, async (app) => {
      const reads: Reads = { app, databaseName: database.name, auth: { authorization: account.authorization }, at: `at ${integer(size)}` };
      const get = await measureGet(reads, ids);
      const lists = await measureLists(reads);
      const preview = await measurePreview(reads, previewCustomers);
      return { get, lists, preview };
    });
    rows.push({ customers: ids.count, subscriptions, invoices, seedMs, ...row });
  }
  await database.drop();
  return rows;
}

/** The growth table: p50 (and p95) of each read at each size. */
export function growthTable(rows: GrowthRow[]): string {
  const p = (r: SequentialHttpResult) => `${ms(r.latencyMs.p50)} (${ms(r.latencyMs.p95)})`;
  // one column per list query, as each row has one list result per query
  const headers = [
    'customers',
    'subscriptions',
    'invoices',
    'seeded in',
    'GET p50 (p95)',
    ...LIST_QUERIES.map((_query, i) => `list ${i + 1} p50 (p95)`),
    'preview p50 (p95)',
  ];
  return table(
    headers,
    rows.map((r) => [
      integer(r.customers),
      integer(r.subscriptions),
      integer(r.invoices),
      seconds(r.seedMs),
      p(r.get),
      ...r.lists.map(p),
      p(r.preview),
    ]),
    new Set(headers.keys()),
  );
}
