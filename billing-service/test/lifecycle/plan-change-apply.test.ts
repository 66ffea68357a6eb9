import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACTIVATION_FLAGS,
  BASIC_MONTHLY,
  BASIC_YEARLY,
  PRO_MONTHLY,
  activate,
  cancel,
  listInvoices,
  newCustomer,
  newSubscription,
  readSubscription,
} from '../helpers/api-fixtures.js';
import { startTestApp, testCatalog, type TestAccount, type TestApp } from '../helpers/test-app.js';
import { deposit, expectError, ledgerRows } from './lifecycle-fixtures.js';

/*
 * POST /v1/subscriptions/{id}/changes applied now (issue 28): through the HTTP layer, on the account's own clock.
 * Each story previews the change, applies it, and finds the preview's invoice posted line by line.
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    catalog: testCatalog({
      planChanges: { allowed: [{ from: 'BASIC', to: 'PRO' }] },
      coupons: [...testCatalog().coupons, { code: 'LOYAL10', name: 'Loyalty', kind: 'Percentage', value: '10', duration: 'Forever' }],
    }),
    app: { testClocks: true, backgroundTasks: false, webhooks: { allowHttp: true, allowPrivate: true }, webhookWorker: false },
  });
});
afterAll(async () => t?.close());

type Body = Record<string, any>;
const NEW_YORK = { billing: { country: 'US', state: 'NY' } };

async function advance(account: TestAccount, to: string) {
  const res = await t.call('POST', '/v1/testclock/advance', { to }, { as: account });
  expect(res.statusCode, res.body).toBe(200);
}

function change(subscriptionId: number, body: Body, account: TestAccount, headers?: Record<string, string>) {
  return t.call('POST', `/v1/subscriptions/${subscriptionId}/changes`, body, { as: account, ...(headers ? { headers } : {}) });
}

/** A fresh account on the given day, with a webhook endpoint for every event (never delivered here: the outbox is read). */
async function accountOn(date: string): Promise<TestAccount> {
  const account = await t.newAccount();
  await advance(account, date);
  const hook = await t.call('POST', '/v1/webhookEndpoints', { url: 'http://127.0.0.1:9/hooks', eventTypes: ['*'] }, { as: account });
  expect(hook.statusCode, hook.body).toBe(200);
  return account;
}

/** An Active customer (New York: sales tax 4 %) on one plan frequency, activated on the account's clock, paid in advance. */
async function subscriber(account: TestAccount, planFrequencyId: number, options: { seats?: number; funds?: string } = {}) {
  const customerId = await newCustomer(t, NEW_YORK, account);
  const subscriptionId = await newSubscription(t, customerId, planFrequencyId, account);
  if (options.seats !== undefined) {
    await t.database.db
      .updateTable('subscriptionProducts')
      .set({ quantity: String(options.seats) })
      .where('subscriptionId', '=', subscriptionId)
      .where('productCode', '=', 'SEAT')
      .execute();
  }
  await deposit(t, customerId, options.funds ?? '500', account);
  const res = await activate(t, customerId, ACTIVATION_FLAGS, '', account);
  expect(res.statusCode, res.body).toBe(200);
  return { customerId, subscriptionId };
}

/** A line as both shapes carry it: what the preview shows must be what is posted. */
const lineOf = (c: Body) => ({
  chargeType: c.chargeType,
  productCode: c.productCode,
  subscriptionId: c.subscriptionId,
  name: c.name,
  quantity: c.quantity,
  unitPrice: c.unitPrice,
  proratedUnitPrice: c.proratedUnitPrice,
  amount: c.amount,
  taxableAmount: c.taxableAmount,
  draftDiscounts: c.draftDiscounts,
  startServiceDate: c.startServiceDate,
  endServiceDate: c.endServiceDate,
});

