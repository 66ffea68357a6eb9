import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { adminQuery, PGLITE_DUMP_ENV, TEMPLATE_DATABASE_ENV } from './database-template.js';

let pgliteDump: Blob | undefined;

/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or
 * a new database on the PostgreSQL server named by RENEW_TEST_POSTGRES_URL (set by `npm test` from TEST_DATABASE_URL) (dropped on close).
 * Under vitest it is a copy of the database the run migrated once (database-template.ts); without one, or with
 * `fresh`, an empty database migrated here.
 */
export async function createTestDatabase(options: { fresh?: boolean } = {}): Promise<DatabaseHandle> {
  const serverUrl = process.env.RENEW_TEST_POSTGRES_URL;
  if (!serverUrl) {
    const dumpFile = options.fresh ? undefined : process.env[PGLITE_DUMP_ENV];
    if (!dumpFile) return openDatabase({});
    pgliteDump ??= new Blob([readFileSync(dumpFile)]);
    return openDatabase({ loadDataDir: pgliteDump });
  }
  const name = `renew_test_${randomBytes(6).toString('hex')}`;
  const template = options.fresh ? undefined : process.env[TEMPLATE_DATABASE_ENV];
  await adminQuery(serverUrl, `create database ${name}${template ? ` template ${template}` : ''}`);
  // Through PgBouncer in transaction mode when one is given (RENEW_TEST_PGBOUNCER_URL, `npm test`'s PgBouncer
  // pass): the app's connections go through it, the database's creation and drop straight to the server.
  const pgbouncerUrl = process.env.RENEW_TEST_PGBOUNCER_URL;
  const url = new URL(pgbouncerUrl ?? serverUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.toString(), poolSize: 5, ...(pgbouncerUrl ? { pooler: 'pgbouncer' } : {}) });
  return {
    ...handle,
    async close() {
      await handle.close();
      await adminQuery(serverUrl, `drop database if exists ${name} with (force)`);
    },
  };
}
