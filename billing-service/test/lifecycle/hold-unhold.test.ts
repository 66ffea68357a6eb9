import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anniversaryPeriodStart, daysBetween } from '../../src/invoices/engine/index.js';
import { activateCustomer } from '../../src/lifecycle/activation.js';
import { holdCustomer } from '../../src/lifecycle/hold.js';
import { unholdCustomer } from '../../src/lifecycle/unhold.js';
import { money, roundToCurrency } from '../../src/money/money.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { addDaysTo, callerOf, deposit, expectError, isoDate, ledgerRows, setStoredStatus, subscriptionRows } from './lifecycle-fixtures.js';
import {
  ACTIVATION_FLAGS,
  BASIC_MONTHLY,
  BASIC_YEARLY,
  activeCustomer,
  cancel,
  hold,
  listInvoices,
  newCustomer,
  newSubscription,
  readCustomer,
  readOverview,
  readSubscription,
  unhold,
} from '../helpers/api-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const OPTIONS = ['ChargeForAllMissedPeriods', 'ChargeForLastMissedPeriods', 'NoChargesForMissedPeriods', 'ChargeForCurrentFullPeriod'];

describe('Active → Hold', () => {
  it('puts the customer on hold and suspends its Active subscriptions', async () => {
    const { customerId, subscriptionIds } = await activeCustomer(t, { frequencies: [BASIC_MONTHLY, BASIC_YEARLY] });
    const later = await newSubscription(t, customerId);
    const res = await hold(t, customerId);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: customerId, status: 'Hold' });
    expect((await readCustomer(t, customerId)).status).toBe('Hold');
    for (const id of subscriptionIds) expect((await readSubscription(t, id)).status).toBe('Suspended');
    // A subscription never activated has nothing to suspend.
    expect((await readSubscription(t, later)).status).toBe('Draft');
    // Hold bills nothing.
    expect(await listInvoices(t, customerId)).toHaveLength(1);
  });

  it('refuses a Draft, Hold or Cancelled customer, naming the status, and changes nothing', async () => {
    const draft = await newCustomer(t);
    const draftSubscription = await newSubscription(t, draft);
    expectError(await hold(t, draft), 400, { Key: 'Api Error', Value: 'cannot process since status is Draft' });
    expect((await readCustomer(t, draft)).status).toBe('Draft');
    expect((await readSubscription(t, draftSubscription)).status).toBe('Draft');

    const { customerId } = await activeCustomer(t);
    expect((await hold(t, customerId)).statusCode).toBe(200);
    expectError(await hold(t, customerId), 400, { Value: 'cannot process since status is Hold' });

    expect((await cancel(t, customerId, 'None')).statusCode).toBe(204);
    expectError(await hold(t, customerId), 400, { Value: 'cannot process since status is Cancelled' });
    expect((await readCustomer(t, customerId)).status).toBe('Cancelled');
  });

  it('refuses a Suspended customer (only Active goes on hold)', async () => {
    const { customerId } = await activeCustomer(t);
    await setStoredStatus(t, customerId, 'Suspended');
    expectError(await hold(t, customerId), 400, { Value: 'cannot process since status is Suspended' });
  });

  it("answers 404 for an unknown customer and another account's customer", async () => {
    expectError(await hold(t, 987654), 404, { Key: 'Api Error' });
    const other = await t.newAccount();
    const { customerId } = await activeCustomer(t, { account: other });
    expectError(await hold(t, customerId), 404);
    expect((await readCustomer(t, customerId, other)).status).toBe('Active');
  });
});

describe('PUT customers with status Suspended', () => {
  it('is refused with 400 from every status: only the system suspends customers', async () => {
    const draft = await newCustomer(t);
    const { customerId: active } = await activeCustomer(t);
    const { customerId: held } = await activeCustomer(t);
    expect((await hold(t, held)).statusCode).toBe(200);
    for (const id of [draft, active, held]) {
      const before = await readCustomer(t, id);
      const res = await t.call('PUT', '/v1/customers', { ...before, status: 'Suspended' });
      expectError(res, 400, { Value: 'only the system suspends customers' });
      expect(await readCustomer(t, id)).toEqual(before);
    }
  });
});

