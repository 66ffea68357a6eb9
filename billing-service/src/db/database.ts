import { mkdirSync } from 'node:fs';
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';
import { CamelCasePlugin, Kysely, PostgresDialect, type Transaction } from 'kysely';
import pg from 'pg';
import { migrateToLatest } from './migrate.js';
import { PGliteDialect } from './pglite-dialect.js';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
/** Either the database or an open transaction: repositories accept both. */
export type Queryable = Db | Tx;

export interface DatabaseHandle {
  db: Db;
  kind: 'pglite' | 'postgres';
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** postgres://… selects a PostgreSQL server; otherwise the embedded database. */
  databaseUrl?: string;
  /** Folder of the embedded database; undefined keeps it in memory (tests). */
  dataDir?: string;
  poolSize?: number;
}

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

export async function openDatabase(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  const plugins = [new CamelCasePlugin()];
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      types: {
        getTypeParser: ((oid: number, format?: string) => {
          if (oid === INT8) return parseInt8;
          if (oid === NUMERIC || oid === DATE) return (v: string) => v;
          return pg.types.getTypeParser(oid, format as 'text');
        }) as typeof pg.types.getTypeParser,
      },
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins });
    await migrateToLatest(db);
    return { db, kind: 'postgres', close: () => db.destroy() };
  }
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const pglite = await PGlite.create({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    parsers: { [pgliteTypes.INT8]: parseInt8, [pgliteTypes.NUMERIC]: (v: string) => v, [pgliteTypes.DATE]: (v: string) => v },
  });
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite), plugins });
  await migrateToLatest(db);
  return { db, kind: 'pglite', close: () => db.destroy() };
}
