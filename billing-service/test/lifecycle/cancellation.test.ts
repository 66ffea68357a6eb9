import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activateCustomer } from '../../src/lifecycle/activation.js';
import { cancelCustomer, uncancelCustomer } from '../../src/lifecycle/cancellation.js';
import { runBillingClock } from '../../src/lifecycle/billing-clock.js';
import { holdCustomer } from '../../src/lifecycle/hold.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { callerOf, deposit, expectError, ledgerRows, setStoredStatus, subscriptionRows } from './lifecycle-fixtures.js';
import {
  ACTIVATION_FLAGS,
  BASIC_MONTHLY,
  BASIC_YEARLY,
  activate,
  activeCustomer,
  cancel,
  hold,
  listInvoices,
  newCustomer,
  newSubscription,
  readCustomer,
  readOverview,
  readSubscription,
  uncancel,
  unhold,
  ONTARIO_BILLING,
} from '../helpers/api-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const OPTIONS = ['None', 'Unearned', 'Full'] as const;

/** A customer in the given status, with one BASIC monthly subscription (Active unless Draft). */
async function customerIn(status: 'Draft' | 'Active' | 'Hold' | 'Suspended') {
  if (status === 'Draft') {
    const customerId = await newCustomer(t);
    return { customerId, subscriptionIds: [await newSubscription(t, customerId)] };
  }
  const created = await activeCustomer(t);
  if (status === 'Hold') expect((await hold(t, created.customerId)).statusCode).toBe(200);
  if (status === 'Suspended') await setStoredStatus(t, created.customerId, 'Suspended');
  return created;
}

function credits(rows: Awaited<ReturnType<typeof ledgerRows>>) {
  return rows.filter((e) => e.entryType === 'credit');
}

describe('any status but Cancelled → Cancelled', () => {
  for (const status of ['Draft', 'Active', 'Hold', 'Suspended'] as const) {
    for (const option of OPTIONS) {
      it(`cancels a ${status} customer with ${option}: 204, no body, subscriptions cancelled with the option`, async () => {
        const { customerId, subscriptionIds } = await customerIn(status);
        const res = await cancel(t, customerId, option);
        expect(res.statusCode, res.body).toBe(204);
        expect(res.body).toBe('');
        expect((await readCustomer(t, customerId)).status).toBe('Cancelled');
        for (const id of subscriptionIds) {
          const subscription = await readSubscription(t, id);
          expect(subscription.status).toBe('Cancelled');
          expect(subscription.cancellationTimestamp).not.toBeNull();
        }
        for (const row of await subscriptionRows(t, customerId)) expect(row.cancellationOption).toBe(option);
        // Cancelling bills nothing; None reverses nothing; a Draft customer has nothing to reverse.
        expect(await listInvoices(t, customerId)).toHaveLength(status === 'Draft' ? 0 : 1);
        const reversed = credits(await ledgerRows(t, customerId));
        expect(reversed).toHaveLength(option === 'None' || status === 'Draft' ? 0 : 1);
      });
    }
  }

  it('refuses any other option with "allowable options are None, Unearned, Full", and changes nothing', async () => {
    const { customerId, subscriptionIds } = await activeCustomer(t);
    for (const bad of ['Partial', '', 'none ', 1, null, true, ['Full']]) {
      expectError(await cancel(t, customerId, bad), 400, { Key: 'Api Error', Value: 'allowable options are None, Unearned, Full' });
    }
    expectError(await t.call('POST', '/v1/customercancellation', { customerId }), 400, {
      Value: 'allowable options are None, Unearned, Full',
    });
    expect((await readCustomer(t, customerId)).status).toBe('Active');
    expect((await readSubscription(t, subscriptionIds[0]!)).status).toBe('Active');
  });

  it('refuses a Cancelled customer, and creates no second credit', async () => {
    const { customerId } = await activeCustomer(t);
    expect((await cancel(t, customerId, 'Full')).statusCode).toBe(204);
    for (const option of OPTIONS) {
      expectError(await cancel(t, customerId, option), 400, { Key: 'Api Error', Value: 'cannot process since status is Cancelled' });
    }
    expect(credits(await ledgerRows(t, customerId))).toHaveLength(1);
  });

  it("answers 404 for an unknown customer and another account's customer", async () => {
    expectError(await cancel(t, 987654, 'None'), 404);
    const other = await t.newAccount();
    const { customerId } = await activeCustomer(t, { account: other });
    expectError(await cancel(t, customerId, 'Full'), 404);
    expect((await readCustomer(t, customerId, other)).status).toBe('Active');
  });

  it('answers 404 for ids beyond any stored row on every lifecycle endpoint', async () => {
    const huge = 99999999999;
    expectError(await activate(t, huge), 404);
    expectError(await activate(t, huge, {}, '?preview=true'), 404);
    expectError(await hold(t, huge), 404);
    expectError(await unhold(t, huge, { serviceStartOption: 'ChargeForAllMissedPeriods' }), 404);
    expectError(await cancel(t, huge, 'Full'), 404);
    expectError(await uncancel(t, huge), 404);
  });

  it('requires a customerId', async () => {
    expectError(await t.call('POST', '/v1/customercancellation', { cancellationOption: 'None' }), 400, { Key: 'customerId' });
  });
});

