import { mkdirSync } from 'node:fs';
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';
import { CamelCasePlugin, Kysely, type KyselyPlugin, PostgresDialect, type Transaction } from 'kysely';
import pg from 'pg';
import { markingKeyedCommits } from './keyed-commit.js';
import { migrateToLatest } from './migrate.js';
import { PGliteDialect } from './pglite-dialect.js';
import { detectPooler, poolerSettings, transactionLockedMigrations, type Pooler } from './pooler.js';
import { PreparedStatementPool } from './prepared-statements.js';
import { StaleReads } from './read-database.js';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
/** Either the database or an open transaction: repositories accept both. */
export type Queryable = Db | Tx;

export interface DatabaseHandle {
  db: Db;
  /**
   * For counters that may lose their last increments in a crash (rate limits):
   * on PostgreSQL a small pool with synchronous_commit off, so a hit does not wait
   * for a disk flush; on the embedded database the same handle as `db`.
   */
  countersDb: Db;
  kind: 'pglite' | 'postgres';
  /** Where stale-tolerant reads go: a read standby while it is current (RENEW_READ_DATABASE_URL), else `db` (db/read-database.ts). */
  reads: StaleReads;
  /** PostgreSQL only: what is between Renew and the server (db/pooler.ts), as configured or detected. */
  pooler?: Pooler;
  /** PostgreSQL only: the connection pools, for the pool-usage metrics (the embedded database has one connection, no pool). */
  pools?: Record<string, PoolUsage>;
  close(): Promise<void>;
}

/** What pg.Pool reports about its connections. */
export interface PoolUsage {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

export interface OpenDatabaseOptions {
  /** postgres://… selects a PostgreSQL server; otherwise the embedded database. */
  databaseUrl?: string;
  /** Folder of the embedded database; undefined keeps it in memory (tests). */
  dataDir?: string;
  /**
   * Embedded database only: start from this dump (PGlite `dumpDataDir`) instead of an empty database. Tests load
   * one migrated copy per test app rather than migrating each; the migrations still run, a no-op when it is current.
   */
  loadDataDir?: Blob;
  poolSize?: number;
  /** PostgreSQL only: PgBouncer in transaction mode or a direct connection (db/pooler.ts); unset: detected at open. */
  pooler?: Pooler;
  /** How long a request waits for a new connection before failing (PostgreSQL only); default CONNECTION_TIMEOUT_MS. */
  connectionTimeoutMs?: number;
  /** Told when the server drops an idle pooled connection (PostgreSQL only). */
  onIdleConnectionError?: (error: Error) => void;
  /** A streaming standby for stale-tolerant reads (PostgreSQL only), and how far behind it may be read. */
  readStandby?: { url: string; maxLagMs: number; log?: (message: string) => void };
}

/** A new connection that takes longer than this fails: the server is down or unreachable. */
export const CONNECTION_TIMEOUT_MS = 5_000;

/** Connections of the main pool (RENEW_DATABASE_POOL_SIZE) and of the counters' pool, per instance on PostgreSQL. */
export const DEFAULT_POOL_SIZE = 10;
export const COUNTERS_POOL_SIZE = 4;

/**
 * What one frozen process (SIGSTOP, a long GC, a throttled container) can hold up. Renew never keeps
 * a transaction open across a call outside the database, so a session idle inside a transaction for
 * 30 s belongs to a process that stopped: the server ends it and its locks go, and the others carry on
 * (its claims are taken over once its heartbeat is stale, db/instance-liveness.ts). A statement waits
 * at most 20 s for a lock, then fails (answered 503 with Retry-After) instead of queueing without end.
 */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 30_000;
export const LOCK_TIMEOUT_MS = 20_000;
const SESSION_LIMITS = `-c idle_in_transaction_session_timeout=${IDLE_IN_TRANSACTION_TIMEOUT_MS} -c lock_timeout=${LOCK_TIMEOUT_MS}`;

const INT8 = 20;
const NUMERIC = 1700;
const DATE = 1082;

/**
 * Same JavaScript types from both drivers: int8 as number (counts), numeric as
 * exact string, date as its 'YYYY-MM-DD' text (a calendar date has no time zone).
 */
function parseInt8(value: string): number {
  return Number(value);
}

const asText = (value: string) => value;

export async function openDatabase(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  const plugins = [new CamelCasePlugin()];
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options, plugins);
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const pglite = await PGlite.create({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    parsers: { [pgliteTypes.INT8]: parseInt8, [pgliteTypes.NUMERIC]: (v: string) => v, [pgliteTypes.DATE]: (v: string) => v },
  });
  const db = new Kysely<Database>({ dialect: markingKeyedCommits(new PGliteDialect(pglite)), plugins });
  await migrateToLatest(db);
  return { db, countersDb: db, reads: new StaleReads(db, undefined), kind: 'pglite', close: () => db.destroy() };
}

