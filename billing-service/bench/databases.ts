/**
 * The scenarios in the order they run on each database: set-up and the
 * in-process baselines first (seed, lists without HTTP, the customer pools),
 * then the server process, the HTTP figures and the diagnostics.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import type { Catalog } from '../src/catalog/schema.js';
import { openDatabase } from '../src/db/database.js';
import { SEEDED_CUSTOMERS, createBenchAccount, customerIdRange, seedCustomers, type BenchAccount } from './fixtures.js';
import { SETTINGS, cleanup, detail, log, orFailure, withServer } from './harness.js';
import type { LoopResult, SequentialHttpResult, ThroughputResult } from './load.js';
import { packageVersion } from './machine.js';
import { makePools, poolsOrFailure, type Pools } from './pools.js';
import { createFreshDatabase, sampleBackendStates, type BenchDatabase, type PostgresServer, type WaitSample } from './postgres.js';
import { integer, seconds } from './report.js';
import type { RunningServer, ServerSpec } from './server-process.js';
import type { SiteverifyStandIn } from './siteverify.js';
import { benchActivation, type ActivationFigures } from './scenarios/activation.js';
import { benchActivationPreview, type PreviewFigures } from './scenarios/activation-preview.js';
import { benchBulk, type BulkFigures } from './scenarios/bulk.js';
import { benchCapture, captureSpec, type CaptureFigures } from './scenarios/capture.js';
import { benchCreateCustomer } from './scenarios/create-customer.js';
import {
  benchGetCustomer,
  benchGetOnServer,
  benchPgliteQueries,
  benchPglitePointSelect,
  benchPointSelectFloor,
  type IdRange,
} from './scenarios/get-customer.js';
import { benchDirectLists, benchHttpLists } from './scenarios/lists.js';

export type LifecycleFigures = PreviewFigures & ActivationFigures & CaptureFigures & { bulk: BulkFigures };

/** Preview latency and its GET baseline, activation and card-capture throughput, the bulk job, on a running server with the capture host. */
async function benchLifecycle(
  db: string,
  app: RunningServer,
  pools: Pools,
  siteverify: SiteverifyStandIn,
  postgresDatabase?: string,
): Promise<LifecycleFigures> {
  const headers = { authorization: pools.lifecycleAccount.authorization, 'content-type': 'application/json' };
  // 5: preview, one at a time, and the GET of the same customers the same way
  const preview = await benchActivationPreview(db, app, pools.lifecycleAccount, pools.preview, postgresDatabase);
  // 6: activation, each request on a fresh Draft customer
  const activation = await benchActivation(db, app, pools.lifecycleAccount, pools.activation, postgresDatabase);
  // 7: card capture with a collection, on the capture host of the same process
  const capture = await benchCapture(db, app, pools.captureAccount.publicApiKey, pools.capture, siteverify, postgresDatabase);
  // 8: a bulk payment job, processed in the background by the server's worker
  const bulk = await benchBulk(app, pools.preview, headers);
  return { ...preview, ...activation, ...capture, bulk };
}

/** The lifecycle and capture figures, or why they are missing; a failure there leaves the other figures of the database alone. */
function lifecycleOrFailure(
  db: string,
  app: RunningServer,
  pools: Pools | string,
  siteverify: SiteverifyStandIn,
  postgresDatabase?: string,
): Promise<LifecycleFigures | string> {
  if (typeof pools === 'string') return Promise.resolve(pools);
  return orFailure(`${db} preview/activation/capture figures`, `${db} preview/activation/capture`, () =>
    benchLifecycle(db, app, pools, siteverify, postgresDatabase),
  );
}

export interface DatabaseFigures {
  get: ThroughputResult;
  post: ThroughputResult;
  lists: Array<{ http: SequentialHttpResult; direct: LoopResult }> | undefined;
  lifecycle: LifecycleFigures | string;
  pools: Pools | string;
}

export interface PostgresFigures extends DatabaseFigures {
  description: string;
  seedMs: number;
  getWithMemoryStore: ThroughputResult;
  /** Bare Fastify + pg: one prepared `select * from customers where id = $1` per request, no auth, no limits. */
  pointSelectFloor: ThroughputResult;
  getBackends: WaitSample;
  postBackends: WaitSample;
}

