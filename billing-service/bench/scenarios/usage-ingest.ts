/**
 * `npm run bench:usage` (issue 41): usage events through `POST /v1/usageEvents` on PostgreSQL, beside their floor
 * measured in the same run, and the current-usage read of a subscription with 1,000,000 events in its period.
 * - Ingestion: batches of 1,000 events (unique transaction ids, 200 metered customers, timestamps in the current
 *   period) sent by 4 connections for 20 s to the server in its own process; events per second.
 * - Floor: the same rows inserted into the same partitioned `usage_events` table by a bare multi-row INSERT of 1,000
 *   rows over one pg connection, in a loop for 10 s (no idempotency table, no rollup, no HTTP, no checks).
 * - Read: 1,000,000 events stored for one subscription through the ingestion statement (10,000 a statement, not HTTP,
 *   to save time), then `GET /v1/subscriptions/{id}/usage` one request at a time for 10 s: p50 and p95.
 * Targets: ≥ 20,000 events/s and ≥ 60 % of the floor; read p50 ≤ 20 ms.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { DEMO_CATALOG_PATH } from '../../src/config.js';
import { loadCatalog } from '../../src/catalog/load-catalog.js';
import { openDatabase } from '../../src/db/database.js';
import { storeEvents } from '../../src/usage/repository.js';
import { callApi } from '../api-call.js';
import { createBenchAccount } from '../fixtures.js';
import { measureLoop, measureThroughput } from '../load.js';
import { createFreshDatabase, type PostgresServer } from '../postgres.js';
import { ms, rate, table } from '../report.js';
import { startServer } from '../server-process.js';

const METERED = 9201;
const CUSTOMERS = 200;
const BATCH = 1000;

function meteredCatalogFile(): string {
  const demo = JSON.parse(readFileSync(DEMO_CATALOG_PATH, 'utf8'));
  const catalog = {
    ...demo,
    billableMetrics: [{ code: 'api_calls', name: 'API calls', aggregation: 'count' }],
    plans: [
      ...demo.plans,
      {
        id: 92,
        code: 'METERED_BENCH',
        name: 'Metered (bench)',
        products: [{ code: 'BASE', name: 'Base' }],
        frequencies: [
          {
            id: METERED,
            interval: 'Monthly',
            prices: [{ product: 'BASE', charges: [{ currency: 'USD', amount: '0' }] }],
            usageCharges: [
              {
                metric: 'api_calls',
                model: 'graduated',
                prices: [
                  {
                    currency: 'USD',
                    tiers: [
                      { upTo: 1000, unitAmount: '0' },
                      { upTo: null, unitAmount: '0.002' },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      },
    ],
  };
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'renew-usage-bench-')), 'catalog.json');
  writeFileSync(file, JSON.stringify(catalog));
  return file;
}

const call = callApi;

type Metered = { customerId: number; subscriptionId: number };
interface Setup {
  url: string;
  pid: number;
  databaseName: string;
  databaseUrl: string;
  account: Awaited<ReturnType<typeof createBenchAccount>>;
  customers: Metered[];
}

/** CUSTOMERS metered customers, each Active with one subscription on the metered plan, through the API. */
async function meteredCustomers(url: string, authorization: string): Promise<Metered[]> {
  const customers: Metered[] = [];
  for (let i = 0; i < CUSTOMERS; i++) {
    const customer = await call(url, authorization, 'POST', '/v1/customers', { firstName: 'Meter', lastName: `No${i}`, currency: 'USD' });
    const subscription = await call(url, authorization, 'POST', '/v1/subscriptions', { customerId: customer.id, planFrequencyId: METERED });
    await call(url, authorization, 'POST', '/v1/customeractivation', {
      customerId: customer.id,
      activateAllSubscriptions: true,
      activateAllDraftPurchases: false,
      temporarilyDisableAutoPost: false,
    });
    customers.push({ customerId: customer.id, subscriptionId: subscription.id });
  }
  return customers;
}

/** Batches of BATCH events with unique transaction ids, round-robin over the customers, dated in the last minute. */
function batches(customers: Metered[]) {
  let sequence = 0;
  const run = randomBytes(4).toString('hex');
  return () => {
    const now = Date.now();
    return Array.from({ length: BATCH }, () => {
      const customer = customers[sequence % customers.length] ?? { customerId: 0, subscriptionId: 0 };
      sequence += 1;
      return {
        transactionId: `${run}-${sequence}`,
        customerId: customer.customerId,
        subscriptionId: customer.subscriptionId,
        metricCode: 'api_calls',
        timestamp: new Date(now - (sequence % 60_000)).toISOString(),
      };
    });
  };
}

async function ingestion(setup: Setup) {
  const next = batches(setup.customers);
  const result = await measureThroughput({
    baseUrl: setup.url,
    method: 'POST',
    path: '/v1/usageEvents',
    headers: { authorization: setup.account.authorization, 'content-type': 'application/json' },
    body: () => JSON.stringify(next().map(({ subscriptionId: _, ...event }) => event)),
    connections: 4,
    seconds: 20,
    warmupSeconds: 3,
    serverPid: setup.pid,
    postgresDatabase: setup.databaseName,
  });
  return { result, eventsPerSecond: (result.ok * BATCH) / result.seconds };
}