describe('PUT customers with another status', () => {
  it('refuses lifecycle changes through PUT, naming the endpoint to use, and keeps the status', async () => {
    const draft = await newCustomer(t);
    const { customerId: active } = await activeCustomer(t);
    const cases: Array<[number, string, RegExp]> = [
      [draft, 'Active', /customeractivation/],
      [active, 'Hold', /customerhold/],
      [active, 'Cancelled', /customercancellation/],
      [active, 'Draft', /cannot change from Active to Draft/],
    ];
    for (const [id, status, message] of cases) {
      const before = await readCustomer(t, id);
      expectError(await t.call('PUT', '/v1/customers', { ...before, status }), 400, { Key: 'status', Value: message });
      expect((await readCustomer(t, id)).status).toBe(before.status);
    }
    // Sending the status unchanged is fine.
    const same = await readCustomer(t, active);
    expect((await t.call('PUT', '/v1/customers', { ...same, firstName: 'Still active' })).json()).toMatchObject({
      status: 'Active',
      firstName: 'Still active',
    });
  });
});

/** Dates of a subscription moved back in time: activated A (day ≤ 28), periods on A's day every month. */
function pastAnchor(): { activated: string; today: string } {
  const today = isoDate(new Date());
  const b = new Date(`${addDaysTo(today, -10)}T00:00:00Z`);
  const activated = isoDate(new Date(Date.UTC(b.getUTCFullYear(), b.getUTCMonth() - 4, Math.min(b.getUTCDate(), 28))));
  return { activated, today };
}

/**
 * An Active customer with one BASIC monthly subscription, put on hold, whose
 * subscription was activated about four months ago and last billed for the
 * period ending A + 1 month: four period starts (A + 1..4 months) are due by today.
 */
async function heldWithMissedPeriods(body: Record<string, unknown> = {}) {
  const { customerId, subscriptionIds } = await activeCustomer(t, { body });
  expect((await hold(t, customerId)).statusCode).toBe(200);
  const { activated, today } = pastAnchor();
  const starts = [1, 2, 3, 4, 5].map((k) => anniversaryPeriodStart(activated, 'Monthly', 1, k));
  await t.database.db
    .updateTable('subscriptions')
    .set({ activatedAt: new Date(`${activated}T12:00:00Z`), nextPeriodStart: starts[0]! })
    .where('id', '=', subscriptionIds[0]!)
    .execute();
  return { customerId, subscriptionId: subscriptionIds[0]!, missed: starts.slice(0, 4), firstFuture: starts[4]!, today };
}

function recurringLines(invoices: Array<Record<string, any>>) {
  return invoices.flatMap((i) => i.charges as Array<Record<string, any>>);
}