/** Each list's HTTP figures beside its SQL-only ones: both measure LIST_QUERIES in order, one result per query. */
function pairLists(http: SequentialHttpResult[], direct: LoopResult[]): NonNullable<DatabaseFigures['lists']> {
  return http.map((h, i) => {
    const sqlOnly = direct[i];
    if (!sqlOnly) throw new Error(`list ${i + 1}: no SQL-only figures beside the HTTP ones (${direct.length} for ${http.length} lists)`);
    return { http: h, direct: sqlOnly };
  });
}

/** What the PostgreSQL figures measure against: the accounts, the seeded customers, the pools and the lists without HTTP. */
interface PostgresSetUp {
  account: BenchAccount;
  postAccount: BenchAccount;
  seedMs: number;
  ids: IdRange;
  pools: Pools | string;
  direct: LoopResult[];
}

/** Set-up and the in-process baselines; the handle is closed before the server starts. */
async function setUpPostgres(database: BenchDatabase, catalog: Catalog): Promise<PostgresSetUp> {
  const handle = await openDatabase({ databaseUrl: database.url, poolSize: 2 });
  try {
    const account = await createBenchAccount(handle.db, catalog);
    // POSTs go to a second account, so the list pages keep counting exactly 100,000 customers
    const postAccount = await createBenchAccount(handle.db, catalog);
    const seedMs = await seedCustomers(handle.db, account.accountId);
    const ids = await customerIdRange(handle.db, account.accountId);
    log(`PostgreSQL: seeded ${integer(ids.count)} customers, vacuumed and analyzed in ${seconds(seedMs)}`);
    const direct = await benchDirectLists('PostgreSQL', handle.db, catalog, account.accountId, database.name);
    const pools = await poolsOrFailure('PostgreSQL', () => makePools(handle.db, catalog, 'PostgreSQL', 2));
    return { account, postAccount, seedMs, ids, pools, direct };
  } finally {
    await handle.close();
  }
}

/** The server process on the bench database, with the given rate-limit store, and the capture host when asked. */
const postgresAppSpec = (database: BenchDatabase, rateLimitStore: 'postgres' | 'memory', siteverify?: SiteverifyStandIn): ServerSpec => ({
  kind: 'app',
  database: { databaseUrl: database.url },
  rateLimitStore,
  ...(siteverify ? { capture: captureSpec(siteverify) } : {}),
});

/** Samples what the bench database's backends do during a measured run; `result` is read after the run. */
function backendProbe(database: BenchDatabase) {
  const sampler = sampleBackendStates(database.url, database.name);
  let sample: WaitSample = { shares: [], samples: 0 };
  return {
    probe: {
      start: () => sampler.start(),
      stop: async () => {
        sample = await sampler.stop();
      },
    },
    result: () => sample,
  };
}

/** GET, the lists, POST and the lifecycle on one server process with PostgresRateLimitStore and the capture host. */
function measurePostgresServer(database: BenchDatabase, setUp: PostgresSetUp, siteverify: SiteverifyStandIn) {
  const { account, postAccount, ids, pools } = setUp;
  return withServer(postgresAppSpec(database, 'postgres', siteverify), async (app) => {
    log(`PostgreSQL: server process ${app.pid} listening on ${app.url} (started in ${seconds(app.startMs)})`);
    const getProbe = backendProbe(database);
    const get = await benchGetCustomer('PostgreSQL GET /v1/customers/{id}', app, account, ids, {
      probe: getProbe.probe,
      postgresDatabase: database.name,
    });
    const lists = await benchHttpLists('PostgreSQL', app, account, database.name);
    const postProbe = backendProbe(database);
    const post = await benchCreateCustomer('PostgreSQL POST /v1/customers', app, postAccount, {
      probe: postProbe.probe,
      postgresDatabase: database.name,
    });
    const lifecycle = await lifecycleOrFailure('PostgreSQL', app, pools, siteverify, database.name);
    return { get, lists, post, lifecycle, getBackends: getProbe.result(), postBackends: postProbe.result() };
  });
}

