import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';

/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or
 * a new database on the PostgreSQL server named by RENEW_TEST_POSTGRES_URL (set by `npm test` from TEST_DATABASE_URL) (dropped on close).
 */
export async function createTestDatabase(): Promise<DatabaseHandle> {
  const serverUrl = process.env.RENEW_TEST_POSTGRES_URL;
  if (!serverUrl) return openDatabase({});
  const name = `renew_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.toString(), poolSize: 5 });
  return {
    ...handle,
    async close() {
      await handle.close();
      const dropper = new pg.Client({ connectionString: serverUrl });
      await dropper.connect();
      await dropper.query(`drop database if exists ${name} with (force)`);
      await dropper.end();
    },
  };
}
