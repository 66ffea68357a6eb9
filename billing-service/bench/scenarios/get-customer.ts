/**
 * Figures 1 and 2: `GET /v1/customers/{id}` of a random seeded customer, with
 * its baselines and diagnostics (PGlite's own point selects, the GET with the
 * in-memory rate-limit store, bare Fastify + one prepared pg point select).
 */
import { PGlite } from '@electric-sql/pglite';
import { findCustomerRecord } from '../../src/customers/repository.js';
import type { Db } from '../../src/db/database.js';
import { randomIdIn, type BenchAccount } from '../fixtures.js';
import { SETTINGS, expectOk, latencyRow, log, throughput, withServer } from '../harness.js';
import { measureLoop, type LoopResult, type ThroughputResult, type ThroughputSpec } from '../load.js';
import { seconds } from '../report.js';
import type { RunningServer, ServerSpec } from '../server-process.js';

export type IdRange = { min: number; max: number; count: number };

function getPath(ids: { min: number; max: number }) {
  return () => `/v1/customers/${randomIdIn(ids)}`;
}

/** Throughput of the GET on a running server, after one checked request. */
export async function benchGetCustomer(
  label: string,
  app: RunningServer,
  account: BenchAccount,
  ids: IdRange,
  options: Pick<ThroughputSpec, 'probe' | 'postgresDatabase'> = {},
): Promise<ThroughputResult> {
  const auth = { authorization: account.authorization };
  await expectOk(app, 'GET', `/v1/customers/${ids.min}`, auth);
  return throughput(label, app, { method: 'GET', path: getPath(ids), headers: auth, ...options });
}

/** Diagnostic: the same GET on a server of its own (another rate-limit store), no check before. */
export function benchGetOnServer(
  label: string,
  spec: ServerSpec,
  account: BenchAccount,
  ids: IdRange,
  postgresDatabase: string,
): Promise<ThroughputResult> {
  return withServer(spec, (app) =>
    throughput(label, app, { method: 'GET', path: getPath(ids), headers: { authorization: account.authorization }, postgresDatabase }),
  );
}

/** Diagnostic: the floor of any database-backed GET on this machine (HTTP + one pg round trip, nothing else). */
export function benchPointSelectFloor(databaseUrl: string, ids: IdRange, postgresDatabase: string): Promise<ThroughputResult> {
  return withServer({ kind: 'bare-pg', databaseUrl }, (app) =>
    throughput('bare Fastify + pg, GET /x/:id = one prepared point select (diagnostic)', app, {
      method: 'GET',
      path: () => `/x/${randomIdIn(ids)}`,
      postgresDatabase,
    }),
  );
}

/** PGlite in the benchmark process: a Kysely point select and the GET's own query, one at a time. */
export async function benchPgliteQueries(
  db: Db,
  accountId: number,
  ids: IdRange,
): Promise<{ kyselyPointSelect: LoopResult; appQuery: LoopResult }> {
  log(`PGlite: Kysely point select, ${SETTINGS.loopSeconds} s`);
  const kyselyPointSelect = await measureLoop(
    () => db.selectFrom('customers').selectAll().where('id', '=', randomIdIn(ids)).executeTakeFirst(),
    SETTINGS.loopSeconds,
    SETTINGS.loopWarmupSeconds,
  );
  latencyRow('PGlite point select, Kysely selectFrom(customers)', kyselyPointSelect, 'in-process, sequential');
  log(`PGlite: findCustomerRecord (the GET's query), ${SETTINGS.loopSeconds} s`);
  const appQuery = await measureLoop(
    () => findCustomerRecord(db, accountId, randomIdIn(ids), new Date()),
    SETTINGS.loopSeconds,
    SETTINGS.loopWarmupSeconds,
  );
  latencyRow("PGlite findCustomerRecord (the GET's query)", appQuery, 'in-process, sequential');
  return { kyselyPointSelect, appQuery };
}

/** The baseline of target 2: PGlite itself, no Kysely, on the same data directory (closed by the caller before). */
export async function benchPglitePointSelect(dataDir: string, ids: IdRange): Promise<LoopResult> {
  const started = performance.now();
  const pglite = await PGlite.create({ dataDir });
  try {
    log(`PGlite: pglite.query point select (opened in ${seconds(performance.now() - started)}), ${SETTINGS.loopSeconds} s`);
    const pointSelect = await measureLoop(
      () => pglite.query('select * from customers where id = $1', [randomIdIn(ids)]),
      SETTINGS.loopSeconds,
      SETTINGS.loopWarmupSeconds,
    );
    latencyRow('PGlite point select, pglite.query (baseline)', pointSelect, 'in-process, sequential');
    return pointSelect;
  } finally {
    await pglite.close();
  }
}