export async function benchPostgres(server: PostgresServer, catalog: Catalog, siteverify: SiteverifyStandIn): Promise<PostgresFigures> {
  const database = await createFreshDatabase(server.url);
  cleanup.add('drop the bench database', () => database.drop());
  log(`PostgreSQL: database ${database.name} created; migrating, seeding ${integer(SEEDED_CUSTOMERS)} customers`);
  const setUp = await setUpPostgres(database, catalog);
  const main = await measurePostgresServer(database, setUp, siteverify);

  // Diagnostic: the same GET with the per-process rate-limit store, to show what the shared PostgreSQL counter costs.
  const getWithMemoryStore = await benchGetOnServer(
    'PostgreSQL GET, MemoryRateLimitStore (diagnostic)',
    postgresAppSpec(database, 'memory'),
    setUp.account,
    setUp.ids,
    database.name,
  );
  // Diagnostic: the floor of any database-backed GET on this machine (HTTP + one pg round trip, nothing else).
  const pointSelectFloor = await benchPointSelectFloor(database.url, setUp.ids, database.name);

  await database.drop();
  return {
    description: server.description,
    seedMs: setUp.seedMs,
    pointSelectFloor,
    get: main.get,
    post: main.post,
    lists: pairLists(main.lists, setUp.direct),
    lifecycle: main.lifecycle,
    pools: setUp.pools,
    getWithMemoryStore,
    getBackends: main.getBackends,
    postBackends: main.postBackends,
  };
}

export interface PgliteFigures extends DatabaseFigures {
  description: string;
  seedMs: number;
  initMs: number;
  pointSelect: LoopResult;
  kyselyPointSelect: LoopResult;
  appQuery: LoopResult;
}

export async function benchPglite(catalog: Catalog, siteverify: SiteverifyStandIn): Promise<PgliteFigures> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'renew-bench-pglite-'));
  cleanup.add('remove the PGlite data directory', () => rmSync(dataDir, { recursive: true, force: true }));
  log(`PGlite: creating the data directory ${dataDir} and migrating`);
  const started = performance.now();
  const handle = await openDatabase({ dataDir });
  const initMs = performance.now() - started;
  let account: BenchAccount;
  let postAccount: BenchAccount;
  let seedMs: number;
  let ids: IdRange;
  let queries: { kyselyPointSelect: LoopResult; appQuery: LoopResult };
  let version: string;
  let pools: Pools | string;
  let direct: LoopResult[] = [];
  try {
    const versionRow = (await sql<{ v: string }>`select current_setting('server_version') as v`.execute(handle.db)).rows[0];
    if (!versionRow) throw new Error('PGlite answered no row to select current_setting');
    version = versionRow.v;
    account = await createBenchAccount(handle.db, catalog);
    postAccount = await createBenchAccount(handle.db, catalog);
    log(`PGlite: seeding ${integer(SEEDED_CUSTOMERS)} customers`);
    seedMs = await seedCustomers(handle.db, account.accountId);
    ids = await customerIdRange(handle.db, account.accountId);
    log(`PGlite: seeded ${integer(ids.count)} customers, vacuumed and analyzed in ${seconds(seedMs)}`);
    queries = await benchPgliteQueries(handle.db, account.accountId, ids);
    if (seedMs < SETTINGS.pgliteSeedLimitMs) {
      direct = await benchDirectLists('PGlite', handle.db, catalog, account.accountId);
    } else {
      detail.notes.push(
        `PGlite list latency skipped: seeding ${integer(SEEDED_CUSTOMERS)} customers took ${seconds(seedMs)} (limit ${seconds(SETTINGS.pgliteSeedLimitMs)})`,
      );
    }
    pools = await poolsOrFailure('PGlite', () => makePools(handle.db, catalog, 'PGlite', 1));
  } finally {
    await handle.close();
  }

  // The baseline of target 2: PGlite itself, no Kysely, on the same data directory.
  const pointSelect = await benchPglitePointSelect(dataDir, ids);

  const figures = await withServer(
    { kind: 'app', database: { dataDir }, rateLimitStore: 'memory', capture: captureSpec(siteverify) },
    async (app) => {
      log(`PGlite: server process ${app.pid} listening on ${app.url} (started in ${seconds(app.startMs)})`);
      const get = await benchGetCustomer('PGlite GET /v1/customers/{id}', app, account, ids);
      const lists = direct.length > 0 ? await benchHttpLists('PGlite', app, account) : undefined;
      const post = await benchCreateCustomer('PGlite POST /v1/customers', app, postAccount);
      const lifecycle = await lifecycleOrFailure('PGlite', app, pools, siteverify);
      return { get, post, lists, lifecycle };
    },
  );

  return {
    description: `PGlite ${packageVersion('@electric-sql/pglite')} (PostgreSQL ${version}), data directory on disk in ${os.tmpdir()} like RENEW_DATA_DIR, one connection`,
    seedMs,
    initMs,
    pointSelect,
    kyselyPointSelect: queries.kyselyPointSelect,
    appQuery: queries.appQuery,
    get: figures.get,
    post: figures.post,
    lists: figures.lists && pairLists(figures.lists, direct),
    lifecycle: figures.lifecycle,
    pools,
  };
}