describe('revenue reversed on cancellation (through the API, on the day of activation)', () => {
  it('None reverses nothing: the invoice stays owed', async () => {
    const { customerId } = await activeCustomer(t, { body: ONTARIO_BILLING });
    expect((await cancel(t, customerId, 'None')).statusCode).toBe(204);
    expect(credits(await ledgerRows(t, customerId))).toEqual([]);
    expect(await readOverview(t, customerId)).toMatchObject({ arBalance: 33.89, unallocatedCredits: 0 });
  });

  for (const option of ['Unearned', 'Full'] as const) {
    it(`${option} on the first day reverses the whole period's recurring charge with its tax (not the setup fee)`, async () => {
      const { customerId, invoices } = await activeCustomer(t, { body: ONTARIO_BILLING });
      expect((await cancel(t, customerId, option)).statusCode).toBe(204);
      const [credit, ...more] = credits(await ledgerRows(t, customerId));
      expect(more).toEqual([]);
      // 19.99 × 33.89 / 29.99 = 22.5896 (the recurring line with its share of GST and HST)
      expect(Number(credit!.amount)).toBe(22.59);
      expect(Number(credit!.openAmount)).toBe(0);
      expect(credit!.description).toBe(`${option} reversal on cancellation`);
      // The credit went to the open invoice.
      expect((await t.call('GET', `/v1/Invoices/${invoices[0]!.id}`)).json()).toMatchObject({
        outstandingBalance: 11.3,
        totalPayments: 22.59,
        status: 'PartiallyPaid',
      });
      expect(await readOverview(t, customerId)).toMatchObject({ arBalance: 11.3, unallocatedCredits: 0 });
    });
  }

  it('leaves the credit unallocated when the invoice was already paid', async () => {
    const customerId = await newCustomer(t);
    await deposit(t, customerId, '29.99');
    await newSubscription(t, customerId);
    expect((await activate(t, customerId)).statusCode).toBe(200);
    expect(await readOverview(t, customerId)).toMatchObject({ arBalance: 0, unallocatedPayments: 0 });
    expect((await cancel(t, customerId, 'Full')).statusCode).toBe(204);
    expect(await readOverview(t, customerId)).toMatchObject({ arBalance: 0, unallocatedPayments: 0, unallocatedCredits: 19.99 });
  });

  it('reverses nothing for a Draft (unposted) first invoice', async () => {
    const customerId = await newCustomer(t);
    await newSubscription(t, customerId);
    expect((await activate(t, customerId, { ...ACTIVATION_FLAGS, temporarilyDisableAutoPost: true })).statusCode).toBe(200);
    expect((await cancel(t, customerId, 'Full')).statusCode).toBe(204);
    expect(credits(await ledgerRows(t, customerId))).toEqual([]);
  });
});

