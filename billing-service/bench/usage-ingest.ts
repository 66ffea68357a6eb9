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
import { DEMO_CATALOG_PATH } from '../src/config.js';
import { loadCatalog } from '../src/catalog/load-catalog.js';
import { openDatabase } from '../src/db/database.js';
import { storeEvents } from '../src/usage/repository.js';
import { createBenchAccount } from './fixtures.js';
import { measureLoop, measureThroughput } from './load.js';
import { createFreshDatabase, providePostgres } from './postgres.js';
import { ms, rate, table } from './report.js';
import { startServer } from './server-process.js';

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

async function call(url: string, authorization: string, method: string, pathname: string, body?: unknown) {
  const res = await fetch(new URL(pathname, url), {
    method,
    headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${pathname}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

async function main() {
  const provision = await providePostgres((line) => console.log(line));
  if ('skipped' in provision) return void console.log(`usage bench skipped: ${provision.skipped}`);
  const { server } = provision;
  const database = await createFreshDatabase(server.url);
  const catalogFile = meteredCatalogFile();
  const seed = await openDatabase({ databaseUrl: database.url, poolSize: 4 });
  const account = await createBenchAccount(seed.db, loadCatalog(catalogFile));
  const app = await startServer({ kind: 'app', database: { databaseUrl: database.url }, rateLimitStore: 'postgres', catalogFile });
  try {
    const customers: Array<{ customerId: number; subscriptionId: number }> = [];
    for (let i = 0; i < CUSTOMERS; i++) {
      const customer = await call(app.url, account.authorization, 'POST', '/v1/customers', {
        firstName: 'Meter',
        lastName: `No${i}`,
        currency: 'USD',
      });
      const subscription = await call(app.url, account.authorization, 'POST', '/v1/subscriptions', {
        customerId: customer.id,
        planFrequencyId: METERED,
      });
      await call(app.url, account.authorization, 'POST', '/v1/customeractivation', {
        customerId: customer.id,
        activateAllSubscriptions: true,
        activateAllDraftPurchases: false,
        temporarilyDisableAutoPost: false,
      });
      customers.push({ customerId: customer.id, subscriptionId: subscription.id });
    }
    let sequence = 0;
    const run = randomBytes(4).toString('hex');
    const batch = () => {
      const now = Date.now();
      return Array.from({ length: BATCH }, () => {
        const customer = customers[sequence % customers.length] ?? { customerId: 0, subscriptionId: 0 };
        sequence += 1;
        return {
          transactionId: `${run}-${sequence}`,
          customerId: customer.customerId,
          metricCode: 'api_calls',
          timestamp: new Date(now - (sequence % 60_000)).toISOString(),
        };
      });
    };
    const ingest = await measureThroughput({
      baseUrl: app.url,
      method: 'POST',
      path: '/v1/usageEvents',
      headers: { authorization: account.authorization, 'content-type': 'application/json' },
      body: () => JSON.stringify(batch()),
      connections: 4,
      seconds: 20,
      warmupSeconds: 3,
      serverPid: app.pid,
      postgresDatabase: database.name,
    });
    const eventsPerSecond = (ingest.ok * BATCH) / ingest.seconds;

    // the floor: the same rows, a bare multi-row INSERT over one connection
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const columns = 10;
    const placeholders = Array.from(
      { length: BATCH },
      (_, r) => `(${Array.from({ length: columns }, (_, c) => `$${r * columns + c + 1}`).join(', ')})`,
    ).join(', ');
    const text = `insert into usage_events (account_id, customer_id, subscription_id, metric_code, transaction_id, occurred_at, value, dimension, properties, received_at) values ${placeholders}`;
    const floor = await measureLoop(
      async () => {
        const rows = batch().flatMap((e) => {
          const s = customers.find((c) => c.customerId === e.customerId) ?? { subscriptionId: 0 };
          return [
            account.accountId,
            e.customerId,
            s.subscriptionId,
            e.metricCode,
            `floor-${e.transactionId}`,
            e.timestamp,
            null,
            null,
            '{}',
            new Date(),
          ];
        });
        await client.query({ name: 'floor_insert', text, values: rows });
      },
      10,
      2,
    );
    await client.end();
    const floorPerSecond = floor.perSecond * BATCH;

    // the read at 1,000,000 events in the period
    const heavy = customers[0];
    if (!heavy) throw new Error('no metered customer was created');
    const loadStart = performance.now();
    const now = Date.now();
    for (let chunk = 0; chunk < 100; chunk++) {
      await storeEvents(
        seed.db,
        Array.from({ length: 10_000 }, (_, i) => ({
          accountId: account.accountId,
          customerId: heavy.customerId,
          subscriptionId: heavy.subscriptionId,
          metricCode: 'api_calls',
          transactionId: `heavy-${run}-${chunk}-${i}`,
          occurredAt: new Date(now - ((chunk * 10_000 + i) % 3_600_000)).toISOString(),
          value: null,
          dimension: null,
          counted: true,
          properties: {},
        })),
        new Date(),
      );
    }
    const loadSeconds = (performance.now() - loadStart) / 1000;
    const read = await measureLoop(
      () => call(app.url, account.authorization, 'GET', `/v1/subscriptions/${heavy.subscriptionId}/usage`),
      10,
      2,
    );
    const usage = await call(app.url, account.authorization, 'GET', `/v1/subscriptions/${heavy.subscriptionId}/usage`);

    console.log(`\nusage bench on ${server.description}\n`);
    console.log(
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
          ['  requests: ok / non-2xx, p50', `${ingest.ok} / ${ingest.non2xx}, ${ms(ingest.latencyMs.p50)}`, '', '', ''],
          [
            'current-usage read, 1,000,000 events in the period, p50',
            ms(read.latencyMs.p50),
            `p95 ${ms(read.latencyMs.p95)}`,
            '≤ 20 ms',
            read.latencyMs.p50 <= 20 ? 'yes' : 'NO',
          ],
          [
            '  quantity read / loading 1,000,000 events (ingestion statement)',
            String(usage.metrics[0]?.quantity),
            `${loadSeconds.toFixed(1)} s`,
            '',
            '',
          ],
        ],
        new Set([1]),
      ),
    );
    if (ingest.cpu) console.log(`server CPU ${JSON.stringify(ingest.cpu)}`);
  } finally {
    await app.stop();
    await seed.close();
    await database.drop();
    await server.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