/** The same rows into the same partitioned table by a bare multi-row INSERT over one connection. */
async function floor(setup: Setup): Promise<number> {
  const next = batches(setup.customers);
  const client = new pg.Client({ connectionString: setup.databaseUrl });
  await client.connect();
  const columns = 10;
  const rowsText = Array.from(
    { length: BATCH },
    (_, r) => `(${Array.from({ length: columns }, (_, c) => `$${r * columns + c + 1}`).join(', ')})`,
  );
  const text = `insert into usage_events (account_id, customer_id, subscription_id, metric_code, transaction_id, occurred_at, value, dimension, properties, received_at) values ${rowsText.join(', ')}`;
  try {
    const loop = await measureLoop(
      async () => {
        const values = next().flatMap((e) => [
          setup.account.accountId,
          e.customerId,
          e.subscriptionId,
          e.metricCode,
          `floor-${e.transactionId}`,
          e.timestamp,
          null,
          null,
          '{}',
          new Date(),
        ]);
        await client.query({ name: 'floor_insert', text, values });
      },
      10,
      2,
    );
    return loop.perSecond * BATCH;
  } finally {
    await client.end();
  }
}

/** 1,000,000 events for one subscription through the ingestion statement, then its usage read one request at a time. */
async function heavyRead(setup: Setup, db: Parameters<typeof storeEvents>[0]) {
  const heavy = setup.customers[0];
  if (!heavy) throw new Error('no metered customer was created');
  const started = performance.now();
  const now = Date.now();
  for (let chunk = 0; chunk < 100; chunk++) {
    const events = Array.from({ length: 10_000 }, (_, i) => ({
      accountId: setup.account.accountId,
      customerId: heavy.customerId,
      subscriptionId: heavy.subscriptionId,
      metricCode: 'api_calls',
      transactionId: `heavy-${chunk}-${i}`,
      occurredAt: new Date(now - ((chunk * 10_000 + i) % 3_600_000)).toISOString(),
      value: null,
      dimension: null,
      counted: true,
      properties: {},
    }));
    await storeEvents(db, events, new Date());
  }
  const loadSeconds = (performance.now() - started) / 1000;
  const path = `/v1/subscriptions/${heavy.subscriptionId}/usage`;
  const read = await measureLoop(() => call(setup.url, setup.account.authorization, 'GET', path), 10, 2);
  const usage = await call(setup.url, setup.account.authorization, 'GET', path);
  return { read, loadSeconds, quantity: usage.metrics[0]?.quantity as number };
}

/** The usage figures on `server` (a fresh database of its own, dropped after): the report as text. */
export async function benchUsageIngest(server: PostgresServer): Promise<string> {
  const database = await createFreshDatabase(server.url);
  const catalogFile = meteredCatalogFile();
  const seed = await openDatabase({ databaseUrl: database.url, poolSize: 4 });
  const account = await createBenchAccount(seed.db, loadCatalog(catalogFile));
  const app = await startServer({ kind: 'app', database: { databaseUrl: database.url }, rateLimitStore: 'postgres', catalogFile });
  try {
    const customers = await meteredCustomers(app.url, account.authorization);
    const setup: Setup = { url: app.url, pid: app.pid, databaseName: database.name, databaseUrl: database.url, account, customers };
    const ingest = await ingestion(setup);
    const floorPerSecond = await floor(setup);
    const heavy = await heavyRead(setup, seed.db);
    return report(server.description, ingest, floorPerSecond, heavy);
  } finally {
    await app.stop();
    await seed.close();
    await database.drop();
  }
}

function report(
  where: string,
  ingest: Awaited<ReturnType<typeof ingestion>>,
  floorPerSecond: number,
  heavy: Awaited<ReturnType<typeof heavyRead>>,
): string {
  const { eventsPerSecond, result } = ingest;
  const lines = [
    `Usage events and the current-usage read (${where})`,
    table(
      ['Figure', 'Measured', 'Baseline (same run)', 'Target', 'Met'],
      [
        [
          'ingestion, POST /v1/usageEvents, batches of 1,000, 4 connections',
          rate(eventsPerSecond, 'events/s'),
          `${rate(floorPerSecond, 'events/s')} (bare multi-row INSERT)`,
          '≥ 20,000 events/s',
          eventsPerSecond >= 20_000 ? 'yes' : 'NO',
        ],
        [
          '  share of the floor',
          `${Math.round((100 * eventsPerSecond) / floorPerSecond)} %`,
          '',
          '≥ 60 %',
          eventsPerSecond >= 0.6 * floorPerSecond ? 'yes' : 'NO',
        ],
        ['  requests: ok / non-2xx, p50', `${result.ok} / ${result.non2xx}, ${ms(result.latencyMs.p50)}`, '', '', ''],
        [
          'current-usage read, 1,000,000 events in the period, p50',
          ms(heavy.read.latencyMs.p50),
          `p95 ${ms(heavy.read.latencyMs.p95)}`,
          '≤ 20 ms',
          heavy.read.latencyMs.p50 <= 20 ? 'yes' : 'NO',
        ],
        ['  quantity read / loading the events (ingestion statement)', String(heavy.quantity), `${heavy.loadSeconds.toFixed(1)} s`, '', ''],
      ],
      new Set([1]),
    ),
  ];
  if (result.cpu) lines.push(`CPU during ingestion: ${JSON.stringify(result.cpu)}`);
  return lines.join('\n');
}