describe('revenue reversed on cancellation (fixed clock: period 1 Jan – 1 Feb 2026, 31 days)', () => {
  const at = (date: string) => new Date(`${date}T10:00:00Z`);

  async function activatedOn(date: string, body: Record<string, unknown> = ONTARIO_BILLING, frequency = BASIC_MONTHLY) {
    const customerId = await newCustomer(t, body);
    await newSubscription(t, customerId, frequency);
    const caller = callerOf(t.account);
    await activateCustomer(t.app.ctx, caller, { customerId, ...ACTIVATION_FLAGS }, { preview: false, sideEffects: false, now: at(date) });
    return { customerId, caller };
  }

  it('Unearned on 11 Jan reverses the 21 days left of 31', async () => {
    const { customerId, caller } = await activatedOn('2026-01-01');
    await cancelCustomer(t.app.ctx, caller, { customerId, cancellationOption: 'Unearned' }, at('2026-01-11'));
    const [credit] = credits(await ledgerRows(t, customerId));
    // 22.5896 × 21 / 31 = 15.3026
    expect(Number(credit!.amount)).toBe(15.3);
    expect(await readOverview(t, customerId)).toMatchObject({ arBalance: 18.59, unallocatedCredits: 0 });
  });

  it('Full on 11 Jan reverses the whole period', async () => {
    const { customerId, caller } = await activatedOn('2026-01-01');
    await cancelCustomer(t.app.ctx, caller, { customerId, cancellationOption: 'Full' }, at('2026-01-11'));
    expect(credits(await ledgerRows(t, customerId)).map((c) => Number(c.amount))).toEqual([22.59]);
    expect((await readOverview(t, customerId)).arBalance).toBe(11.3);
  });

  it('Unearned on the last day reverses one day; after the period ends nothing is left to reverse', async () => {
    const last = await activatedOn('2026-01-01', {});
    await cancelCustomer(t.app.ctx, last.caller, { customerId: last.customerId, cancellationOption: 'Unearned' }, at('2026-01-31'));
    // 19.99 / 31 = 0.6448
    expect(credits(await ledgerRows(t, last.customerId)).map((c) => Number(c.amount))).toEqual([0.64]);

    const after = await activatedOn('2026-01-01', {});
    await cancelCustomer(t.app.ctx, after.caller, { customerId: after.customerId, cancellationOption: 'Full' }, at('2026-02-01'));
    expect(credits(await ledgerRows(t, after.customerId))).toEqual([]);
    expect((await readCustomer(t, after.customerId)).status).toBe('Cancelled');
  });

  it('Unearned for a yearly subscription: the days left of 365', async () => {
    const { customerId, caller } = await activatedOn('2026-01-01', {}, BASIC_YEARLY);
    await cancelCustomer(t.app.ctx, caller, { customerId, cancellationOption: 'Unearned' }, at('2026-07-02'));
    // 199.00 × 183 / 365 = 99.7726
    expect(credits(await ledgerRows(t, customerId)).map((c) => Number(c.amount))).toEqual([99.77]);
  });

  it('reverses the current period of a customer on hold', async () => {
    const { customerId, caller } = await activatedOn('2026-01-01', {});
    await holdCustomer(t.app.ctx, caller, customerId, at('2026-01-05'));
    await cancelCustomer(t.app.ctx, caller, { customerId, cancellationOption: 'Unearned' }, at('2026-01-11'));
    // 19.99 × 21 / 31 = 13.5416
    expect(credits(await ledgerRows(t, customerId)).map((c) => Number(c.amount))).toEqual([13.54]);
  });

  it('reverses a period only once across cancel, uncancel and cancel again', async () => {
    const { customerId, caller } = await activatedOn('2026-01-01', {});
    await cancelCustomer(t.app.ctx, caller, { customerId, cancellationOption: 'Unearned' }, at('2026-01-11'));
    await uncancelCustomer(t.app.ctx, caller, customerId, at('2026-01-12'));
    await cancelCustomer(t.app.ctx, caller, { customerId, cancellationOption: 'Full' }, at('2026-01-13'));
    // Unearned took 13.54 (21 of 31 days). Uncancel on the 12th billed the 20 days served again
    // (12.90, taking that credit back); Full then adds what is left of the 19.99 and reverses the 12.90.
    expect(credits(await ledgerRows(t, customerId)).map((c) => Number(c.amount))).toEqual([13.54, 6.45, 12.9]);
    await uncancelCustomer(t.app.ctx, caller, customerId, at('2026-01-14'));
    await cancelCustomer(t.app.ctx, caller, { customerId, cancellationOption: 'Full' }, at('2026-01-15'));
    // The 14th's uncancel billed 18 days (11.61); Full reversed it; nothing was reversed twice.
    expect(credits(await ledgerRows(t, customerId)).map((c) => Number(c.amount))).toEqual([13.54, 6.45, 12.9, 11.61]);
    expect((await listInvoices(t, customerId)).map((i) => i.invoiceAmount)).toEqual([29.99, 12.9, 11.61]);
    // Full in the end: only the setup fee is owed.
    expect((await readOverview(t, customerId)).arBalance).toBe(10);
  });

  it('uncancel bills from the day service comes back, never the time spent cancelled', async () => {
    const { customerId, caller } = await activatedOn('2026-03-01', {});
    const paid = await t.call('POST', '/v1/payments', { customerId, amount: 29.99, paymentMethod: 'Check' });
    expect(paid.statusCode, paid.body).toBe(200);
    await cancelCustomer(t.app.ctx, caller, { customerId, cancellationOption: 'None' }, at('2026-03-10'));
    await uncancelCustomer(t.app.ctx, caller, customerId, at('2026-06-20'));
    // April and May are not billed; June is billed from the 20th: 19.99 × 11 / 30 = 7.3297.
    let invoices = await listInvoices(t, customerId);
    expect(invoices.slice(1).map((i) => i.charges.map((c: any) => [c.startServiceDate, c.endServiceDate, c.amount]))).toEqual([
      [['2026-06-20', '2026-07-01', 7.33]],
    ]);
    expect((await runBillingClock(t.app.ctx, at('2026-06-21'))).renewed).not.toContain(customerId);
    expect((await runBillingClock(t.app.ctx, at('2026-07-01'))).renewed).toContain(customerId);
    invoices = await listInvoices(t, customerId);
    expect(invoices.slice(2).map((i) => [i.charges[0].startServiceDate, i.invoiceAmount])).toEqual([['2026-07-01', 19.99]]);
  });

  it('uncancel within the period takes back only the credit for days served again', async () => {
    const unearned = await activatedOn('2026-01-01', {});
    await cancelCustomer(t.app.ctx, unearned.caller, { customerId: unearned.customerId, cancellationOption: 'Unearned' }, at('2026-01-11'));
    await uncancelCustomer(t.app.ctx, unearned.caller, unearned.customerId, at('2026-01-21'));
    // Credited 21 of 31 days (13.54); 11 are served again: 19.99 × 11 / 31 = 7.0932. The 10 days cancelled stay credited.
    expect((await listInvoices(t, unearned.customerId)).map((i) => i.invoiceAmount)).toEqual([29.99, 7.09]);
    expect((await readOverview(t, unearned.customerId)).arBalance).toBe(23.54);
    // Nothing more at the renewal than the normal period.
    expect((await runBillingClock(t.app.ctx, at('2026-02-01'))).renewed).toContain(unearned.customerId);
    expect((await listInvoices(t, unearned.customerId)).map((i) => i.invoiceAmount)).toEqual([29.99, 7.09, 19.99]);

    const none = await activatedOn('2026-01-01', {});
    await cancelCustomer(t.app.ctx, none.caller, { customerId: none.customerId, cancellationOption: 'None' }, at('2026-01-11'));
    await uncancelCustomer(t.app.ctx, none.caller, none.customerId, at('2026-01-21'));
    // Nothing was credited: the rest of the period is still paid for.
    expect((await listInvoices(t, none.customerId)).map((i) => i.invoiceAmount)).toEqual([29.99]);
  });
});

