import { PostgresAdapter, sql, type Dialect, type Kysely } from 'kysely';
import pg from 'pg';

/**
 * What stands between Renew and PostgreSQL. `none`: a direct connection (or a pooler in session
 * mode), so each pooled connection is one server session. `pgbouncer`: PgBouncer in transaction
 * mode (RENEW_DATABASE_POOLER=pgbouncer), where consecutive transactions of one client connection
 * may run on different server sessions, so nothing may outlive a transaction: no named prepared
 * statements (PgBouncer 1.18 cannot carry them), no startup `options` (PgBouncer refuses unknown
 * startup parameters), no session advisory locks, no SET. Renew uses no LISTEN/NOTIFY, temporary
 * table, cursor or session SET at all; its advisory locks are transaction-level (see migration lock below).
 */
export type Pooler = 'none' | 'pgbouncer';

/** How one pg.Pool is set up for a pooler: its startup options, and whether statements may be named. */
export interface PoolerSettings {
  /** The startup `options` (`-c name=value …`), or undefined to send none. */
  options: string | undefined;
  /** Whether parameterised statements are prepared by name once per connection (PreparedStatementPool). */
  namedStatements: boolean;
}

/**
 * Through PgBouncer the session settings come from PgBouncer's `connect_query` or the role's settings
 * (README "PgBouncer"), never from the startup packet; on a direct connection from `options`.
 */
export function poolerSettings(pooler: Pooler, sessionOptions: string): PoolerSettings {
  return pooler === 'pgbouncer' ? { options: undefined, namedStatements: false } : { options: sessionOptions, namedStatements: true };
}

/** PgBouncer's refusal of a startup parameter it does not know (unless listed in `ignore_startup_parameters`). */
const REFUSED_STARTUP_PARAMETER = /^unsupported startup parameter/;

/**
 * Unset RENEW_DATABASE_POOLER: one connection at start finds out. PgBouncer (by default) refuses the
 * `options` startup parameter: that is PgBouncer. A pooler told to ignore it drops it silently: the
 * setting then differs from what was asked, since a startup option outranks every other source of a
 * setting (server file, database, role); that is a pooler too. Any other failure is the caller's
 * (the server is down: the start fails as it would have at the migrations).
 */
export async function detectPooler(
  databaseUrl: string,
  probe: { options: string; setting: string; expected: string },
  connectionTimeoutMillis: number,
): Promise<Pooler> {
  const client = new pg.Client({ connectionString: databaseUrl, options: probe.options, connectionTimeoutMillis });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    if (error instanceof Error && REFUSED_STARTUP_PARAMETER.test(error.message)) return 'pgbouncer';
    throw error;
  }
  try {
    const { rows } = await client.query<{ value: string }>('select current_setting($1) as value', [probe.setting]);
    return rows[0]?.value === probe.expected ? 'none' : 'pgbouncer';
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Kysely's migration lock id (its PostgresAdapter), kept so that older and newer instances still exclude each other. */
const MIGRATION_LOCK_ID = sql.lit(BigInt('3853314791062309107'));

/**
 * Kysely takes its migration lock with a session-level pg_advisory_lock before the migration transaction
 * and unlocks after it. Through PgBouncer in transaction mode the three may run on different server
 * sessions: the unlock misses and the lock stays with a pooled server session, so the next start waits
 * for it. Here the lock is transaction-level: a transaction is opened before Kysely's (whose `begin`
 * is then a harmless no-op warning) and the lock goes with its commit or rollback.
 */
class TransactionLockAdapter extends PostgresAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`begin`.execute(db);
    await sql`with t as (select set_config('lock_timeout', '3600000', true)) select pg_advisory_xact_lock(${MIGRATION_LOCK_ID}) from t`.execute(
      db,
    );
  }

  override async releaseMigrationLock(db: Kysely<unknown>): Promise<void> {
    // Kysely's transaction ended the one opened above (committed or rolled back); this only ends it when
    // Kysely failed before opening its own, so the connection is never handed back inside a transaction.
    await sql`rollback`.execute(db);
  }
}

/** `dialect` with its migrations locked per transaction (TransactionLockAdapter). */
export function transactionLockedMigrations(dialect: Dialect): Dialect {
  return {
    createAdapter: () => new TransactionLockAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => dialect.createDriver(),
  };
}