/** Previews the change, applies it, and checks the posted invoice is the preview's, line by line; returns the answers. */
async function previewThenApply(subscriptionId: number, body: Body, account: TestAccount) {
  const preview = await change(subscriptionId, { ...body, preview: true }, account);
  expect(preview.statusCode, preview.body).toBe(200);
  const applied = await change(subscriptionId, body, account);
  expect(applied.statusCode, applied.body).toBe(200);
  const p = preview.json();
  const a = applied.json();
  expect(a.invoice.charges.map(lineOf)).toEqual(p.invoice.draftCharges.map(lineOf));
  expect(a.invoice.taxes).toEqual(p.invoice.draftTaxes);
  expect([a.invoice.subtotal, a.invoice.totalDiscount, a.invoice.totalTaxes, a.invoice.invoiceAmount]).toEqual([
    p.invoice.subtotal,
    p.invoice.totalDiscount,
    p.invoice.totalTaxes,
    p.invoice.total,
  ]);
  expect([a.invoice.effectiveTimestamp, a.invoice.dueTimestamp, a.invoice.currency]).toEqual([
    p.invoice.effectiveTimestamp,
    p.invoice.dueTimestamp,
    p.invoice.currency,
  ]);
  expect(a.nextRenewal).toEqual(p.nextRenewal);
  // the subscription the preview showed is the one GET shows now (its frequency's subscriber count aside)
  const read = await readSubscription(t, subscriptionId, account);
  const { planFrequency: _a, ...shown } = a.subscription;
  const { planFrequency: _p, subscriptionProducts: previewProducts, ...previewed } = p.subscription;
  expect(shown).toMatchObject(previewed);
  expect(read.subscriptionProducts.map((x: Body) => [x.productCode, x.quantity, x.unitPrice])).toEqual(
    previewProducts.map((x: Body) => [x.productCode, x.quantity, x.unitPrice]),
  );
  return { preview: p, applied: a };
}

async function eventCount(account: TestAccount, type: string) {
  const rows = await t.database.db
    .selectFrom('webhookEvents')
    .select('id')
    .where('accountId', '=', account.accountId)
    .where('eventType', '=', type)
    .execute();
  return rows.length;
}

const brief = (c: Body) => `${c.chargeType} ${c.productCode} ×${c.quantity} ${c.startServiceDate}→${c.endServiceDate} ${c.amount}`;