describe('Cancelled → Active (POST /v1/customers/uncancel/{id})', () => {
  it('returns the customer to Active with the subscriptions cancelled with it', async () => {
    const { customerId, subscriptionIds } = await activeCustomer(t, { frequencies: [BASIC_MONTHLY, BASIC_YEARLY] });
    expect((await cancel(t, customerId, 'None')).statusCode).toBe(204);
    const res = await uncancel(t, customerId);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: customerId, status: 'Active' });
    for (const id of subscriptionIds)
      expect(await readSubscription(t, id)).toMatchObject({ status: 'Active', cancellationTimestamp: null });
    for (const row of await subscriptionRows(t, customerId)) expect(row.cancellationOption).toBeNull();
    expect(await listInvoices(t, customerId)).toHaveLength(1);
  });

  it('brings back subscriptions that were suspended when a customer on hold was cancelled', async () => {
    const { customerId, subscriptionIds } = await customerIn('Hold');
    expect((await cancel(t, customerId, 'Unearned')).statusCode).toBe(204);
    expect((await uncancel(t, customerId)).json().status).toBe('Active');
    expect((await readSubscription(t, subscriptionIds[0]!)).status).toBe('Active');
    // and the customer can be put on hold again
    expect((await hold(t, customerId)).statusCode).toBe(200);
  });

  it('leaves a subscription cancelled earlier on its own cancelled', async () => {
    const { customerId, subscriptionIds } = await activeCustomer(t, { frequencies: [BASIC_MONTHLY, BASIC_YEARLY] });
    const earlier = new Date(Date.now() - 86_400_000);
    await t.database.db
      .updateTable('subscriptions')
      .set({ status: 'Cancelled', cancelledAt: earlier, cancellationOption: 'None' })
      .where('id', '=', subscriptionIds[1]!)
      .execute();
    expect((await cancel(t, customerId, 'None')).statusCode).toBe(204);
    expect((await uncancel(t, customerId)).statusCode).toBe(200);
    expect((await readSubscription(t, subscriptionIds[0]!)).status).toBe('Active');
    expect((await readSubscription(t, subscriptionIds[1]!)).status).toBe('Cancelled');
  });

  it('refuses a customer that is not Cancelled, and unknown ids', async () => {
    const { customerId } = await activeCustomer(t);
    expectError(await uncancel(t, customerId), 400, { Key: 'Api Error', Value: 'cannot process since status is Active' });
    expect((await hold(t, customerId)).statusCode).toBe(200);
    expectError(await uncancel(t, customerId), 400, { Value: 'cannot process since status is Hold' });
    const draft = await newCustomer(t);
    expectError(await uncancel(t, draft), 400, { Value: 'cannot process since status is Draft' });
    expectError(await uncancel(t, 987654), 404, { Key: 'Api Error' });
    const other = await t.newAccount();
    const foreign = await newCustomer(t, {}, other);
    expect((await cancel(t, foreign, 'None', other)).statusCode).toBe(204);
    expectError(await uncancel(t, foreign), 404);
    expect((await readCustomer(t, foreign, other)).status).toBe('Cancelled');
  });

  it('lets an uncancelled customer go on through the lifecycle: hold, unhold, cancel', async () => {
    const { customerId } = await activeCustomer(t);
    expect((await cancel(t, customerId, 'None')).statusCode).toBe(204);
    expect((await uncancel(t, customerId)).statusCode).toBe(200);
    expect((await hold(t, customerId)).statusCode).toBe(200);
    expect((await unhold(t, customerId, { serviceStartOption: 'NoChargesForMissedPeriods' })).json().status).toBe('Active');
    expect((await cancel(t, customerId, 'None')).statusCode).toBe(204);
    expect((await readCustomer(t, customerId)).status).toBe('Cancelled');
  });
});
