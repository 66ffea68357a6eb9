import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryOnConflict, transactionWithRetry } from '../../src/db/conflict-retry.js';
import type { DatabaseHandle, Tx } from '../../src/db/database.js';
import { createTestDatabase } from '../helpers/test-database.js';

let database: DatabaseHandle;
beforeAll(async () => {
  database = await createTestDatabase();
  await sql`create table scratch_accounts (id integer primary key, balance integer not null)`.execute(database.db);
});
afterAll(async () => database?.close());

async function resetAccounts() {
  await sql`delete from scratch_accounts`.execute(database.db);
  await sql`insert into scratch_accounts (id, balance) values (1, 0), (2, 0)`.execute(database.db);
}

const balances = async () =>
  (await sql<{ id: number; balance: number }>`select id, balance from scratch_accounts order by id`.execute(database.db)).rows.map(
    (r) => r.balance,
  );

const addTo = (trx: Tx, id: number, amount: number) =>
  sql`update scratch_accounts set balance = balance + ${amount} where id = ${id}`.execute(trx);

/** Resolves once `count` parties have arrived. */
function barrier(count: number) {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return () => {
    if (++arrived === count) open();
    return opened;
  };
}

/**
 * Two transfers that update rows 1 and 2 in opposite orders, each waiting (on its first run)
 * until the other holds its first row: a deadlock PostgreSQL breaks by failing one of them.
 */
function opposedTransfers(runTransaction: <T>(fn: (trx: Tx) => Promise<T>) => Promise<T>) {
  const bothHoldOneRow = barrier(2);
  const runs = { forward: 0, backward: 0 };
  const transfer = (name: keyof typeof runs, from: number, to: number, amount: number) =>
    runTransaction(async (trx) => {
      runs[name] += 1;
      await addTo(trx, from, -amount);
      if (runs[name] === 1) await bothHoldOneRow();
      await addTo(trx, to, amount);
      return name;
    });
  return { runs, settled: Promise.allSettled([transfer('forward', 1, 2, 10), transfer('backward', 2, 1, 3)]) };
}

describe('transactions retried after a conflict', () => {
  it.skipIf(!process.env.RENEW_TEST_POSTGRES_URL)(
    'runs again the side of a deadlock PostgreSQL failed, and both transfers succeed once',
    async () => {
      // the scenario really deadlocks: without a retry one side fails with 40P01
      await resetAccounts();
      const unretried = opposedTransfers((fn) => database.db.transaction().execute(fn));
      const plain = await unretried.settled;
      expect(plain.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.code)).toEqual(['40P01']);

      await resetAccounts();
      const retried = opposedTransfers((fn) => transactionWithRetry(database.db, fn));
      const outcomes = await retried.settled;
      expect(outcomes).toEqual([
        { status: 'fulfilled', value: 'forward' },
        { status: 'fulfilled', value: 'backward' },
      ]);
      // one side ran twice; its first run was rolled back, so each transfer moved its amount once (10 one way, 3 back)
      expect(retried.runs.forward + retried.runs.backward).toBe(3);
      expect(await balances()).toEqual([-7, 7]);
    },
  );

  it("retries a serialization failure the database reports (either driver's error) and keeps only the last run's writes", async () => {
    await resetAccounts();
    let runs = 0;
    const retried: string[] = [];
    const result = await transactionWithRetry(
      database.db,
      async (trx) => {
        runs += 1;
        await addTo(trx, 1, 5);
        if (runs < 3) await sql`do $$ begin raise exception 'could not serialize access' using errcode = '40001'; end $$`.execute(trx);
        return runs;
      },
      { onRetry: (error) => retried.push((error as { code?: string }).code ?? 'no code') },
    );
    expect(result).toBe(3);
    expect(retried).toEqual(['40001', '40001']);
    expect(await balances()).toEqual([5, 0]);
  });

  it('does not retry any other error, and gives up after its attempts', async () => {
    await resetAccounts();
    let duplicateRuns = 0;
    await expect(
      transactionWithRetry(database.db, async (trx) => {
        duplicateRuns += 1;
        await sql`insert into scratch_accounts (id, balance) values (1, 0)`.execute(trx);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(duplicateRuns).toBe(1);

    let deadlockRuns = 0;
    await expect(
      retryOnConflict(
        async () => {
          deadlockRuns += 1;
          await sql`do $$ begin raise exception 'deadlock detected' using errcode = '40P01'; end $$`.execute(database.db);
        },
        { attempts: 3 },
      ),
    ).rejects.toMatchObject({ code: '40P01' });
    expect(deadlockRuns).toBe(3);
  });
});
