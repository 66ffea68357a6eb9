import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.js';
import { MemoryRateLimitStore } from '../../src/http/rate-limit.js';
import { activateCustomer } from '../../src/lifecycle/activation.js';
import { runBillingClock } from '../../src/lifecycle/billing-clock.js';
import { BASE_URL, startTestApp, type TestApp } from '../helpers/test-app.js';
import { callerOf } from './lifecycle-fixtures.js';
import {
  ACTIVATION_FLAGS,
  cardBody,
  hold,
  listInvoices,
  newCustomer,
  newSubscription,
  readCustomer,
  readSubscription,
} from '../helpers/api-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const at = (date: string, time = '10:00:00') => new Date(`${date}T${time}Z`);
const tick = (date: string, time?: string) => runBillingClock(t.app.ctx, at(date, time));

/** A customer on Basic monthly (19.99 + 10.00 setup, no tax without an address) activated on `date`, unpaid. */
async function activatedOn(date: string, options: { card?: string; settings?: Record<string, unknown> } = {}) {
  const customerId = await newCustomer(t, {});
  const subscriptionId = await newSubscription(t, customerId);
  if (options.card) {
    const res = await t.call('POST', '/v1/paymentmethods/creditcard', {
      customerId,
      cardNumber: options.card,
      firstName: 'Ada',
      lastName: 'Lovelace',
      expirationMonth: 12,
      expirationYear: 40,
      cvv: '123',
    });
    expect(res.statusCode, res.body).toBe(200);
  }
  if (options.settings) {
    const setting = (await t.call('GET', `/v1/customerbillingsetting/${customerId}`)).json();
    const put = await t.call('PUT', '/v1/customerbillingsetting', { ...setting, ...options.settings });
    expect(put.statusCode, put.body).toBe(200);
  }
  await activateCustomer(
    t.app.ctx,
    callerOf(t.account),
    { customerId, ...ACTIVATION_FLAGS },
    { preview: false, sideEffects: false, now: at(date) },
  );
  return { customerId, subscriptionId };
}

const payments = async (customerId: number) =>
  (await t.call('GET', `/v1/customers/${customerId}/payments`)).json() as Array<Record<string, any>>;
const payBalance = async (customerId: number, amount: number) => {
  const res = await t.call('POST', '/v1/payments', { customerId, amount, paymentMethod: 'Check' });
  expect(res.statusCode, res.body).toBe(200);
};

