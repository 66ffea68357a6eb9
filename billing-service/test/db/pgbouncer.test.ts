import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { KNOWN_MIGRATIONS } from '../../src/db/migrate.js';
import { PostgresRateLimitStore } from '../../src/http/rate-limit.js';
import { adminQuery } from '../helpers/database-template.js';
import { BASE_URL, basicAuth, startTestApp, type TestApp } from '../helpers/test-app.js';

// The server itself (creating and dropping databases, looking at its sessions), and PgBouncer in transaction
// mode in front of it when `npm test` runs its PgBouncer pass (TEST_PGBOUNCER_URL, .ci/run).
const POSTGRES_URL = process.env.RENEW_TEST_POSTGRES_URL;
const PGBOUNCER_URL = process.env.RENEW_TEST_PGBOUNCER_URL;

function urlOf(base: string, database: string): string {
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
}

async function onServer<T extends pg.QueryResultRow>(database: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: urlOf(POSTGRES_URL!, database) });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

describe.runIf(POSTGRES_URL)('migrations started by several instances at once (through PgBouncer when given)', () => {
  const name = `renew_test_${randomBytes(6).toString('hex')}`;
  const handles: DatabaseHandle[] = [];
  afterAll(async () => {
    for (const handle of handles) await handle.close();
    await adminQuery(POSTGRES_URL!, `drop database if exists ${name} with (force)`);
  });

  it('run once, and leave no advisory lock on any server session', async () => {
    await adminQuery(POSTGRES_URL!, `create database ${name}`);
    // Kysely's own lock is a session lock taken, used and let go in three transactions: through PgBouncer
    // they may land on three server sessions. Renew's is a transaction lock (db/pooler.ts).
    const url = urlOf(PGBOUNCER_URL ?? POSTGRES_URL!, name);
    const opened = await Promise.all([1, 2, 3].map(() => openDatabase({ databaseUrl: url, poolSize: 2 })));
    handles.push(...opened);
    const applied = await onServer<{ name: string }>(name, 'select name from kysely_migration order by name');
    expect(applied.map((row) => row.name)).toEqual([...KNOWN_MIGRATIONS]);
    const locks = await onServer<{ n: number }>(
      name,
      "select count(*)::int as n from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())",
    );
    expect(locks[0]!.n).toBe(0);
    // a later start waits for nobody
    handles.push(await openDatabase({ databaseUrl: url, poolSize: 1 }));
  });
});

describe.runIf(POSTGRES_URL && PGBOUNCER_URL)('PgBouncer in transaction mode', () => {
  let t: TestApp;
  let second: DatabaseHandle;
  let other: FastifyInstance;
  let name: string;
  beforeAll(async () => {
    t = await startTestApp();
    name = (await sql<{ name: string }>`select current_database() as name`.execute(t.database.db)).rows[0]!.name;
    // A second instance on the same database, with its own pools: its statements and the first's share PgBouncer's server sessions.
    second = await openDatabase({ databaseUrl: urlOf(PGBOUNCER_URL!, name), poolSize: 5, pooler: 'pgbouncer' });
    other = await buildApp({
      db: second.db,
      catalog: t.catalog,
      rateLimitStore: new PostgresRateLimitStore(second.countersDb),
      publicBaseUrl: BASE_URL,
    });
  });
  afterAll(async () => {
    await other?.close();
    await second?.close();
    await t?.close();
  });

  const call = (app: FastifyInstance, method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) =>
    app.inject({
      method,
      url,
      headers: { authorization: basicAuth(t.account.apiKey), 'content-type': 'application/json' },
      ...(payload === undefined ? {} : { payload }),
    });

  it('is detected when RENEW_DATABASE_POOLER is unset: it refuses, or drops, the startup options', async () => {
    const through = await openDatabase({ databaseUrl: urlOf(PGBOUNCER_URL!, name), poolSize: 1 });
    const direct = await openDatabase({ databaseUrl: urlOf(POSTGRES_URL!, name), poolSize: 1 });
    try {
      expect(through.pooler).toBe('pgbouncer');
      expect(direct.pooler).toBe('none');
    } finally {
      await through.close();
      await direct.close();
    }
  });

  it('serves two instances whose statements interleave on shared server sessions (named statements would collide)', async () => {
    // Statement names are given per process (renew_1, renew_2 …): prepared by name, one instance's renew_1 would
    // be found on a server session where the other's is already prepared, or missing where it was prepared before.
    const apps = [t.app, other];
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) {
      const created = await call(apps[i % 2]!, 'POST', '/v1/customers', {
        firstName: `Pooled ${i}`,
        lastName: 'Bouncer',
        email: `pooled${i}@example.com`,
      });
      expect(created.statusCode, created.body).toBe(200);
      ids.push(created.json().id);
      const read = await call(apps[(i + 1) % 2]!, 'GET', `/v1/customers/${created.json().id}`);
      expect(read.statusCode, read.body).toBe(200);
      expect(read.json().firstName).toBe(`Pooled ${i}`);
    }
    // at once: both instances' pools busy together
    const answers = await Promise.all(ids.flatMap((id) => apps.map((app) => call(app, 'GET', `/v1/customers/${id}`))));
    expect(answers.map((answer) => answer.statusCode)).toEqual(answers.map(() => 200));
  });

  it('gives every server session the session limits from PgBouncer (connect_query), not from startup options', async () => {
    const limits = await sql<{ idle: string; lock: string }>`
      select current_setting('idle_in_transaction_session_timeout') as idle, current_setting('lock_timeout') as lock`.execute(
      t.database.db,
    );
    expect(limits.rows).toEqual([{ idle: '30s', lock: '20s' }]);
  });
});
