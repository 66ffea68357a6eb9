import { PGlite } from '@electric-sql/pglite';
import { CamelCasePlugin, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { PGliteDialect } from '../../src/db/pglite-dialect.js';
import { PLAN_EACH_CALL, PreparedStatementPool } from '../../src/db/prepared-statements.js';
import { reusableQuery } from '../../src/db/reusable-query.js';
import type { Database } from '../../src/db/schema.js';
import { createTestDatabase } from '../helpers/test-database.js';

// Every parameterised query runs as a named prepared statement (PostgreSQL pool and
// PGlite driver alike); these tests pin the behaviour the rest of the code relies on.
let database: DatabaseHandle;
beforeAll(async () => {
  database = await createTestDatabase();
  await sql`create table scratch_statements (id integer primary key, label text, amount numeric, at timestamptz)`.execute(database.db);
});
afterAll(async () => database?.close());

const insert = (id: number, label: string) =>
  sql`insert into scratch_statements (id, label, amount, at) values (${id}, ${label}, ${'12.30'}, ${new Date('2026-01-02T03:04:05Z')})`;

describe('prepared statements', () => {
  it('runs one statement many times with different values and parses every type as before', async () => {
    for (let i = 1; i <= 30; i++) await insert(i, `row ${i}`).execute(database.db);
    for (const id of [1, 17, 30]) {
      const { rows } = await sql<{
        id: number;
        label: string;
        amount: string;
        at: Date;
      }>`select * from scratch_statements where id = ${id}`.execute(database.db);
      expect(rows).toEqual([{ id, label: `row ${id}`, amount: '12.30', at: new Date('2026-01-02T03:04:05Z') }]);
    }
    const nulls = await sql<{ v: string | null }>`select ${null}::text as v`.execute(database.db);
    expect(nulls.rows).toEqual([{ v: null }]);
  });

  it('reports the rows an update or a delete changed', async () => {
    const updated = await database.db
      .updateTable('scratch_statements' as never)
      .set({ label: 'changed' } as never)
      .where('id' as never, '<=', 5 as never)
      .executeTakeFirst();
    expect(updated.numUpdatedRows).toBe(5n);
    const deleted = await database.db
      .deleteFrom('scratch_statements' as never)
      .where('id' as never, '>', 28 as never)
      .executeTakeFirst();
    expect(deleted.numDeletedRows).toBe(2n);
  });

  it('keeps the error code of a failed execution and stays usable, in and out of transactions', async () => {
    await expect(insert(1, 'again').execute(database.db)).rejects.toMatchObject({ code: '23505' });
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from scratch_statements where id < ${100}`.execute(database.db);
    expect(rows[0]!.n).toBe(28);
    await expect(
      database.db.transaction().execute(async (tx) => {
        await insert(500, 'inside').execute(tx);
        await insert(1, 'duplicate').execute(tx);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    const after = await sql<{ id: number }>`select id from scratch_statements where id = ${500}`.execute(database.db);
    expect(after.rows).toEqual([]);
  });

  it('does not keep a statement that failed to prepare', async () => {
    const query = (id: number) => sql<{ id: number }>`select id from scratch_later where id = ${id}`;
    await expect(query(1).execute(database.db)).rejects.toMatchObject({ code: '42P01' });
    await sql`create table scratch_later (id integer primary key)`.execute(database.db);
    await sql`insert into scratch_later (id) values (${7})`.execute(database.db);
    expect((await query(7).execute(database.db)).rows).toEqual([{ id: 7 }]);
  });

  it('prepares parameterised statements once per session, except those marked to be planned on each call', async () => {
    const statementsLike = (tx: typeof database.db, fragment: string) =>
      sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements where statement like ${`%${fragment}%`}`.execute(tx);
    await database.db.transaction().execute(async (tx) => {
      for (let i = 0; i < 3; i++) {
        await sql`select label as prepared_probe from scratch_statements where id = ${i}`.execute(tx);
        await sql`select label as planned_probe from scratch_statements where id = ${i}${PLAN_EACH_CALL}`.execute(tx);
      }
      // through PgBouncer in transaction mode none is named: the next transaction may run on another session
      expect((await statementsLike(tx, 'prepared_probe')).rows[0]!.n).toBe(database.pooler === 'pgbouncer' ? 0 : 1);
      expect((await statementsLike(tx, 'planned_probe')).rows[0]!.n).toBe(0);
    });
  });

  it('runs a reusable query with each call’s values, inside a transaction too', async () => {
    const labelOf = reusableQuery((db, id: number, minimum: number) =>
      db
        .selectFrom('scratch_statements' as never)
        .select('label' as never)
        .where('id' as never, '=', id as never)
        .where('id' as never, '>=', minimum as never),
    );
    expect(await labelOf(database.db, 10, 0)).toEqual([{ label: 'row 10' }]);
    expect(await labelOf(database.db, 11, 0)).toEqual([{ label: 'row 11' }]);
    expect(await labelOf(database.db, 11, 12)).toEqual([]);
    await database.db.transaction().execute(async (tx) => {
      await insert(600, 'uncommitted').execute(tx);
      expect(await labelOf(tx, 600, 0)).toEqual([{ label: 'uncommitted' }]);
    });
  });
});

describe('transactions: the begin goes with the first statement', () => {
  // On PostgreSQL a plain begin is sent in one write with the transaction's first
  // parameterised statement (prepared-statements.ts); these pin what must not change.
  const count = async (db: typeof database.db, from: number, to: number) =>
    (await sql<{ n: number }>`select count(*)::int as n from scratch_statements where id between ${from} and ${to}`.execute(db)).rows[0]!.n;

  it('commits the statements of a transaction, and rolls all of them back on an error in a later one', async () => {
    await database.db.transaction().execute(async (tx) => {
      await insert(700, 'first').execute(tx);
      await insert(701, 'second').execute(tx);
    });
    expect(await count(database.db, 700, 701)).toBe(2);
    await expect(
      database.db.transaction().execute(async (tx) => {
        await insert(702, 'kept until the error').execute(tx);
        await insert(700, 'duplicate').execute(tx);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await count(database.db, 702, 702)).toBe(0);
  });

  it('holds the first statement in the transaction: a rollback after it undoes it', async () => {
    await expect(
      database.db.transaction().execute(async (tx) => {
        await insert(710, 'first statement').execute(tx);
        expect(await count(tx, 710, 710)).toBe(1);
        throw new Error('rolled back on purpose');
      }),
    ).rejects.toThrow('rolled back on purpose');
    expect(await count(database.db, 710, 710)).toBe(0);
  });

  it('survives an error in the first statement, and a statement that failed to prepare there runs once its table exists', async () => {
    await expect(
      database.db.transaction().execute(async (tx) => {
        await insert(700, 'duplicate first').execute(tx);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    const probe = (id: number) => sql<{ id: number }>`select id from scratch_first_later where id = ${id}`;
    await expect(database.db.transaction().execute(async (tx) => probe(1).execute(tx))).rejects.toMatchObject({ code: '42P01' });
    await sql`create table scratch_first_later (id integer primary key)`.execute(database.db);
    await sql`insert into scratch_first_later (id) values (${3})`.execute(database.db);
    // every connection of the pool, whichever ran the failed parse
    for (let i = 0; i < 4; i++) {
      expect((await database.db.transaction().execute(async (tx) => probe(3).execute(tx))).rows).toEqual([{ id: 3 }]);
    }
    expect(await count(database.db, 700, 701)).toBe(2);
  });

  it('commits an empty transaction and one whose only statement has no parameters', async () => {
    await database.db.transaction().execute(async () => undefined);
    const { rows } = await database.db.transaction().execute(async (tx) => sql<{ one: number }>`select 1 as one`.execute(tx));
    expect(rows).toEqual([{ one: 1 }]);
    await database.db.transaction().execute(async (tx) => {
      await sql`insert into scratch_statements (id, label) values (720, 'no parameters')`.execute(tx);
      await insert(721, 'then one with parameters').execute(tx);
    });
    expect(await count(database.db, 720, 721)).toBe(2);
  });

  it('keeps each transaction to itself under concurrency', async () => {
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        database.db
          .transaction()
          .execute(async (tx) => {
            await insert(800 + i, `parallel ${i}`).execute(tx);
            if (i % 3 === 0) throw new Error('roll back this one');
          })
          .catch(() => undefined),
      ),
    );
    expect(await count(database.db, 800, 811)).toBe(8);
  });
});

describe('reusableQuery', () => {
  it('refuses, on first use, a builder that looks inside an argument instead of using it as a value', async () => {
    const byObject = reusableQuery((db, row: { id: number }) =>
      db
        .selectFrom('scratch_statements' as never)
        .select('label' as never)
        .where('id' as never, '=', row.id as never),
    );
    await expect(byObject(database.db, { id: 1 })).rejects.toThrow(/every argument must be used as a value/);
  });
});

describe('the cap on distinct prepared statements', () => {
  it('runs texts past the cap unprepared, with the same results', async () => {
    let db: Kysely<Database>;
    let close: () => Promise<void>;
    const serverUrl = process.env.RENEW_TEST_POSTGRES_URL;
    if (serverUrl) {
      const pool = new pg.Pool({ connectionString: serverUrl, max: 2 });
      db = new Kysely<Database>({
        dialect: new PostgresDialect({ pool: new PreparedStatementPool(pool, 2) }),
        plugins: [new CamelCasePlugin()],
      });
      close = () => db.destroy();
    } else {
      const pglite = await PGlite.create();
      db = new Kysely<Database>({ dialect: new PGliteDialect(pglite, { maxPreparedStatements: 2 }), plugins: [new CamelCasePlugin()] });
      close = () => db.destroy();
    }
    try {
      for (let round = 0; round < 2; round++) {
        for (let k = 1; k <= 5; k++) {
          const { rows } = await sql<{
            sumValue: number;
          }>`select ${k}::int + ${round}::int as sum_value, ${`text ${k}`}::text as t`.execute(db);
          expect(rows).toEqual([{ sumValue: k + round, t: `text ${k}` }]);
        }
      }
    } finally {
      await close();
    }
  });
});
