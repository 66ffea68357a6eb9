/**
 * `npm run bench:get` (issue 25): the GET `/v1/customers/{id}` on PostgreSQL beside its floor (bare
 * Fastify + one prepared pg point select), BENCH_GET_RUNS times (default 3), interleaved (floor, GET,
 * floor, GET, …) so a change in the machine's load touches both. Prints each run's server CPU per
 * request and req/s, the ratio to the same run's floor, and the median and spread of the ratios:
 * one run is not a figure on a shared machine.
 */
import { loadCatalog } from '../src/catalog/load-catalog.js';
import { DEMO_CATALOG_PATH } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { createBenchAccount, customerIdRange, seedCustomers } from './fixtures.js';
import { cleanup, log, withServer } from './harness.js';
import type { ThroughputResult } from './load.js';
import { loadAverage, machineDescription } from './machine.js';
import { createFreshDatabase, providePostgres } from './postgres.js';
import { integer } from './report.js';
import { benchGetCustomer, benchPointSelectFloor } from './scenarios/get-customer.js';

const RUNS = Math.max(1, Number(process.env.BENCH_GET_RUNS ?? 3));
/** The target of issue 25: server CPU per request at most this multiple of the floor's. */
const TARGET = 1.3;

/** Microseconds of CPU per request, for a share of cores at a rate. */
const microsPerRequest = (coreShare: number | undefined, requestsPerSecond: number) =>
  coreShare === undefined || requestsPerSecond <= 0 ? Number.NaN : (coreShare / requestsPerSecond) * 1e6;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  // no values: NaN, like the mean of none
  const at = (i: number) => sorted[i] ?? Number.NaN;
  return sorted.length % 2 ? at(middle) : (at(middle - 1) + at(middle)) / 2;
};

interface RunFigures {
  floor: ThroughputResult;
  get: ThroughputResult;
}

function describe(result: ThroughputResult) {
  const server = microsPerRequest(result.cpu?.server, result.requestsPerSecond);
  const postgres = microsPerRequest(result.cpu?.postgres, result.requestsPerSecond);
  return { server, postgres, rate: result.requestsPerSecond, other: result.cpu?.other ?? Number.NaN };
}

async function main() {
  console.log('Renew billing-service: GET /v1/customers/{id} beside its floor, repeated');
  console.log(`Machine: ${machineDescription()}; load average before: ${loadAverage()}`);
  const provision = await providePostgres(log);
  if ('skipped' in provision) {
    console.log(`PostgreSQL not available: ${provision.skipped}`);
    return;
  }
  cleanup.add('stop PostgreSQL', () => provision.server.stop());
  const database = await createFreshDatabase(provision.server.url);
  cleanup.add('drop the bench database', () => database.drop());
  const catalog = loadCatalog(DEMO_CATALOG_PATH);
  const handle = await openDatabase({ databaseUrl: database.url, poolSize: 2 });
  const account = await createBenchAccount(handle.db, catalog);
  await seedCustomers(handle.db, account.accountId);
  const ids = await customerIdRange(handle.db, account.accountId);
  await handle.close();
  log(`seeded ${integer(ids.count)} customers`);

  const runs: RunFigures[] = [];
  for (let run = 1; run <= RUNS; run += 1) {
    const floor = await benchPointSelectFloor(database.url, ids, database.name);
    const get = await withServer({ kind: 'app', database: { databaseUrl: database.url }, rateLimitStore: 'postgres' }, (app) =>
      benchGetCustomer(`PostgreSQL GET /v1/customers/{id}, run ${run}`, app, account, ids, { postgresDatabase: database.name }),
    );
    runs.push({ floor, get });
  }
  await cleanup.runAll();

  console.log('');
  console.log('run  floor: server + pg µs/req, req/s   GET: server + pg µs/req, req/s   GET ÷ floor: server CPU, req/s   other cores');
  const ratios: number[] = [];
  const rateShares: number[] = [];
  runs.forEach(({ floor, get }, index) => {
    const f = describe(floor);
    const g = describe(get);
    ratios.push(g.server / f.server);
    rateShares.push(g.rate / f.rate);
    console.log(
      `${String(index + 1).padEnd(4)} ${`${integer(f.server)} + ${integer(f.postgres)}, ${integer(f.rate)}`.padEnd(34)}` +
        `${`${integer(g.server)} + ${integer(g.postgres)}, ${integer(g.rate)}`.padEnd(33)}` +
        `${`${(g.server / f.server).toFixed(2)}×, ${Math.round((g.rate / f.rate) * 100)}%`.padEnd(33)}` +
        `${f.other.toFixed(2)} / ${g.other.toFixed(2)}`,
    );
  });
  const spread = `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×`;
  console.log('');
  console.log(
    `GET server CPU ÷ floor's: median ${median(ratios).toFixed(2)}× (spread ${spread}), target ≤ ${TARGET}× ` +
      `(${median(ratios) <= TARGET ? 'met' : 'not met'}); req/s ÷ floor's: median ${Math.round(median(rateShares) * 100)}%`,
  );
  console.log(`load average after: ${loadAverage()}`);
}

main().catch(async (error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  await cleanup.runAll();
  process.exit(1);
});
