import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle, Db } from '../../src/db/database.js';
import { KNOWN_MIGRATIONS, pendingMigrations } from '../../src/db/migrate.js';
import { PGLITE_DUMP_ENV, TEMPLATE_DATABASE_ENV } from '../helpers/database-template.js';
import { createTestDatabase } from '../helpers/test-database.js';

// Test apps start from a copy of one database the run migrated (helpers/database-template.ts): the copy must be
// exactly what migrating a fresh database gives, or every other test would run on a schema production never has.
const POSTGRES_URL = process.env.RENEW_TEST_POSTGRES_URL;

/** Tables, columns, indexes, constraints, triggers, functions and applied migrations, as text. */
async function schemaOf(db: Db): Promise<unknown[]> {
  const queries = [
    sql`select table_name, column_name, data_type, is_nullable, column_default from information_schema.columns
        where table_schema = 'public' order by 1, 2`,
    sql`select indexname, indexdef from pg_indexes where schemaname = 'public' order by 1`,
    sql`select conrelid::regclass::text as rel, conname, pg_get_constraintdef(oid) as def from pg_constraint
        where connamespace = 'public'::regnamespace order by 1, 2`,
    sql`select tgname, pg_get_triggerdef(oid) as def from pg_trigger where not tgisinternal order by 1, 2`,
    sql`select proname, pg_get_functiondef(oid) as def from pg_proc where pronamespace = 'public'::regnamespace order by 1, 2`,
    sql`select name from kysely_migration order by name`,
  ];
  return Promise.all(queries.map(async (query) => (await query.execute(db)).rows));
}

describe('the migrated copy test apps start from', () => {
  let copy: DatabaseHandle;
  let fresh: DatabaseHandle;
  beforeAll(async () => {
    copy = await createTestDatabase();
    fresh = await createTestDatabase({ fresh: true });
  });
  afterAll(async () => {
    await copy?.close();
    await fresh?.close();
  });

  it('is in use under vitest: the run built one (a dump for PGlite, a template database on PostgreSQL)', () => {
    expect(process.env[POSTGRES_URL ? TEMPLATE_DATABASE_ENV : PGLITE_DUMP_ENV]).toMatch(POSTGRES_URL ? /^renew_template_/ : /pgdata\.tar$/);
  });

  it('has every migration recorded, so the start-up migration check passes', async () => {
    expect(await pendingMigrations(copy.db)).toEqual([]);
    const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(copy.db);
    expect(rows.map((row) => row.name)).toEqual([...KNOWN_MIGRATIONS]);
  });

  it('has the schema a freshly migrated database has', async () => {
    const [copied, migrated] = [await schemaOf(copy.db), await schemaOf(fresh.db)];
    expect((migrated[0] as unknown[]).length).toBeGreaterThan(100);
    expect(copied).toEqual(migrated);
  });
});
