import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { budgetLines, reportConnectionBudget, type ConnectionBudget } from '../../src/db/connection-budget.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import { createTestDatabase } from '../helpers/test-database.js';

const STALE_MS = 30_000;

/** What an instance says at start, collected. */
function lines() {
  const info: string[] = [];
  const warnings: string[] = [];
  return { info, warnings, log: { log: (line: string) => info.push(line), warn: (line: string) => warnings.push(line) } };
}

describe('the connection budget said at start', () => {
  let database: DatabaseHandle;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => database?.close());

  it('reads the pool size, the pooler and the instance count from the environment', () => {
    expect(loadConfig({})).toMatchObject({ databasePoolSize: 10, instances: 1 });
    expect(loadConfig({}).databasePooler).toBeUndefined();
    expect(loadConfig({ RENEW_DATABASE_POOL_SIZE: '3', RENEW_INSTANCES: '6', RENEW_DATABASE_POOLER: 'pgbouncer' })).toMatchObject({
      databasePoolSize: 3,
      instances: 6,
      databasePooler: 'pgbouncer',
    });
    expect(() => loadConfig({ RENEW_DATABASE_POOLER: 'pgpool' })).toThrow(/RENEW_DATABASE_POOLER/);
    expect(() => loadConfig({ RENEW_DATABASE_POOL_SIZE: '0' })).toThrow(/RENEW_DATABASE_POOL_SIZE/);
  });

  it('warns in one line when the instances would need more connections than the server allows', () => {
    const budget: ConnectionBudget = {
      pools: { main: 10, counters: 4 },
      perInstance: 14,
      configuredInstances: 6,
      liveInstances: 2,
      instances: 6,
      maxConnections: 40,
      reserved: 3,
      pooler: 'none',
      sessionLimitsSet: true,
    };
    const over = budgetLines(budget);
    expect(over.info).toContain('pools main 10, counters 4 = 14 per instance');
    expect(over.warnings).toEqual([
      expect.stringContaining(
        "6 instance(s) (RENEW_INSTANCES 6, 2 live with this one) × 14 connections = 84 exceed the server's max_connections 40 less 3 reserved = 37",
      ),
    ]);
    expect(budgetLines({ ...budget, maxConnections: 87 }).warnings).toEqual([]);
    // through PgBouncer the server's limit is PgBouncer's to keep; missing session limits are what it warns of
    const pooled = budgetLines({ ...budget, pooler: 'pgbouncer', sessionLimitsSet: false });
    expect(pooled.info).toContain('through PgBouncer');
    expect(pooled.warnings).toEqual([expect.stringContaining('no idle_in_transaction_session_timeout or lock_timeout')]);
  });

  it('counts the live instances when more run than RENEW_INSTANCES says (PostgreSQL; the embedded database has no pool)', async () => {
    const quiet = lines();
    const alone = await reportConnectionBudget(database, { instances: 1, staleAfterMs: STALE_MS }, quiet.log);
    if (database.kind === 'pglite') {
      expect(alone).toBeUndefined();
      expect([...quiet.info, ...quiet.warnings]).toEqual([]);
      return;
    }
    expect(alone).toMatchObject({ pools: { main: 5, counters: 4 }, perInstance: 9, instances: 1 });
    expect(quiet.info).toEqual([expect.stringMatching(/^database connections: .*= 9 (client connections )?per instance/)]);
    const available = alone!.maxConnections - alone!.reserved;
    // as many live heartbeats as would overflow the server by one instance, and one long stale (not counted)
    const others = Math.floor(available / 9);
    const rows = Array.from({ length: others }, (_, i) => ({ id: randomUUID(), role: 'api', host: 'elsewhere', pid: i + 1 }));
    await sql`insert into service_instances (id, role, host, pid) select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      as r(id text, role text, host text, pid int)`.execute(database.db);
    await sql`insert into service_instances (id, role, host, pid, heartbeat_at) values (${randomUUID()}, 'api', 'gone', 1, now() - interval '1 hour')`.execute(
      database.db,
    );
    const crowded = lines();
    const budget = await reportConnectionBudget(database, { instances: 1, staleAfterMs: STALE_MS }, crowded.log);
    expect(budget).toMatchObject({ liveInstances: others + 1, instances: others + 1 });
    if (database.pooler === 'pgbouncer') {
      // PgBouncer's pools, not the instances' sum, reach the server; its session limits are set (connect_query)
      expect(crowded.info).toEqual([expect.stringContaining(`through PgBouncer (transaction mode), pools main 5, counters 4`)]);
      expect(crowded.warnings).toEqual([]);
    } else expect(crowded.warnings).toEqual([expect.stringContaining(`${(others + 1) * 9} exceed the server's max_connections`)]);
  });
});