/** Same JavaScript types from pg as from PGlite (see parseInt8). */
const PG_TYPES = {
  getTypeParser: ((oid: number, format?: string) => {
    if (oid === INT8) return parseInt8;
    if (oid === NUMERIC || oid === DATE) return asText;
    return pg.types.getTypeParser(oid, format as 'text');
  }) as typeof pg.types.getTypeParser,
};

async function openPostgres(databaseUrl: string, options: OpenDatabaseOptions, plugins: KyselyPlugin[]): Promise<DatabaseHandle> {
  // While the server is down or unreachable a request fails within seconds (a 503) instead of hanging.
  const connectionTimeoutMillis = options.connectionTimeoutMs ?? CONNECTION_TIMEOUT_MS;
  const pooler =
    options.pooler ??
    (await detectPooler(
      databaseUrl,
      { options: SESSION_LIMITS, setting: 'lock_timeout', expected: `${LOCK_TIMEOUT_MS / 1000}s` },
      connectionTimeoutMillis,
    ));
  const main = poolerSettings(pooler, SESSION_LIMITS);
  // Through PgBouncer the counters commit synchronously (README "PgBouncer").
  const counters = poolerSettings(pooler, '-c synchronous_commit=off');
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    types: PG_TYPES,
    connectionTimeoutMillis,
    ...(main.options ? { options: main.options } : {}),
  });
  const countersPool = new pg.Pool({
    connectionString: databaseUrl,
    max: COUNTERS_POOL_SIZE,
    types: PG_TYPES,
    connectionTimeoutMillis,
    ...(counters.options ? { options: counters.options } : {}),
  });
  // An idle connection can be closed by the server (restart, admin, network); the pool
  // replaces it on next use. Without a listener that event would end the process.
  for (const p of [pool, countersPool]) p.on('error', (error) => options.onIdleConnectionError?.(error));
  const db = new Kysely<Database>({
    dialect: transactionLockedMigrations(
      markingKeyedCommits(new PostgresDialect({ pool: new PreparedStatementPool(pool, main.namedStatements ? undefined : 0) })),
    ),
    plugins,
  });
  const countersDb = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: new PreparedStatementPool(countersPool, counters.namedStatements ? undefined : 0) }),
    plugins,
  });
  await migrateToLatest(db);
  const pools: Record<string, PoolUsage> = { main: pool, counters: countersPool };
  let standbyDb: Db | undefined;
  if (options.readStandby) {
    // Fails fast: an unreachable standby sends reads to the primary within a check or two.
    const readPool = new pg.Pool({ connectionString: options.readStandby.url, max: 4, types: PG_TYPES, connectionTimeoutMillis: 2_000 });
    readPool.on('error', (error) => options.onIdleConnectionError?.(error));
    standbyDb = new Kysely<Database>({ dialect: new PostgresDialect({ pool: readPool }), plugins });
    pools.read = readPool;
  }
  const reads = new StaleReads(db, standbyDb, options.readStandby ?? { maxLagMs: 0 });
  await reads.start();
  return {
    db,
    countersDb,
    reads,
    kind: 'postgres',
    pooler,
    pools,
    async close() {
      await reads.close();
      await countersDb.destroy();
      await db.destroy();
    },
  };
}