describe('a plan change applied now: the preview is what is posted', () => {
  it('Basic monthly → Pro monthly on day 10 of a 31-day month: posted, collected from held funds, events once', async () => {
    const account = await accountOn('2027-01-01T09:00:00Z');
    const { customerId, subscriptionId } = await subscriber(account, BASIC_MONTHLY);
    await advance(account, '2027-01-10T15:00:00Z');

    const { applied } = await previewThenApply(subscriptionId, { planFrequencyId: PRO_MONTHLY }, account);
    expect(applied.invoice.charges.map(brief)).toEqual([
      'Credit SEAT ×1 2027-01-10→2027-02-01 -14.19',
      'Recurring SEAT ×5 2027-01-10→2027-02-01 28.39',
      'Recurring SUPPORT ×1 2027-01-10→2027-02-01 6.39',
    ]);
    expect(applied.invoice).toMatchObject({ invoiceAmount: 21.41, status: 'Paid', outstandingBalance: 0, totalPayments: 21.41 });
    expect(applied.nextRenewal).toEqual({ date: '2027-02-01', amount: 50.96 });
    expect(applied.subscription).toMatchObject({ planCode: 'PRO', nextPeriodStartDate: '2027-02-01', amount: 49, pendingChange: null });
    expect(applied.subscription.planFrequency.id).toBe(PRO_MONTHLY);

    const invoices = await listInvoices(t, customerId, account);
    expect(invoices).toHaveLength(2);
    expect(invoices[1]!.id).toBe(applied.invoice.id);
    // the old line records its credit and ends on the change day
    const old = await t.database.db
      .selectFrom('invoiceCharges')
      .select(['creditedAmount', 'replacedOn'])
      .where('invoiceId', '=', invoices[0]!.id)
      .where('kind', '=', 'Recurring')
      .executeTakeFirstOrThrow();
    expect([Number(old.creditedAmount), old.replacedOn]).toEqual([14.19, '2027-01-10']);
    for (const type of ['subscription.updated', 'subscription.changeApplied', 'invoice.posted'])
      expect(await eventCount(account, type), type).toBe(type === 'invoice.posted' ? 2 : 1);
    const audit = await t.database.db
      .selectFrom('auditLog')
      .select('changes')
      .where('entityType', '=', 'Subscription')
      .where('entityId', '=', subscriptionId)
      .where('action', '=', 'update')
      .execute();
    expect(audit).toHaveLength(1);

    // The renewal bills the new plan: 49.00 + 4 %
    await advance(account, '2027-02-01T10:00:00Z');
    const renewed = await listInvoices(t, customerId, account);
    expect(renewed.map((i) => i.invoiceAmount)).toEqual([expect.any(Number), 21.41, 50.96]);
  });

  it('3 → 8 seats on Pro: only the seats and support are credited and charged for the rest of the period', async () => {
    const account = await accountOn('2027-03-15T09:00:00Z');
    const { subscriptionId } = await subscriber(account, PRO_MONTHLY, { seats: 3 });
    await advance(account, '2027-03-22T10:00:00Z');
    const { applied } = await previewThenApply(subscriptionId, { quantities: { SEAT: 8 } }, account);
    // 24 of 31 days left: 3 × 8.00 → −18.58, 8 × 8.00 → 49.55; support −6.97 / +6.97
    expect(applied.invoice.charges.map(brief)).toEqual([
      'Credit SEAT ×3 2027-03-22→2027-04-15 -18.58',
      'Credit SUPPORT ×1 2027-03-22→2027-04-15 -6.97',
      'Recurring SEAT ×8 2027-03-22→2027-04-15 49.55',
      'Recurring SUPPORT ×1 2027-03-22→2027-04-15 6.97',
    ]);
    expect(applied.invoice.invoiceAmount).toBe(32.21); // 30.97 + 4 % (1.2388 → 1.24)
    expect(applied.subscription.subscriptionProducts.map((p: Body) => [p.productCode, p.quantity])).toEqual([
      ['SEAT', 8],
      ['SUPPORT', 1],
    ]);
    expect(applied.nextRenewal).toEqual({ date: '2027-04-15', amount: 75.92 });
  });

  it('monthly → yearly on the 31st: the unused month credited, a full year from today, the anniversary moves', async () => {
    const account = await accountOn('2027-03-15T09:00:00Z');
    const { subscriptionId } = await subscriber(account, BASIC_MONTHLY);
    await advance(account, '2027-03-31T10:00:00Z');
    const { applied } = await previewThenApply(subscriptionId, { planFrequencyId: BASIC_YEARLY }, account);
    expect(applied.invoice.charges.map(brief)).toEqual([
      'Credit SEAT ×1 2027-03-31→2027-04-15 -9.67',
      'Recurring SEAT ×1 2027-03-31→2028-03-31 199',
    ]);
    expect(applied.invoice.invoiceAmount).toBe(196.9); // 189.33 + 7.57
    expect(applied.subscription).toMatchObject({ nextPeriodStartDate: '2028-03-31' });
    expect(applied.nextRenewal).toEqual({ date: '2028-03-31', amount: 206.96 });
    const row = await t.database.db
      .selectFrom('subscriptions')
      .select(['anchorDay', 'currentPeriodStart', 'planFrequencyId'])
      .where('id', '=', subscriptionId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ anchorDay: 31, currentPeriodStart: '2027-03-31', planFrequencyId: BASIC_YEARLY });
  });

  it('an upgrade whose card is declined stays applied, its invoice open, then paid by a later payment', async () => {
    const account = await accountOn('2027-01-01T09:00:00Z');
    // the first invoice paid from funds held (31.19: 19.99 + 10.00 setup + 4 %), nothing more
    const { customerId, subscriptionId } = await subscriber(account, BASIC_MONTHLY, { funds: '31.19' });
    const card = await t.call(
      'POST',
      '/v1/paymentmethods/creditcard',
      {
        customerId,
        cardNumber: '4000000000000341',
        firstName: 'Ada',
        lastName: 'Lovelace',
        expirationMonth: 12,
        expirationYear: 40,
        cvv: '123',
      },
      { as: account },
    );
    expect(card.statusCode, card.body).toBe(200);
    const setting = (await t.call('GET', `/v1/customerbillingsetting/${customerId}`, undefined, { as: account })).json();
    const put = await t.call('PUT', '/v1/customerbillingsetting', { ...setting, autoCollect: true }, { as: account });
    expect(put.statusCode, put.body).toBe(200);
    await advance(account, '2027-01-10T15:00:00Z');

    const res = await change(subscriptionId, { planFrequencyId: PRO_MONTHLY }, account);
    expect(res.statusCode, res.body).toBe(200);
    const { invoice, subscription } = res.json();
    expect(subscription.planCode).toBe('PRO');
    expect(invoice).toMatchObject({ invoiceAmount: 21.41, status: 'Posted', outstandingBalance: 21.41 });
    const payments = (await t.call('GET', `/v1/customers/${customerId}/payments`, undefined, { as: account })).json() as Body[];
    expect(payments.map((p) => [p.status, p.declineCode, p.amount])).toEqual([['Failed', 'card_declined', 21.41]]);
    expect(await eventCount(account, 'payment.failed')).toBe(1);

    const paid = await t.call('POST', '/v1/payments', { customerId, amount: 21.41, paymentMethod: 'Check' }, { as: account });
    expect(paid.statusCode, paid.body).toBe(200);
    const after = (await t.call('GET', `/v1/invoices/${invoice.id}`, undefined, { as: account })).json();
    expect(after).toMatchObject({ status: 'Paid', outstandingBalance: 0 });
  });

  it('an upgrade whose card is declined is paid through dunning: the retry a day later charges the new default card', async () => {
    const account = await accountOn('2027-01-01T09:00:00Z');
    const { customerId, subscriptionId } = await subscriber(account, BASIC_MONTHLY, { funds: '31.19' });
    const addCard = async (cardNumber: string) => {
      const res = await t.call(
        'POST',
        '/v1/paymentmethods/creditcard',
        { customerId, cardNumber, firstName: 'Ada', lastName: 'Lovelace', expirationMonth: 12, expirationYear: 40, cvv: '123' },
        { as: account },
      );
      expect(res.statusCode, res.body).toBe(200);
      return res.json().id as number;
    };
    const setBilling = async (changes: Body) => {
      const setting = (await t.call('GET', `/v1/customerbillingsetting/${customerId}`, undefined, { as: account })).json();
      const put = await t.call('PUT', '/v1/customerbillingsetting', { ...setting, ...changes }, { as: account });
      expect(put.statusCode, put.body).toBe(200);
    };
    await addCard('4000000000000341');
    await setBilling({ autoCollect: true });
    await advance(account, '2027-01-10T15:00:00Z');

    const res = await change(subscriptionId, { planFrequencyId: PRO_MONTHLY }, account);
    expect(res.statusCode, res.body).toBe(200);
    const { invoice } = res.json();
    expect(invoice).toMatchObject({ invoiceAmount: 21.41, status: 'Posted', outstandingBalance: 21.41 });

    // the customer puts a good card on file; the billing clock's daily retry collects the change invoice with it
    const good = await addCard('4242424242424242');
    await setBilling({ defaultPaymentMethodId: good });
    await advance(account, '2027-01-11T15:00:00Z');
    const after = (await t.call('GET', `/v1/invoices/${invoice.id}`, undefined, { as: account })).json();
    expect(after).toMatchObject({ status: 'Paid', outstandingBalance: 0 });
    const payments = (await t.call('GET', `/v1/customers/${customerId}/payments`, undefined, { as: account })).json() as Body[];
    expect(payments.map((p) => [p.status, p.amount]).sort()).toEqual([
      ['Failed', 21.41],
      ['Succeeded', 21.41],
    ]);
  });

  it('a retry with the same Idempotency-Key posts once and answers the same', async () => {
    const account = await accountOn('2027-01-01T09:00:00Z');
    const { customerId, subscriptionId } = await subscriber(account, BASIC_MONTHLY);
    await advance(account, '2027-01-10T15:00:00Z');
    const headers = { 'idempotency-key': `change-${subscriptionId}` };
    const first = await change(subscriptionId, { planFrequencyId: PRO_MONTHLY }, account, headers);
    const second = await change(subscriptionId, { planFrequencyId: PRO_MONTHLY }, account, headers);
    expect(first.statusCode, first.body).toBe(200);
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json()).toEqual(first.json());
    expect(await listInvoices(t, customerId, account)).toHaveLength(2);
    expect(await eventCount(account, 'subscription.changeApplied')).toBe(1);
    // without the key, the same change again changes nothing: refused
    expectError(await change(subscriptionId, { planFrequencyId: PRO_MONTHLY }, account), 400, { Key: 'planFrequencyId' });
  });

  it('a later cancellation reverses the new lines only: the old days are not credited twice', async () => {
    const account = await accountOn('2027-01-01T09:00:00Z');
    const { customerId, subscriptionId } = await subscriber(account, BASIC_MONTHLY);
    await advance(account, '2027-01-10T15:00:00Z');
    const res = await change(subscriptionId, { planFrequencyId: PRO_MONTHLY }, account);
    expect(res.statusCode, res.body).toBe(200);
    await advance(account, '2027-01-20T15:00:00Z');
    const before = (await ledgerRows(t, customerId)).filter((e) => e.entryType === 'credit').length;
    expect((await cancel(t, customerId, 'Unearned', account)).statusCode).toBe(204);
    const credits = (await ledgerRows(t, customerId)).filter((e) => e.entryType === 'credit').slice(before);
    // 12 of the change invoice's 22 days, with the tax share 21.41 / 20.59: SEAT 28.39 → 16.10, SUPPORT 6.39 → 3.62
    expect(credits.map((c) => [c.invoiceId, Number(c.amount)])).toEqual([[res.json().invoice.id, 19.72]]);
    const old = await t.database.db
      .selectFrom('invoiceCharges')
      .innerJoin('invoices', 'invoices.id', 'invoiceCharges.invoiceId')
      .select('invoiceCharges.creditedAmount')
      .where('invoices.customerId', '=', customerId)
      .where('invoiceCharges.productCode', '=', 'SEAT')
      .where('invoiceCharges.kind', '=', 'Recurring')
      .orderBy('invoiceCharges.id')
      .execute();
    expect(old.map((c) => Number(c.creditedAmount))).toEqual([14.19, 16.1]);
  });

  it('a downgrade now with a net below 0: the invoice posted as previewed owes nothing, and its credit is held', async () => {
    const account = await accountOn('2027-03-15T09:00:00Z');
    const { customerId, subscriptionId } = await subscriber(account, PRO_MONTHLY);
    await advance(account, '2027-03-22T10:00:00Z');
    const held = async () =>
      (await ledgerRows(t, customerId)).filter((e) => e.entryType === 'credit').map((e) => [e.invoiceId, Number(e.openAmount)]);
    expect(await held()).toEqual([]);
    const { applied } = await previewThenApply(subscriptionId, { quantities: { SEAT: 2 }, timing: 'now' }, account);
    expect(applied.invoice).toMatchObject({ invoiceAmount: -19.32, totalTaxes: -0.74, status: 'Paid', outstandingBalance: 0 });
    expect(await held()).toEqual([[null, 19.32]]);
    // the renewal bills 2 seats and support: 25.00 + 4 %
    await advance(account, '2027-04-15T10:00:00Z');
    const renewal = (await listInvoices(t, customerId, account)).at(-1)!;
    expect(renewal.invoiceAmount).toBe(26);
  });

  it('a Percentage coupon carries over to the change only when it discounted the period being changed', async () => {
    const withCoupon = async (subscriptionId: number, account: TestAccount) => {
      const read = await readSubscription(t, subscriptionId, account);
      const res = await t.call('PUT', '/v1/subscriptions', { ...read, coupons: [{ code: 'LOYAL10' }] }, { as: account });
      expect(res.statusCode, res.body).toBe(200);
    };
    // discounted January (attached before the activation): the change's charges get 10 % off too, using no period
    const before = await accountOn('2027-01-01T09:00:00Z');
    const customerBefore = await newCustomer(t, NEW_YORK, before);
    const early = await newSubscription(t, customerBefore, BASIC_MONTHLY, before);
    await withCoupon(early, before);
    await deposit(t, customerBefore, '500', before);
    expect((await activate(t, customerBefore, ACTIVATION_FLAGS, '', before)).statusCode).toBe(200);
    await advance(before, '2027-01-10T15:00:00Z');
    const { applied: discounted } = await previewThenApply(early, { planFrequencyId: PRO_MONTHLY }, before);
    expect(discounted.invoice.totalDiscount).toBe(3.48);
    expect((await readSubscription(t, early, before)).coupons).toMatchObject([{ code: 'LOYAL10', periodsUsed: 1 }]);

    // attached on 2027-01-05, after January was billed: it did not discount January, so not the change either;
    // its first use is the February renewal
    const after = await accountOn('2027-01-01T09:00:00Z');
    const { subscriptionId: late } = await subscriber(after, BASIC_MONTHLY);
    await advance(after, '2027-01-05T12:00:00Z');
    await withCoupon(late, after);
    await advance(after, '2027-01-10T15:00:00Z');
    const { applied: undiscounted } = await previewThenApply(late, { planFrequencyId: PRO_MONTHLY }, after);
    expect(undiscounted.invoice.totalDiscount).toBe(0);
    expect(undiscounted.invoice.invoiceAmount).toBe(21.41);
    expect((await readSubscription(t, late, after)).coupons).toMatchObject([{ code: 'LOYAL10', periodsUsed: 0 }]);
  });

  it('refuses timing now while the period is billed on a Draft invoice (400 timing)', async () => {
    const account = await accountOn('2027-01-01T09:00:00Z');
    const customerId = await newCustomer(t, NEW_YORK, account);
    const subscriptionId = await newSubscription(t, customerId, BASIC_MONTHLY, account);
    const res = await activate(t, customerId, { ...ACTIVATION_FLAGS, temporarilyDisableAutoPost: true }, '', account);
    expect(res.statusCode, res.body).toBe(200);
    await advance(account, '2027-01-10T15:00:00Z');
    expectError(await change(subscriptionId, { planFrequencyId: PRO_MONTHLY, preview: true }, account), 400, {
      Key: 'timing',
      Value: /Draft/,
      Code: 'plan_change_draft_period',
    });
    expectError(await change(subscriptionId, { planFrequencyId: PRO_MONTHLY }, account), 400, {
      Key: 'timing',
      Code: 'plan_change_draft_period',
    });
    expect(await listInvoices(t, customerId, account)).toHaveLength(1);
  });
});
