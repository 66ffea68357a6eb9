import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { customersByPrimaryEmail, customersByPrimaryEmailQuery } from '../../src/portal/repository.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { newCustomer } from '../helpers/api-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe("the portal sign-in page's lookup by e-mail", () => {
  it('finds the customer by the first address of primary_email, without case', async () => {
    const customerId = await newCustomer(t, { primaryEmail: `Lookup.${Date.now()}@Example.com; other@example.com` });
    const draftEmail = `draft.${Date.now()}@example.com`;
    await newCustomer(t, { primaryEmail: draftEmail });
    // Past checkout: a Draft customer (anyone who starts a checkout creates one) is never found, so never signs in.
    await t.database.db.updateTable('customers').set({ status: 'Active' }).where('id', '=', customerId).execute();
    const [address] = (
      await t.database.db.selectFrom('customers').select('primaryEmail').where('id', '=', customerId).executeTakeFirstOrThrow()
    ).primaryEmail!.split(';');
    const found = await customersByPrimaryEmail(t.database.db, t.account.accountId, ` ${address!.toUpperCase()} `);
    expect(found.map((c) => c.id)).toEqual([customerId]);
    expect(await customersByPrimaryEmail(t.database.db, t.account.accountId, 'other@example.com')).toEqual([]);
    expect(await customersByPrimaryEmail(t.database.db, t.account.accountId, draftEmail)).toEqual([]);
  });

  it('reads customers through the index on the first address, not by scanning the table', async () => {
    const compiled = customersByPrimaryEmailQuery(t.database.db, t.account.accountId, 'someone@example.com').compile();
    const plan = await t.database.db.transaction().execute(async (trx) => {
      // Few rows in a test database: the planner is told to avoid a scan it would otherwise find cheaper.
      await sql`set local enable_seqscan = off`.execute(trx);
      const rows = await trx.executeQuery<Record<string, string>>({ ...compiled, sql: `explain ${compiled.sql}` });
      return rows.rows.map((r) => Object.values(r)[0]).join('\n');
    });
    expect(plan).toContain('customers_primary_email_first');
  });
});
