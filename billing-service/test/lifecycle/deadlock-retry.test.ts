import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activate, listInvoices, newCustomer, newSubscription, readCustomer, readSubscription } from '../helpers/api-fixtures.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

/**
 * Waits until some statement of the test database waits for a lock, and returns the statements
 * waiting (bounded, so a wrong guess fails instead of hanging).
 */
async function someoneWaitsForALock(): Promise<string[]> {
  for (let polls = 0; polls < 400; polls++) {
    const { rows } = await sql<{
      query: string;
    }>`select query from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(t.database.db);
    if (rows.length > 0) return rows.map((r) => r.query);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('no statement started waiting for a lock');
}

describe('a transaction PostgreSQL fails to break a deadlock', () => {
  // PGlite has one connection: transactions never overlap, so no deadlock can be made there.
  it.skipIf(!process.env.RENEW_TEST_POSTGRES_URL)(
    'is an activation run again: the client gets its 200, and the customer is activated once',
    async () => {
      const customerId = await newCustomer(t);
      const subscriptionId = await newSubscription(t, customerId);

      // Another session (an instance taking the rows in the other order) holds the subscription, then wants the customer.
      let activation: ReturnType<typeof activate> | undefined;
      const other = t.database.db.transaction().execute(async (trx) => {
        // the side whose deadlock_timeout ends first finds the cycle and fails: make that the activation
        await sql`set local deadlock_timeout = '20s'`.execute(trx);
        await sql`select id from subscriptions where id = ${subscriptionId} for update`.execute(trx);
        // the activation locks the customer, then waits for the subscription
        activation = activate(t, customerId);
        await someoneWaitsForALock();
        await sql`select id from customers where id = ${customerId} for update`.execute(trx);
      });
      await other;
      const res = await activation!;
      expect(res.statusCode, res.body).toBe(200);
      expect((await readCustomer(t, customerId)).status).toBe('Active');
      expect(await listInvoices(t, customerId)).toHaveLength(1);
    },
  );

  it.skipIf(!process.env.RENEW_TEST_POSTGRES_URL)(
    'cannot happen between a subscription update and its customer: the update takes the customer first, as an activation does',
    async () => {
      const customerId = await newCustomer(t);
      const subscriptionId = await newSubscription(t, customerId);
      const read = await readSubscription(t, subscriptionId);
      let update: ReturnType<TestApp['call']> | undefined;
      let waiting: string[] = [];
      // another session holds the customer, as an activation does before it moves the subscriptions
      await t.database.db.transaction().execute(async (trx) => {
        await sql`select id from customers where id = ${customerId} for update`.execute(trx);
        update = t.call('PUT', '/v1/subscriptions', { ...read, reference: 'after the customer' });
        waiting = await someoneWaitsForALock();
      });
      expect(waiting).toHaveLength(1);
      expect(waiting[0]).toMatch(/from "customers" .* for update/);
      const res = await update!;
      expect(res.statusCode, res.body).toBe(200);
      expect((await readSubscription(t, subscriptionId)).reference).toBe('after the customer');
    },
  );
});
