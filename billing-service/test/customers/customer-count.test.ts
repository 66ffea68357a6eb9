import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.js';
import { createCustomer, newCustomer } from '../helpers/api-fixtures.js';
import { customerTestCatalog } from './customer-fixtures.js';

// X-MaxCount (and X-Count without a filter) come from the per-account counts the
// customers table's triggers keep in the writing transaction (migration 0019).
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ catalog: customerTestCatalog() });
});
afterAll(async () => t?.close());

async function counts(account: TestAccount, query = '') {
  const res = await t.call('GET', `/v1/customers?pageSize=1${query ? `&query=${query}` : ''}`, undefined, { as: account });
  expect(res.statusCode, res.body).toBe(200);
  return { count: Number(res.headers['x-count']), maxCount: Number(res.headers['x-maxcount']) };
}

async function storedCustomers(account: TestAccount): Promise<number> {
  const row = await t.database.db
    .selectFrom('customers')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('accountId', '=', account.accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('GET /v1/customers: the maintained customer count', () => {
  it('starts at 0 and follows each creation, per account', async () => {
    const first = await t.newAccount();
    const second = await t.newAccount();
    expect(await counts(first)).toEqual({ count: 0, maxCount: 0 });
    for (let i = 0; i < 3; i++) await newCustomer(t, { lastName: `First${i}` }, first);
    await newCustomer(t, { lastName: 'Second' }, second);
    expect(await counts(first)).toEqual({ count: 3, maxCount: 3 });
    expect(await counts(second)).toEqual({ count: 1, maxCount: 1 });
    // with a filter, X-Count is counted and X-MaxCount still the account's customers
    expect(await counts(first, 'LastName:First1')).toEqual({ count: 1, maxCount: 3 });
  });

  it('stays exact over concurrent creations and a second instance', async () => {
    const account = await t.newAccount();
    await Promise.all(Array.from({ length: 12 }, (_, i) => newCustomer(t, { lastName: `Parallel${i}` }, account)));
    const other = await t.buildAnotherApp();
    try {
      const res = await other.inject({
        method: 'POST',
        url: '/v1/customers',
        payload: { lastName: 'Elsewhere' },
        headers: { authorization: basicAuth(account.apiKey) },
      });
      expect(res.statusCode, res.body).toBe(200);
    } finally {
      await other.close();
    }
    expect(await counts(account)).toEqual({ count: 13, maxCount: 13 });
    expect(await storedCustomers(account)).toBe(13);
  });

  it('does not count a creation that failed', async () => {
    const account = await t.newAccount();
    await createCustomer(t, { lastName: 'Taken', portalUserName: 'taken' }, account);
    const duplicate = await t.call('POST', '/v1/customers', { lastName: 'Again', portalUserName: 'taken' }, { as: account });
    expect(duplicate.statusCode).toBe(400);
    // a transaction that inserted a customer (its trigger ran) and then rolled back
    await expect(
      t.database.db.transaction().execute(async (trx) => {
        await trx.insertInto('customers').values({ accountId: account.accountId, currency: 'USD', lastName: 'Rolled back' }).execute();
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await counts(account)).toEqual({ count: 1, maxCount: 1 });
  });

  it('counts bulk inserts per account, deletions and a customer moved to another account', async () => {
    const first = await t.newAccount();
    const second = await t.newAccount();
    const db = t.database.db;
    // one statement inserting for two accounts: one count per account
    await sql`
      insert into customers (account_id, currency, last_name)
      select case when i % 3 = 0 then ${second.accountId}::int else ${first.accountId}::int end, 'USD', 'Bulk ' || i
      from generate_series(1, 9) as i
    `.execute(db);
    expect(await counts(first)).toEqual({ count: 6, maxCount: 6 });
    expect(await counts(second)).toEqual({ count: 3, maxCount: 3 });
    await db.deleteFrom('customers').where('accountId', '=', first.accountId).where('lastName', 'in', ['Bulk 1', 'Bulk 2']).execute();
    const moved = await db
      .selectFrom('customers')
      .select('id')
      .where('accountId', '=', first.accountId)
      .where('lastName', '=', 'Bulk 4')
      .executeTakeFirstOrThrow();
    await db.updateTable('customers').set({ accountId: second.accountId }).where('id', '=', moved.id).execute();
    // an update that keeps the account changes nothing
    await db.updateTable('customers').set({ firstName: 'Renamed' }).where('accountId', '=', second.accountId).execute();
    expect(await counts(first)).toEqual({ count: 3, maxCount: 3 });
    expect(await counts(second)).toEqual({ count: 4, maxCount: 4 });
    expect([await storedCustomers(first), await storedCustomers(second)]).toEqual([3, 4]);
  });
});