describe('Hold → Active (POST /v1/customers/unhold)', () => {
  it('ChargeForAllMissedPeriods: one invoice per missed period, the subscriptions Active again', async () => {
    const { customerId, subscriptionId, missed, firstFuture, today } = await heldWithMissedPeriods();
    const res = await unhold(t, customerId, { serviceStartOption: 'ChargeForAllMissedPeriods' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: customerId, status: 'Active' });
    const invoices = (await listInvoices(t, customerId)).slice(1);
    expect(invoices).toHaveLength(4);
    for (const invoice of invoices)
      expect(invoice).toMatchObject({ status: 'Posted', invoiceAmount: 19.99, effectiveTimestamp: `${today}T00:00:00.000Z` });
    const lines = recurringLines(invoices);
    expect(lines.map((c) => c.chargeType)).toEqual(['Recurring', 'Recurring', 'Recurring', 'Recurring']);
    expect(lines.map((c) => c.startServiceDate)).toEqual(missed);
    expect(lines.map((c) => c.endServiceDate)).toEqual([...missed.slice(1), firstFuture]);
    const numbers = invoices.map((i) => i.invoiceNumber);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(await readSubscription(t, subscriptionId)).toMatchObject({ status: 'Active', nextPeriodStartDate: firstFuture });
    // 29.99 (first invoice) + 4 × 19.99
    expect((await readOverview(t, customerId)).arBalance).toBe(109.95);
  });

  it('ChargeForLastMissedPeriods: one invoice, for the period running today', async () => {
    const { customerId, subscriptionId, missed, firstFuture } = await heldWithMissedPeriods();
    const res = await unhold(t, customerId, { serviceStartOption: 'ChargeForLastMissedPeriods' });
    expect(res.statusCode, res.body).toBe(200);
    const invoices = (await listInvoices(t, customerId)).slice(1);
    expect(invoices).toHaveLength(1);
    expect(invoices[0]).toMatchObject({ invoiceAmount: 19.99, status: 'Posted' });
    expect(invoices[0]!.charges).toMatchObject([{ startServiceDate: missed[3], endServiceDate: firstFuture, amount: 19.99 }]);
    expect(await readSubscription(t, subscriptionId)).toMatchObject({ status: 'Active', nextPeriodStartDate: firstFuture });
  });

  it('ChargeForLastMissedPeriods with prorate: only from today to the end of the running period', async () => {
    const { customerId, subscriptionId, missed, firstFuture, today } = await heldWithMissedPeriods();
    const res = await unhold(t, customerId, { serviceStartOption: 'ChargeForLastMissedPeriods', prorate: true });
    expect(res.statusCode, res.body).toBe(200);
    const invoices = (await listInvoices(t, customerId)).slice(1);
    expect(invoices).toHaveLength(1);
    const expected = roundToCurrency(
      money('19.99').times(daysBetween(today, firstFuture)).dividedBy(daysBetween(missed[3]!, firstFuture)),
      'USD',
    ).toNumber();
    expect(expected).toBeLessThan(19.99);
    expect(invoices[0]!.charges).toMatchObject([
      { startServiceDate: today, endServiceDate: firstFuture, amount: expected, unitPrice: 19.99 },
    ]);
    expect(invoices[0]!.invoiceAmount).toBe(expected);
    expect((await readSubscription(t, subscriptionId)).nextPeriodStartDate).toBe(firstFuture);
  });

  it('NoChargesForMissedPeriods: no invoice; billing resumes at the first period start after today', async () => {
    const { customerId, subscriptionId, firstFuture, today } = await heldWithMissedPeriods();
    const res = await unhold(t, customerId, { serviceStartOption: 'NoChargesForMissedPeriods' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().status).toBe('Active');
    expect(await listInvoices(t, customerId)).toHaveLength(1);
    const subscription = await readSubscription(t, subscriptionId);
    expect(subscription).toMatchObject({ status: 'Active', nextPeriodStartDate: firstFuture });
    expect(subscription.nextPeriodStartDate! > today).toBe(true);
  });

  it('ChargeForCurrentFullPeriod: one full period from today', async () => {
    const { customerId, subscriptionId, today } = await heldWithMissedPeriods();
    const res = await unhold(t, customerId, { serviceStartOption: 'ChargeForCurrentFullPeriod' });
    expect(res.statusCode, res.body).toBe(200);
    const invoices = (await listInvoices(t, customerId)).slice(1);
    expect(invoices).toHaveLength(1);
    const end = anniversaryPeriodStart(today, 'Monthly', 1, 1);
    expect(invoices[0]!.charges).toMatchObject([{ startServiceDate: today, endServiceDate: end, amount: 19.99, chargeType: 'Recurring' }]);
    expect(await readSubscription(t, subscriptionId)).toMatchObject({ status: 'Active', nextPeriodStartDate: end });
  });

  it('preview computes the mock invoices and changes nothing', async () => {
    const { customerId, subscriptionId, missed } = await heldWithMissedPeriods();
    const subscriptionBefore = await readSubscription(t, subscriptionId);
    const res = await unhold(t, customerId, { serviceStartOption: 'ChargeForAllMissedPeriods', preview: true });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.status).toBe('Hold');
    expect(body.invoicePreview).toMatchObject({ total: 19.99, draftCharges: [{ startServiceDate: missed[0] }] });
    expect(body.additionalInvoicesForPreview).toHaveLength(3);
    expect(await listInvoices(t, customerId)).toHaveLength(1);
    expect(await readSubscription(t, subscriptionId)).toEqual(subscriptionBefore);
    expect((await readCustomer(t, customerId)).status).toBe('Hold');

    const none = (await unhold(t, customerId, { serviceStartOption: 'NoChargesForMissedPeriods', preview: true })).json();
    expect(none).toMatchObject({ status: 'Hold', invoicePreview: null, additionalInvoicesForPreview: [] });
    expect(await readSubscription(t, subscriptionId)).toEqual(subscriptionBefore);
  });

  it('returns to Active without charges when no period was missed', async () => {
    const { customerId, subscriptionIds } = await activeCustomer(t);
    const before = await readSubscription(t, subscriptionIds[0]!);
    expect((await hold(t, customerId)).statusCode).toBe(200);
    const res = await unhold(t, customerId, { serviceStartOption: 'ChargeForAllMissedPeriods' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().status).toBe('Active');
    expect(await listInvoices(t, customerId)).toHaveLength(1);
    expect(await readSubscription(t, subscriptionIds[0]!)).toMatchObject({
      status: 'Active',
      nextPeriodStartDate: before.nextPeriodStartDate,
    });
  });

  it('leaves the invoices Draft with temporarilyDisableAutoPost', async () => {
    const { customerId } = await heldWithMissedPeriods();
    const res = await unhold(t, customerId, { serviceStartOption: 'ChargeForLastMissedPeriods', temporarilyDisableAutoPost: true });
    expect(res.statusCode, res.body).toBe(200);
    const invoices = (await listInvoices(t, customerId)).slice(1);
    expect(invoices.map((i) => i.status)).toEqual(['Draft']);
    expect((await readOverview(t, customerId)).arBalance).toBe(29.99);
  });

  it('allocates available funds to the invoices it posts', async () => {
    const { customerId } = await heldWithMissedPeriods();
    await deposit(t, customerId, '100.00');
    const res = await unhold(t, customerId, { serviceStartOption: 'ChargeForAllMissedPeriods' });
    expect(res.statusCode, res.body).toBe(200);
    // 29.99 (first invoice) + 4 × 19.99 = 109.95 owed, 100 paid.
    expect(await readOverview(t, customerId)).toMatchObject({ arBalance: 9.95, unallocatedPayments: 0 });
    expect((await ledgerRows(t, customerId)).filter((e) => e.entryType === 'invoice')).toHaveLength(5);
  });

  it('refuses a bad service start option with 400 on that field, listing the allowed values', async () => {
    const { customerId } = await activeCustomer(t);
    expect((await hold(t, customerId)).statusCode).toBe(200);
    for (const bad of ['ChargeForSomePeriods', '', 3, null]) {
      const [error] = expectError(await unhold(t, customerId, { serviceStartOption: bad }), 400, { Key: 'serviceStartOption' });
      for (const option of OPTIONS) expect(error!.Value).toContain(option);
    }
    expectError(await unhold(t, customerId, {}), 400, { Key: 'serviceStartOption' });
    expect((await readCustomer(t, customerId)).status).toBe('Hold');
  });

  it('refuses a customer not on hold (Active, Draft, Cancelled, Suspended) and unknown ids', async () => {
    const { customerId } = await activeCustomer(t);
    expectError(await unhold(t, customerId, { serviceStartOption: 'ChargeForAllMissedPeriods' }), 400, {
      Value: 'cannot process since status is Active',
    });
    expectError(await unhold(t, customerId, { serviceStartOption: 'ChargeForAllMissedPeriods', preview: true }), 400, {
      Value: 'cannot process since status is Active',
    });
    const draft = await newCustomer(t);
    expectError(await unhold(t, draft, { serviceStartOption: 'NoChargesForMissedPeriods' }), 400, {
      Value: 'cannot process since status is Draft',
    });
    expect((await cancel(t, draft, 'None')).statusCode).toBe(204);
    expectError(await unhold(t, draft, { serviceStartOption: 'NoChargesForMissedPeriods' }), 400, {
      Value: 'cannot process since status is Cancelled',
    });
    await setStoredStatus(t, customerId, 'Suspended');
    expectError(await unhold(t, customerId, { serviceStartOption: 'NoChargesForMissedPeriods' }), 400, {
      Value: 'cannot process since status is Suspended',
    });

    expectError(await unhold(t, 987654, { serviceStartOption: 'NoChargesForMissedPeriods' }), 404);
    const other = await t.newAccount();
    const { customerId: foreign } = await activeCustomer(t, { account: other });
    expect((await hold(t, foreign, other)).statusCode).toBe(200);
    expectError(await unhold(t, foreign, { serviceStartOption: 'NoChargesForMissedPeriods' }), 404);
    expect((await readCustomer(t, foreign, other)).status).toBe('Hold');
  });
});

describe('unhold with a fixed clock (service functions)', () => {
  const at = (date: string) => new Date(`${date}T12:00:00Z`);

  /** Activated on 2026-01-10 (periods on the 10th), on hold from 2026-01-20. */
  async function heldSince(activation = '2026-01-10', holdOn = '2026-01-20', frequency = BASIC_MONTHLY) {
    const customerId = await newCustomer(t);
    const subscriptionId = await newSubscription(t, customerId, frequency);
    const caller = callerOf(t.account);
    await activateCustomer(
      t.app.ctx,
      caller,
      { customerId, ...ACTIVATION_FLAGS },
      { preview: false, sideEffects: false, now: at(activation) },
    );
    await holdCustomer(t.app.ctx, caller, customerId, at(holdOn));
    return { customerId, subscriptionId, caller };
  }

  it('bills 10 Feb, 10 Mar and 10 Apr for All on 20 Apr, and prorates 20 of 30 days with Last + prorate', async () => {
    const all = await heldSince();
    await unholdCustomer(
      t.app.ctx,
      all.caller,
      { customerId: all.customerId, serviceStartOption: 'ChargeForAllMissedPeriods' },
      at('2026-04-20'),
    );
    const allLines = recurringLines((await listInvoices(t, all.customerId)).slice(1));
    expect(allLines.map((c) => [c.startServiceDate, c.endServiceDate, c.amount])).toEqual([
      ['2026-02-10', '2026-03-10', 19.99],
      ['2026-03-10', '2026-04-10', 19.99],
      ['2026-04-10', '2026-05-10', 19.99],
    ]);
    expect((await readSubscription(t, all.subscriptionId)).nextPeriodStartDate).toBe('2026-05-10');

    const last = await heldSince();
    await unholdCustomer(
      t.app.ctx,
      last.caller,
      { customerId: last.customerId, serviceStartOption: 'ChargeForLastMissedPeriods', prorate: true },
      at('2026-04-20'),
    );
    const lastLines = recurringLines((await listInvoices(t, last.customerId)).slice(1));
    // 19.99 × 20 / 30 = 13.3267
    expect(lastLines.map((c) => [c.startServiceDate, c.endServiceDate, c.amount])).toEqual([['2026-04-20', '2026-05-10', 13.33]]);
    expect((await readSubscription(t, last.subscriptionId)).nextPeriodStartDate).toBe('2026-05-10');

    const allProrated = await heldSince();
    await unholdCustomer(
      t.app.ctx,
      allProrated.caller,
      { customerId: allProrated.customerId, serviceStartOption: 'ChargeForAllMissedPeriods', prorate: true },
      at('2026-04-20'),
    );
    const proratedLines = recurringLines((await listInvoices(t, allProrated.customerId)).slice(1));
    expect(proratedLines.map((c) => [c.startServiceDate, c.endServiceDate, c.amount])).toEqual([
      ['2026-02-10', '2026-03-10', 19.99],
      ['2026-03-10', '2026-04-10', 19.99],
      ['2026-04-20', '2026-05-10', 13.33],
    ]);
  });

  it('ChargeForCurrentFullPeriod credits the unserved rest of the paid period, so no day is paid twice', async () => {
    const { customerId, caller } = await heldSince('2026-03-01', '2026-03-05');
    const paid = await t.call('POST', '/v1/payments', { customerId, amount: 29.99, paymentMethod: 'Check' });
    expect(paid.statusCode, paid.body).toBe(200);
    await unholdCustomer(t.app.ctx, caller, { customerId, serviceStartOption: 'ChargeForCurrentFullPeriod' }, at('2026-03-10'));
    const invoices = await listInvoices(t, customerId);
    expect(recurringLines(invoices.slice(1)).map((c) => [c.startServiceDate, c.endServiceDate, c.amount])).toEqual([
      ['2026-03-10', '2026-04-10', 19.99],
    ]);
    // 10 March to 1 April of the paid period comes back: 19.99 × 22 / 31 = 14.1864…
    const credits = (await ledgerRows(t, customerId)).filter((row) => row.entryType === 'credit');
    expect(credits.map((c) => Number(c.amount))).toEqual([14.19]);
    expect(invoices.map((i) => [i.invoiceAmount, i.outstandingBalance])).toEqual([
      [29.99, 0],
      [19.99, 5.8],
    ]);
    expect(await readOverview(t, customerId)).toMatchObject({ arBalance: 5.8, unallocatedCredits: 0 });
  });

  it('keeps billing on the new anniversary after ChargeForCurrentFullPeriod moved it', async () => {
    const { customerId, subscriptionId, caller } = await heldSince('2026-01-10', '2026-01-20');
    await unholdCustomer(t.app.ctx, caller, { customerId, serviceStartOption: 'ChargeForCurrentFullPeriod' }, at('2026-03-15'));
    expect((await readSubscription(t, subscriptionId)).nextPeriodStartDate).toBe('2026-04-15');
    await holdCustomer(t.app.ctx, caller, customerId, at('2026-03-20'));
    await unholdCustomer(t.app.ctx, caller, { customerId, serviceStartOption: 'ChargeForAllMissedPeriods' }, at('2026-06-01'));
    const lines = recurringLines((await listInvoices(t, customerId)).slice(1));
    expect(lines.map((c) => [c.startServiceDate, c.endServiceDate])).toEqual([
      ['2026-03-15', '2026-04-15'],
      ['2026-04-15', '2026-05-15'],
      ['2026-05-15', '2026-06-15'],
    ]);
    expect((await readSubscription(t, subscriptionId)).nextPeriodStartDate).toBe('2026-06-15');
  });

  it('keeps a month-end anniversary through short months (activated 31 Jan)', async () => {
    const { customerId, subscriptionId, caller } = await heldSince('2026-01-31', '2026-02-05');
    await unholdCustomer(t.app.ctx, caller, { customerId, serviceStartOption: 'ChargeForAllMissedPeriods' }, at('2026-05-02'));
    const lines = recurringLines((await listInvoices(t, customerId)).slice(1));
    expect(lines.map((c) => c.startServiceDate)).toEqual(['2026-02-28', '2026-03-31', '2026-04-30']);
    expect((await readSubscription(t, subscriptionId)).nextPeriodStartDate).toBe('2026-05-31');
  });

  it('follows a SpecifiedDate billing day (1st of the month): partial first period, then whole months', async () => {
    const customerId = await newCustomer(t, {
      monthlyBillingPeriodConfiguration: { type: 'SpecifiedDate', rule: 'SingleInvoice', day: 1 },
    });
    const subscriptionId = await newSubscription(t, customerId);
    const caller = callerOf(t.account);
    await activateCustomer(
      t.app.ctx,
      caller,
      { customerId, ...ACTIVATION_FLAGS },
      { preview: false, sideEffects: false, now: at('2026-01-15') },
    );
    // 19.99 × 17 / 31 = 10.9623, plus the setup fee
    expect((await listInvoices(t, customerId))[0]).toMatchObject({
      invoiceAmount: 20.96,
      charges: [{ startServiceDate: '2026-01-15', endServiceDate: '2026-02-01' }, {}],
    });
    await holdCustomer(t.app.ctx, caller, customerId, at('2026-01-20'));
    await unholdCustomer(
      t.app.ctx,
      caller,
      { customerId, serviceStartOption: 'ChargeForAllMissedPeriods', prorate: true },
      at('2026-04-10'),
    );
    const lines = recurringLines((await listInvoices(t, customerId)).slice(1));
    // 19.99 × 21 / 30 = 13.993 for the running April period
    expect(lines.map((c) => [c.startServiceDate, c.endServiceDate, c.amount])).toEqual([
      ['2026-02-01', '2026-03-01', 19.99],
      ['2026-03-01', '2026-04-01', 19.99],
      ['2026-04-10', '2026-05-01', 13.99],
    ]);
    expect((await readSubscription(t, subscriptionId)).nextPeriodStartDate).toBe('2026-05-01');
  });

  it('follows a SpecifiedDate billing day of 30 through February', async () => {
    const customerId = await newCustomer(t);
    const setting = (await t.call('GET', `/v1/customerbillingsetting/${customerId}`)).json();
    const put = await t.call('PUT', '/v1/customerbillingsetting', {
      ...setting,
      billingPeriodConfigurations: [{ type: 'SpecifiedDate', rule: 'SingleInvoice', interval: 'Monthly', day: 30 }],
    });
    expect(put.statusCode, put.body).toBe(200);
    const subscriptionId = await newSubscription(t, customerId);
    const caller = callerOf(t.account);
    await activateCustomer(
      t.app.ctx,
      caller,
      { customerId, ...ACTIVATION_FLAGS },
      { preview: false, sideEffects: false, now: at('2026-02-10') },
    );
    expect((await readSubscription(t, subscriptionId)).nextPeriodStartDate).toBe('2026-02-28');
    await holdCustomer(t.app.ctx, caller, customerId, at('2026-02-15'));
    await unholdCustomer(t.app.ctx, caller, { customerId, serviceStartOption: 'ChargeForAllMissedPeriods' }, at('2026-05-05'));
    const lines = recurringLines((await listInvoices(t, customerId)).slice(1));
    expect(lines.map((c) => [c.startServiceDate, c.endServiceDate, c.amount])).toEqual([
      ['2026-02-28', '2026-03-30', 19.99],
      ['2026-03-30', '2026-04-30', 19.99],
      ['2026-04-30', '2026-05-30', 19.99],
    ]);
    expect((await readSubscription(t, subscriptionId)).nextPeriodStartDate).toBe('2026-05-30');
  });

  it('counts coupon periods across the missed periods it bills (FIVEOFF: three periods)', async () => {
    const customerId = await newCustomer(t);
    const subscriptionId = await newSubscription(t, customerId);
    const subscription = await readSubscription(t, subscriptionId);
    expect((await t.call('PUT', '/v1/subscriptions', { ...subscription, coupons: [{ code: 'FIVEOFF' }] })).statusCode).toBe(200);
    const caller = callerOf(t.account);
    await activateCustomer(
      t.app.ctx,
      caller,
      { customerId, ...ACTIVATION_FLAGS },
      { preview: false, sideEffects: false, now: at('2026-01-10') },
    );
    await holdCustomer(t.app.ctx, caller, customerId, at('2026-01-20'));
    const preview = await unholdCustomer(
      t.app.ctx,
      caller,
      { customerId, serviceStartOption: 'ChargeForAllMissedPeriods', preview: true },
      at('2026-05-20'),
    );
    const previewTotals = [preview.invoicePreview!, ...preview.additionalInvoicesForPreview!].map((i) => i.total);
    await unholdCustomer(t.app.ctx, caller, { customerId, serviceStartOption: 'ChargeForAllMissedPeriods' }, at('2026-05-20'));
    const invoices = await listInvoices(t, customerId);
    // The first invoice used one period; two are left for 10 Feb and 10 Mar; 10 Apr and 10 May pay in full.
    expect(invoices.map((i) => i.invoiceAmount)).toEqual([24.99, 14.99, 14.99, 19.99, 19.99]);
    expect(previewTotals).toEqual([14.99, 14.99, 19.99, 19.99]);
    expect((await readSubscription(t, subscriptionId)).coupons).toMatchObject([{ code: 'FIVEOFF', periodsUsed: 3, remainingPeriods: 0 }]);
  });

  it('bills a yearly subscription once for the year running today', async () => {
    const { customerId, subscriptionId, caller } = await heldSince('2025-03-10', '2025-04-01', BASIC_YEARLY);
    await unholdCustomer(t.app.ctx, caller, { customerId, serviceStartOption: 'ChargeForAllMissedPeriods' }, at('2026-04-20'));
    const lines = recurringLines((await listInvoices(t, customerId)).slice(1));
    expect(lines.map((c) => [c.startServiceDate, c.endServiceDate, c.amount])).toEqual([['2026-03-10', '2027-03-10', 199]]);
    expect((await readSubscription(t, subscriptionId)).nextPeriodStartDate).toBe('2027-03-10');
    const rows = await subscriptionRows(t, customerId);
    expect(rows[0]!.suspendedAt).toBeNull();
  });
});
