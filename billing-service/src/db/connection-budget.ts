import { sql } from 'kysely';
import type { DatabaseHandle } from './database.js';

/**
 * What one instance's pools may open, and what the server allows, said once at start (README "Sizing
 * the connections"). Each instance holds up to the sum of its pools' maximums; the server accepts
 * `max_connections` less the slots kept for superusers (`superuser_reserved_connections`, and
 * `reserved_connections` from PostgreSQL 16). Past that a new connection is refused (53300) and the
 * request that needed it answers 503: with six instances of 14 and `max_connections` 40 nearly a
 * quarter of requests failed, silently.
 */
export interface ConnectionBudget {
  /** Each pool's maximum, by name (main, counters, and any other the handle has). */
  pools: Record<string, number>;
  perInstance: number;
  /** RENEW_INSTANCES. */
  configuredInstances: number;
  /** Instances whose heartbeat is fresh now, this starting one included. */
  liveInstances: number;
  /** The larger of the two: what is counted. */
  instances: number;
  maxConnections: number;
  reserved: number;
  pooler: 'none' | 'pgbouncer';
  /** Through PgBouncer: whether the server sessions carry the session limits (its connect_query, or the role's settings). */
  sessionLimitsSet: boolean;
}

interface ServerRow {
  maxConnections: number;
  reserved: number;
  live: number;
  idleLimit: string;
  lockLimit: string;
}

/** The figures, from the handle's pools and one query (PostgreSQL only; the embedded database has no pool). */
export async function connectionBudget(
  database: DatabaseHandle,
  settings: { instances: number; staleAfterMs: number },
): Promise<ConnectionBudget | undefined> {
  if (database.kind !== 'postgres' || !database.pools) return undefined;
  // pg.Pool keeps its settings in `options`; PoolUsage names only the counts.
  const pools = Object.fromEntries(
    Object.entries(database.pools).map(([name, pool]) => [name, (pool as { options?: { max?: number } }).options?.max ?? 10]),
  );
  const { rows } = await sql<ServerRow>`
    select current_setting('max_connections')::int as max_connections,
      current_setting('superuser_reserved_connections')::int + coalesce(current_setting('reserved_connections', true), '0')::int as reserved,
      (select count(*)::int from service_instances where heartbeat_at > now() - ${settings.staleAfterMs} * interval '1 millisecond') as live,
      current_setting('idle_in_transaction_session_timeout') as idle_limit,
      current_setting('lock_timeout') as lock_limit`.execute(database.db);
  const server = rows[0];
  if (!server) return undefined;
  const perInstance = Object.values(pools).reduce((sum, max) => sum + max, 0);
  // this instance has not beaten yet: the rows are the others'
  const liveInstances = server.live + 1;
  return {
    pools,
    perInstance,
    configuredInstances: settings.instances,
    liveInstances,
    instances: Math.max(settings.instances, liveInstances),
    maxConnections: server.maxConnections,
    reserved: server.reserved,
    pooler: database.pooler ?? 'none',
    sessionLimitsSet: server.idleLimit !== '0' && server.lockLimit !== '0',
  };
}

/** The start's log: one line of figures, and a warning line when the instances would not fit (or, through PgBouncer, the limits are missing). */
export function budgetLines(budget: ConnectionBudget): { info: string; warnings: string[] } {
  const pools = Object.entries(budget.pools)
    .map(([name, max]) => `${name} ${max}`)
    .join(', ');
  const available = budget.maxConnections - budget.reserved;
  const needed = budget.instances * budget.perInstance;
  const counted = `${budget.instances} instance(s) (RENEW_INSTANCES ${budget.configuredInstances}, ${budget.liveInstances} live with this one)`;
  const server = `the server's max_connections ${budget.maxConnections} less ${budget.reserved} reserved = ${available}`;
  const warnings: string[] = [];
  if (budget.pooler === 'pgbouncer') {
    if (!budget.sessionLimitsSet)
      warnings.push(
        'database: through PgBouncer the sessions have no idle_in_transaction_session_timeout or lock_timeout: set them in its connect_query or on the role (README "PgBouncer"), or a frozen process can hold locks without end',
      );
    return {
      info: `database connections: through PgBouncer (transaction mode), pools ${pools} = ${budget.perInstance} client connections per instance; ${counted} open up to ${needed} to PgBouncer (its max_client_conn must allow them); the server's connections are PgBouncer's pools, within ${server}`,
      warnings,
    };
  }
  if (needed > available)
    warnings.push(
      `database: ${counted} × ${budget.perInstance} connections = ${needed} exceed ${server}: requests will be refused (503) under load; lower RENEW_DATABASE_POOL_SIZE, raise max_connections, or put PgBouncer in front (README "Sizing the connections")`,
    );
  return {
    info: `database connections: pools ${pools} = ${budget.perInstance} per instance; ${counted} need up to ${needed} of ${server}`,
    warnings,
  };
}

/** Logs the budget at start; a failure to read it is said and does not stop the start. */
export async function reportConnectionBudget(
  database: DatabaseHandle,
  settings: { instances: number; staleAfterMs: number },
  log: Pick<Console, 'log' | 'warn'> = console,
): Promise<ConnectionBudget | undefined> {
  try {
    const budget = await connectionBudget(database, settings);
    if (!budget) return undefined;
    const { info, warnings } = budgetLines(budget);
    log.log(info);
    for (const warning of warnings) log.warn(warning);
    return budget;
  } catch (error) {
    log.warn(`database: the connection budget could not be read (${(error as Error).message})`);
    return undefined;
  }
}