describe('the billing clock', () => {
  it('renews each Active subscription when its next period starts, once, and catches up every period it missed', async () => {
    const { customerId, subscriptionId } = await activatedOn('2025-01-15');
    await payBalance(customerId, 29.99); // in good standing: not suspended before the renewal
    expect((await tick('2025-02-14')).renewed).not.toContain(customerId);
    expect((await tick('2025-02-15', '00:30:00')).renewed).toContain(customerId);
    expect((await tick('2025-02-15', '23:00:00')).renewed).not.toContain(customerId);
    let invoices = await listInvoices(t, customerId);
    expect(invoices.map((i) => [i.invoiceAmount, i.status])).toEqual([
      [29.99, 'Paid'],
      [19.99, 'Posted'],
    ]);
    expect(invoices[1]!.charges).toEqual([
      expect.objectContaining({ startServiceDate: '2025-02-15', endServiceDate: '2025-03-15', amount: 19.99 }),
    ]);
    expect((await readSubscription(t, subscriptionId)).nextPeriodStartDate).toBe('2025-03-15');

    // A clock that did not run for two months bills both periods, one invoice each.
    expect((await tick('2025-04-20')).renewed).toContain(customerId);
    invoices = await listInvoices(t, customerId);
    expect(invoices.slice(2).map((i) => i.charges[0].startServiceDate)).toEqual(['2025-03-15', '2025-04-15']);
    expect((await readSubscription(t, subscriptionId)).nextPeriodStartDate).toBe('2025-05-15');
  });

  it('pays renewals from money the customer already holds', async () => {
    const { customerId } = await activatedOn('2025-03-01');
    await payBalance(customerId, 29.99 + 19.99);
    await tick('2025-04-01');
    const invoices = await listInvoices(t, customerId);
    expect(invoices.map((i) => [i.invoiceAmount, i.outstandingBalance, i.status])).toEqual([
      [29.99, 0, 'Paid'],
      [19.99, 0, 'Paid'],
    ]);
  });

  it('leaves customers on hold alone', async () => {
    const { customerId } = await activatedOn('2025-03-01');
    expect((await hold(t, customerId)).statusCode).toBe(200);
    expect((await tick('2025-05-02')).renewed).not.toContain(customerId);
    expect(await listInvoices(t, customerId)).toHaveLength(1);
  });

  it('collects what is due from the default card of a customer who pays automatically, once a day', async () => {
    const { customerId } = await activatedOn('2025-05-10', { card: '4242424242424242', settings: { autoCollect: true } });
    const first = await tick('2025-05-10', '12:00:00');
    expect(first.collected).toContain(customerId);
    expect((await tick('2025-05-10', '18:00:00')).collected).not.toContain(customerId);
    const renewal = await tick('2025-06-10');
    expect(renewal).toMatchObject({ renewed: expect.arrayContaining([customerId]), collected: expect.arrayContaining([customerId]) });
    expect((await payments(customerId)).map((p) => [p.amount, p.status, p.source])).toEqual([
      [29.99, 'Succeeded', 'Automatic'],
      [19.99, 'Succeeded', 'Automatic'],
    ]);
    expect((await listInvoices(t, customerId)).every((i) => i.status === 'Paid')).toBe(true);
  });

  it('collects only what is due, after applying money the customer already holds', async () => {
    // Net30: the 1 March invoice (29.99) is due 31 March, the 1 April renewal (19.99) on 1 May.
    const { customerId } = await activatedOn('2025-03-01', { card: '4242424242424242', settings: { autoCollect: true, term: 'Net30' } });
    const held = await t.call('POST', '/v1/payments', { customerId, amount: 10, paymentMethod: 'Check', autoAllocate: false });
    expect(held.statusCode, held.body).toBe(200);
    expect((await tick('2025-03-15')).collected).not.toContain(customerId);
    expect((await tick('2025-04-02')).collected).toContain(customerId);
    const automatic = (await payments(customerId)).filter((p) => p.source === 'Automatic');
    expect(automatic.map((p) => [p.amount, p.status])).toEqual([[19.99, 'Succeeded']]);
    const invoices = await listInvoices(t, customerId);
    expect(invoices.map((i) => [i.invoiceAmount, i.outstandingBalance])).toEqual([
      [29.99, 0],
      [19.99, 19.99],
    ]);
    expect((await t.call('GET', `/v1/customers/${customerId}/overview`)).json()).toMatchObject({
      arBalance: 19.99,
      unallocatedPayments: 0,
    });
  });

  it('retries a declined card daily, suspends after the grace period, and lifts the suspension once the balance is paid', async () => {
    const { customerId, subscriptionId } = await activatedOn('2025-07-01', { card: '4000000000000341', settings: { autoCollect: true } });
    expect((await tick('2025-07-01', '12:00:00')).declined).toContain(customerId);
    expect((await tick('2025-07-01', '13:00:00')).declined).not.toContain(customerId);
    expect((await tick('2025-07-02')).declined).toContain(customerId);
    expect((await payments(customerId)).map((p) => [p.status, p.declineCode])).toEqual([
      ['Failed', 'card_declined'],
      ['Failed', 'card_declined'],
    ]);
    expect((await readCustomer(t, customerId)).customerAccountStatus).toBe('PoorStanding');

    // Due 2025-07-01, so overdue (PoorStanding) from 2025-07-02; the account's grace period is 7 days.
    expect((await tick('2025-07-08', '23:00:00')).suspended).not.toContain(customerId);
    expect((await tick('2025-07-09', '00:30:00')).suspended).toContain(customerId);
    expect((await readCustomer(t, customerId)).status).toBe('Suspended');
    expect((await readSubscription(t, subscriptionId)).status).toBe('Suspended');
    // Suspended subscriptions are not renewed.
    expect((await tick('2025-08-02')).renewed).not.toContain(customerId);

    await payBalance(customerId, 29.99);
    expect((await tick('2025-08-03')).reactivated).toContain(customerId);
    expect((await readCustomer(t, customerId)).status).toBe('Active');
    expect((await readSubscription(t, subscriptionId)).status).toBe('Active');
    // The default service start option: no charge for the periods missed while suspended.
    expect(await listInvoices(t, customerId)).toHaveLength(1);
    expect((await readSubscription(t, subscriptionId)).nextPeriodStartDate).toBe('2025-09-01');
  });

  it("counts the customer's own grace period and its extension", async () => {
    // PoorStanding from 2025-09-02 (the day after the due date), 2 + 3 days.
    const { customerId } = await activatedOn('2025-09-01', { settings: { customerGracePeriod: 2, gracePeriodExtension: 3 } });
    expect((await tick('2025-09-06', '23:00:00')).suspended).not.toContain(customerId);
    expect((await tick('2025-09-07', '00:30:00')).suspended).toContain(customerId);
  });

  it('cancels a customer left suspended for the auto-cancel period, with the default cancel option', async () => {
    const { customerId, subscriptionId } = await activatedOn('2025-10-01');
    await tick('2025-10-09');
    expect((await readCustomer(t, customerId)).status).toBe('Suspended');
    // Suspended over a year ago (by today's clock): the overview says 0 days left.
    expect((await t.call('GET', `/v1/customers/${customerId}/overview`)).json().daysUntilCancellation).toBe(0);
    expect((await tick('2025-11-07')).cancelled).not.toContain(customerId);
    expect((await tick('2025-11-08', '11:00:00')).cancelled).toContain(customerId);
    expect((await readCustomer(t, customerId)).status).toBe('Cancelled');
    expect((await readSubscription(t, subscriptionId)).status).toBe('Cancelled');

    const never = await activatedOn('2025-10-01', { settings: { customerAutoCancel: 0 } });
    await tick('2025-10-09');
    expect((await tick('2026-10-09')).cancelled).not.toContain(never.customerId);
    expect((await readCustomer(t, never.customerId)).status).toBe('Suspended');
    expect((await t.call('GET', `/v1/customers/${never.customerId}/overview`)).json().daysUntilCancellation).toBeNull();
  });

  it('shows on the overview how many days a suspended customer has before cancellation', async () => {
    const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
    const { customerId } = await activatedOn(daysAgo(8));
    expect((await t.call('GET', `/v1/customers/${customerId}/overview`)).json().daysUntilCancellation).toBeNull();
    expect((await runBillingClock(t.app.ctx)).suspended).toContain(customerId);
    expect((await t.call('GET', `/v1/customers/${customerId}/overview`)).json()).toMatchObject({
      status: 'Suspended',
      daysUntilCancellation: 30,
    });
  });

  it('audits its moves as the system', async () => {
    const { customerId } = await activatedOn('2025-12-01');
    await tick('2025-12-20');
    const rows = await sql<{ actor: string; source: string; changes: { status: string[] } }>`
      select actor, source, changes from audit_log where entity_type = 'Customer' and entity_id = ${customerId} and actor = 'system'`.execute(
      t.database.db,
    );
    expect(rows.rows).toEqual([
      { actor: 'system', source: 'billing clock', changes: expect.objectContaining({ status: ['Active', 'Suspended'] }) },
    ]);
  });

  it('one customer whose renewal fails holds nobody else: the tick renews the others, goes on to collection, and names the failure', async () => {
    // A fault of this one customer's data: the database refuses their renewal invoice (a trigger standing in for
    // whatever one customer's bad row or one path's bug may raise).
    const broken = await activatedOn('2026-03-03');
    const healthy = await activatedOn('2026-03-03', { card: '4242424242424242', settings: { autoCollect: true } });
    await payBalance(broken.customerId, 29.99);
    await tick('2026-03-03', '12:00:00');
    const db = t.database.db;
    await sql`create function refuse_one_invoice() returns trigger language plpgsql as $$
      begin if new.customer_id = ${sql.lit(broken.customerId)} then raise exception 'invoice refused for customer %', new.customer_id; end if; return new; end $$`.execute(
      db,
    );
    await sql`create trigger refuse_one_invoice before insert on invoices for each row execute function refuse_one_invoice()`.execute(db);
    const renewal = await tick('2026-04-03', '12:00:00').finally(async () => {
      await sql`drop trigger refuse_one_invoice on invoices`.execute(db);
      await sql`drop function refuse_one_invoice()`.execute(db);
    });
    expect(renewal.renewed).toContain(healthy.customerId);
    expect(renewal.collected).toContain(healthy.customerId);
    expect(renewal.renewed).not.toContain(broken.customerId);
    expect(renewal.failures).toEqual([
      expect.objectContaining({ customerId: broken.customerId, accountId: t.account.accountId, step: 'renewal' }),
    ]);
    expect(renewal.failures[0]!.error).toMatch(/invoice refused for customer/);
    expect((await tick('2026-04-03', '13:00:00')).renewed).toContain(broken.customerId); // tried again next tick
    expect(await listInvoices(t, healthy.customerId)).toHaveLength(2);
    expect(await listInvoices(t, broken.customerId)).toHaveLength(2);
  });

  it('a tick pages through every candidate: customers who do not move fill no page and hide nobody behind them', async () => {
    const account = await t.newAccount();
    const activated = async (options: { card?: boolean } = {}) => {
      const customerId = await newCustomer(t, {}, account);
      if (options.card) {
        const res = await t.call(
          'POST',
          '/v1/paymentmethods/creditcard',
          { customerId, ...cardBody({}), isDefault: true },
          { as: account },
        );
        expect(res.statusCode, res.body).toBe(200);
        const setting = (await t.call('GET', `/v1/customerbillingsetting/${customerId}`, undefined, { as: account })).json();
        const put = await t.call('PUT', '/v1/customerbillingsetting', { ...setting, autoCollect: true }, { as: account });
        expect(put.statusCode, put.body).toBe(200);
      }
      await newSubscription(t, customerId, undefined, account);
      await activateCustomer(
        t.app.ctx,
        callerOf(account),
        { customerId, ...ACTIVATION_FLAGS },
        { preview: false, sideEffects: false, now: at('2026-05-07') },
      );
      return customerId;
    };
    // two customers who pay by hand and owe (never collected), then one the clock collects from: pages of two
    const manual = [await activated(), await activated()];
    const automatic = await activated({ card: true });
    const scope = { kind: 'account', accountId: account.accountId, batch: 2 } as const;
    const tick = await runBillingClock(t.app.ctx, at('2026-05-08'), scope);
    expect(tick.collected).toEqual([automatic]);
    expect(tick.more).toBe(false);
    // renewals too: all three in one tick, two pages
    expect((await runBillingClock(t.app.ctx, at('2026-06-07'), scope)).renewed).toEqual([...manual, automatic]);
  });

  it('does each move once when two instances tick at the same moment', async () => {
    const { customerId } = await activatedOn('2026-01-05', { card: '4242424242424242', settings: { autoCollect: true } });
    await tick('2026-01-05', '12:00:00');
    const other = await buildApp({
      db: t.database.db,
      catalog: t.catalog,
      rateLimitStore: new MemoryRateLimitStore(),
      publicBaseUrl: BASE_URL,
      gateway: t.app.ctx.payments.gateway,
      bulkWorker: false,
    });
    try {
      const now = at('2026-02-05');
      const [a, b] = await Promise.all([runBillingClock(t.app.ctx, now), runBillingClock(other.ctx, now)]);
      expect([...a.renewed, ...b.renewed].filter((id) => id === customerId)).toHaveLength(1);
      expect([...a.collected, ...b.collected].filter((id) => id === customerId)).toHaveLength(1);
    } finally {
      await other.close();
    }
    expect(await listInvoices(t, customerId)).toHaveLength(2);
    expect((await payments(customerId)).map((p) => p.amount)).toEqual([29.99, 19.99]);
  });

  it('ticks on its own in the billing API when given an interval', async () => {
    const { customerId } = await activatedOn(new Date(Date.now() - 45 * 86_400_000).toISOString().slice(0, 10));
    const ticking = await buildApp({
      db: t.database.db,
      catalog: t.catalog,
      rateLimitStore: new MemoryRateLimitStore(),
      publicBaseUrl: BASE_URL,
      bulkWorker: false,
      billingClockMs: 50,
    });
    try {
      await ticking.ready();
      const deadline = Date.now() + 60_000; // a wait, not a timing: a busy machine is slow
      while ((await listInvoices(t, customerId)).length < 2 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      await ticking.close();
    }
    expect((await listInvoices(t, customerId)).length).toBeGreaterThanOrEqual(2);
  });
});
