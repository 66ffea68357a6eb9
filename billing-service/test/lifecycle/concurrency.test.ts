import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { deposit, isoDate, ledgerRows, subscriptionRows } from './lifecycle-fixtures.js';
import {
  activate,
  activeCustomer,
  cancel,
  hold,
  listInvoices,
  newCustomer,
  newSubscription,
  readCustomer,
  readOverview,
  unhold,
} from '../helpers/api-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const ROUNDS = 4;

function statuses(responses: Array<{ statusCode: number }>) {
  return responses.map((r) => r.statusCode).sort();
}

describe('concurrent lifecycle requests on one customer', () => {
  it('two activations at once: exactly one 200 and one 400, one invoice, the deposit used once', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const customerId = await newCustomer(t);
      await newSubscription(t, customerId);
      await deposit(t, customerId, '50.00');
      const responses = await Promise.all([
        activate(t, customerId, undefined, '?view=sideeffects'),
        activate(t, customerId, undefined, '?view=sideeffects'),
      ]);
      expect(statuses(responses), responses.map((r) => r.body).join('\n')).toEqual([200, 400]);
      const loser = responses.find((r) => r.statusCode === 400)!;
      expect(loser.json().Errors[0].Value).toBe('cannot process since status is Active');
      const invoices = await listInvoices(t, customerId);
      expect(invoices).toHaveLength(1);
      expect(invoices[0]).toMatchObject({ status: 'Paid', totalPayments: 29.99 });
      expect((await ledgerRows(t, customerId)).filter((e) => e.entryType === 'invoice')).toHaveLength(1);
      expect(await readOverview(t, customerId)).toMatchObject({ status: 'Active', arBalance: 0, unallocatedPayments: 20.01 });
    }
  });

  it('hold and cancel at once: one order wins and the state is consistent (Cancelled, nothing left suspended)', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { customerId } = await activeCustomer(t);
      const [held, cancelled] = await Promise.all([hold(t, customerId), cancel(t, customerId, 'Full')]);
      // Cancelling is allowed from Hold, so either hold then cancel both apply in turn,
      // or cancel wins and hold is refused.
      expect(cancelled.statusCode, cancelled.body).toBe(204);
      if (held.statusCode !== 200) {
        expect(held.statusCode, held.body).toBe(400);
        expect(held.json().Errors[0].Value).toBe('cannot process since status is Cancelled');
      } else {
        expect(held.json().status).toBe('Hold');
      }
      expect((await readCustomer(t, customerId)).status).toBe('Cancelled');
      for (const row of await subscriptionRows(t, customerId))
        expect(row).toMatchObject({ status: 'Cancelled', cancellationOption: 'Full' });
      expect((await ledgerRows(t, customerId)).filter((e) => e.entryType === 'credit')).toHaveLength(1);
    }
  });

  it('two cancellations at once: one 204, one 400, one credit', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { customerId } = await activeCustomer(t);
      const responses = await Promise.all([cancel(t, customerId, 'Full'), cancel(t, customerId, 'Unearned')]);
      expect(statuses(responses)).toEqual([204, 400]);
      expect(responses.find((r) => r.statusCode === 400)!.json().Errors[0].Value).toBe('cannot process since status is Cancelled');
      expect((await ledgerRows(t, customerId)).filter((e) => e.entryType === 'credit')).toHaveLength(1);
      expect((await readOverview(t, customerId)).arBalance).toBe(10);
    }
  });

  it('activation and cancellation at once: either order, never a half-activated customer', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const customerId = await newCustomer(t);
      await newSubscription(t, customerId);
      const [activated, cancelled] = await Promise.all([activate(t, customerId), cancel(t, customerId, 'None')]);
      expect(cancelled.statusCode, cancelled.body).toBe(204);
      expect((await readCustomer(t, customerId)).status).toBe('Cancelled');
      const invoices = await listInvoices(t, customerId);
      if (activated.statusCode === 200) {
        expect(invoices).toHaveLength(1);
      } else {
        expect(activated.statusCode, activated.body).toBe(400);
        expect(activated.json().Errors[0].Value).toBe('cannot process since status is Cancelled');
        expect(invoices).toHaveLength(0);
      }
      for (const row of await subscriptionRows(t, customerId)) expect(row.status).toBe('Cancelled');
    }
  });

  it('two unholds at once: one 200, one 400, the missed periods billed once', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { customerId, subscriptionIds } = await activeCustomer(t);
      expect((await hold(t, customerId)).statusCode).toBe(200);
      // last billed for the period ending a year ago: twelve missed periods, Last bills one
      const now = new Date();
      const yearAgo = isoDate(new Date(Date.UTC(now.getUTCFullYear() - 1, now.getUTCMonth(), Math.min(now.getUTCDate(), 28))));
      await t.database.db
        .updateTable('subscriptions')
        .set({ activatedAt: new Date(`${yearAgo}T12:00:00Z`), nextPeriodStart: yearAgo })
        .where('id', '=', subscriptionIds[0]!)
        .execute();
      const body = { serviceStartOption: 'ChargeForLastMissedPeriods' };
      const responses = await Promise.all([unhold(t, customerId, body), unhold(t, customerId, body)]);
      expect(statuses(responses), responses.map((r) => r.body).join('\n')).toEqual([200, 400]);
      expect(responses.find((r) => r.statusCode === 400)!.json().Errors[0].Value).toBe('cannot process since status is Active');
      expect(await listInvoices(t, customerId)).toHaveLength(2);
    }
  });

  it('activations of many customers of one account at once get distinct, gapless invoice numbers', async () => {
    const account = await t.newAccount();
    const customers: number[] = [];
    for (let i = 0; i < 8; i++) {
      const customerId = await newCustomer(t, {}, account);
      await newSubscription(t, customerId, undefined, account);
      customers.push(customerId);
    }
    const responses = await Promise.all(customers.map((id) => activate(t, id, undefined, '?view=sideeffects', account)));
    for (const r of responses) expect(r.statusCode, r.body).toBe(200);
    const numbers = responses
      .flatMap((r) => r.json().invoices.map((i: { invoiceNumber: number }) => i.invoiceNumber))
      .sort((a: number, b: number) => a - b);
    expect(numbers).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});
