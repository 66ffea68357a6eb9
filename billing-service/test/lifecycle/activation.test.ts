import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { deposit, expectError, ledgerRows } from './lifecycle-fixtures.js';
import {
  ACTIVATION_FLAGS,
  BASIC_MONTHLY,
  BASIC_YEARLY,
  PRO_MONTHLY,
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
  ONTARIO_BILLING,
} from '../helpers/api-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

async function nextInvoiceNumber(accountId: number): Promise<number> {
  const row = await t.database.db.selectFrom('accounts').select('nextInvoiceNumber').where('id', '=', accountId).executeTakeFirstOrThrow();
  return Number(row.nextInvoiceNumber);
}

describe('activation preview', () => {
  it('needs only customerId, returns the Draft customer with the simulated first invoice, and changes nothing', async () => {
    const customerId = await newCustomer(t, { firstName: 'Preview', ...ONTARIO_BILLING });
    const subscriptionId = await newSubscription(t, customerId);
    const numberBefore = await nextInvoiceNumber(t.account.accountId);
    const customerBefore = await readCustomer(t, customerId);
    expect(customerBefore.status).toBe('Draft');

    const res = await activate(t, customerId, {}, '?preview=true');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ id: customerId, status: 'Draft', firstName: 'Preview' });
    expect(body.additionalInvoicesForPreview).toEqual([]);
    const preview = body.invoicePreview;
    // 19.99 for the first month plus the 10.00 setup fee; GST 5 % and HST 8 % on 29.99.
    expect(preview).toMatchObject({ subtotal: 29.99, totalDiscount: 0, totalTaxes: 3.9, total: 33.89, currency: 'USD' });
    expect(preview.draftTaxes).toEqual([
      { name: 'GST', rate: 0.05, amount: 1.5 },
      { name: 'HST', rate: 0.08, amount: 2.4 },
    ]);
    expect(preview.draftCharges).toHaveLength(2);
    for (const charge of preview.draftCharges) {
      for (const field of [
        'name',
        'description',
        'quantity',
        'unitPrice',
        'proratedUnitPrice',
        'amount',
        'taxableAmount',
        'startServiceDate',
        'endServiceDate',
        'draftDiscounts',
      ]) {
        expect(charge, field).toHaveProperty(field);
      }
    }
    const [recurring, setup] = preview.draftCharges;
    expect(recurring).toMatchObject({
      name: 'Seat',
      quantity: 1,
      unitPrice: 19.99,
      proratedUnitPrice: 19.99,
      amount: 19.99,
      taxableAmount: 19.99,
      draftDiscounts: [],
    });
    expect(setup).toMatchObject({ name: 'Seat (setup fee)', amount: 10, taxableAmount: 10 });
    const today = new Date().toISOString().slice(0, 10);
    expect(recurring.startServiceDate).toBe(today);
    expect(preview.effectiveTimestamp).toBe(`${today}T00:00:00.000Z`);

    // Nothing changed: statuses, invoices, the ledger and the account's invoice numbers.
    expect(await readCustomer(t, customerId)).toEqual(customerBefore);
    expect((await readSubscription(t, subscriptionId)).status).toBe('Draft');
    expect(await listInvoices(t, customerId)).toEqual([]);
    expect(await ledgerRows(t, customerId)).toEqual([]);
    expect(await nextInvoiceNumber(t.account.accountId)).toBe(numberBefore);
    // Previewing twice gives the same invoice.
    expect((await activate(t, customerId, {}, '?preview=true')).json().invoicePreview).toEqual(preview);
  });

  it('shows discounts from coupons in the preview', async () => {
    const customerId = await newCustomer(t);
    const subscriptionId = await newSubscription(t, customerId);
    const subscription = await readSubscription(t, subscriptionId);
    const put = await t.call('PUT', '/v1/subscriptions', { ...subscription, coupons: [{ code: 'WELCOME10' }] });
    expect(put.statusCode, put.body).toBe(200);
    const preview = (await activate(t, customerId, {}, '?preview=true')).json().invoicePreview;
    expect(preview).toMatchObject({ subtotal: 29.99, totalDiscount: 2, draftTaxes: [], totalTaxes: 0, total: 27.99 });
    expect(preview.draftCharges[0].draftDiscounts).toEqual([{ name: '10% off the first period', amount: 2 }]);
  });

  it('lists the other invoices in additionalInvoicesForPreview when several would be posted', async () => {
    const customerId = await newCustomer(t, {
      monthlyBillingPeriodConfiguration: { type: 'CustomerActivation', rule: 'MultipleInvoices' },
    });
    const first = await newSubscription(t, customerId, BASIC_MONTHLY);
    const second = await newSubscription(t, customerId, PRO_MONTHLY);
    const body = (await activate(t, customerId, { activateAllSubscriptions: true }, '?preview=true')).json();
    expect(body.status).toBe('Draft');
    expect(body.invoicePreview.draftCharges.map((c: { subscriptionId: number }) => c.subscriptionId)).toEqual([first, first]);
    expect(body.invoicePreview.total).toBe(29.99);
    expect(body.additionalInvoicesForPreview).toHaveLength(1);
    // PRO: 5 seats × 8.00 + support 9.00 + support setup fee 25.00.
    expect(body.additionalInvoicesForPreview[0]).toMatchObject({ subtotal: 74, total: 74 });
    expect(body.additionalInvoicesForPreview[0].draftCharges.every((c: { subscriptionId: number }) => c.subscriptionId === second)).toBe(
      true,
    );
  });

  it('puts monthly and yearly subscriptions on one invoice by default', async () => {
    const customerId = await newCustomer(t);
    await newSubscription(t, customerId, BASIC_MONTHLY);
    await newSubscription(t, customerId, BASIC_YEARLY);
    const body = (await activate(t, customerId, {}, '?preview=true')).json();
    expect(body.invoicePreview.total).toBe(228.99);
    expect(body.additionalInvoicesForPreview).toEqual([]);
  });

  it('keeps zero-dollar lines only with showZeroDollarCharges=true', async () => {
    const customerId = await newCustomer(t);
    const subscriptionId = await newSubscription(t, customerId, PRO_MONTHLY);
    const subscription = await readSubscription(t, subscriptionId);
    const support = subscription.subscriptionProducts.find((p: { productCode: string }) => p.productCode === 'SUPPORT');
    const put = await t.call('PUT', '/v1/subscriptions', {
      ...subscription,
      subscriptionProducts: [{ id: support!.id, priceOverride: '0' }],
    });
    expect(put.statusCode, put.body).toBe(200);
    const names = (res: { json(): any }) => res.json().invoicePreview.draftCharges.map((c: { name: string }) => c.name);
    expect(names(await activate(t, customerId, {}, '?preview=true&showZeroDollarCharges=true'))).toEqual([
      'Seat',
      'Priority support',
      'Priority support (setup fee)',
    ]);
    expect(names(await activate(t, customerId, {}, '?preview=true&showZeroDollarCharges=false'))).toEqual([
      'Seat',
      'Priority support (setup fee)',
    ]);
  });

  it('gives a null invoicePreview for a customer without subscriptions', async () => {
    const customerId = await newCustomer(t);
    const body = (await activate(t, customerId, {}, '?preview=true')).json();
    expect(body).toMatchObject({ status: 'Draft', invoicePreview: null, additionalInvoicesForPreview: [] });
  });

  it('refuses a bad preview flag or view', async () => {
    const customerId = await newCustomer(t);
    expectError(await activate(t, customerId, {}, '?preview=maybe'), 400);
    expectError(await activate(t, customerId, ACTIVATION_FLAGS, '?view=everything'), 400);
    expect((await readCustomer(t, customerId)).status).toBe('Draft');
  });
});

describe('activation flags', () => {
  it('lists each of the three missing flags, keyed on it, when not previewing', async () => {
    const customerId = await newCustomer(t);
    await newSubscription(t, customerId);
    const errors = expectError(await activate(t, customerId, {}), 400);
    expect(errors.map((e) => e.Key).sort()).toEqual([
      'activateAllDraftPurchases',
      'activateAllSubscriptions',
      'temporarilyDisableAutoPost',
    ]);
    for (const missing of Object.keys(ACTIVATION_FLAGS)) {
      const flags: Record<string, unknown> = { ...ACTIVATION_FLAGS };
      delete flags[missing];
      const one = expectError(await activate(t, customerId, flags), 400);
      expect(one.map((e) => e.Key)).toEqual([missing]);
      // null counts as missing
      const asNull = expectError(await activate(t, customerId, { ...flags, [missing]: null }), 400);
      expect(asNull.map((e) => e.Key)).toEqual([missing]);
    }
    expect(await listInvoices(t, customerId)).toEqual([]);
    expect((await readCustomer(t, customerId)).status).toBe('Draft');
  });

  it('requires customerId even for a preview', async () => {
    expectError(await t.call('POST', '/v1/customeractivation?preview=true', {}), 400, { Key: 'customerId' });
  });
});

describe('Draft → Active', () => {
  it('activates the customer and its Draft subscriptions, and posts the first invoice (view=sideeffects)', async () => {
    const customerId = await newCustomer(t, ONTARIO_BILLING);
    const subscriptionId = await newSubscription(t, customerId);
    const res = await activate(t, customerId, ACTIVATION_FLAGS, '?view=sideeffects');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ id: customerId, status: 'Active' });
    expect(body.invoices).toHaveLength(1);
    const [invoice] = body.invoices;
    expect(invoice).toMatchObject({
      status: 'Posted',
      customerId,
      invoiceAmount: 33.89,
      subtotal: 29.99,
      totalTaxes: 3.9,
      outstandingBalance: 33.89,
      totalPayments: 0,
      terms: 'Net0',
      currency: 'USD',
    });
    expect(invoice.postedTimestamp).not.toBeNull();
    expect((await t.call('GET', `/v1/Invoices/${invoice.id}`)).json()).toEqual(invoice);

    const subscription = await readSubscription(t, subscriptionId);
    expect(subscription).toMatchObject({ status: 'Active', hasPostedInvoice: true });
    expect(subscription.activatedTimestamp).not.toBeNull();
    expect(subscription.nextPeriodStartDate).toBe(invoice.charges[0].endServiceDate);

    const ledger = await ledgerRows(t, customerId);
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ entryType: 'invoice', invoiceId: invoice.id });
    expect(Number(ledger[0]!.amount)).toBe(33.89);
    const overview = await readOverview(t, customerId);
    expect(overview).toMatchObject({ status: 'Active', arBalance: 33.89, unallocatedPayments: 0 });
  });

  it('posts several invoices in one activation: numbered in turn, each with its ledger entry, each subscription moved on once', async () => {
    const account = await t.newAccount();
    const customerId = await newCustomer(
      t,
      { monthlyBillingPeriodConfiguration: { type: 'CustomerActivation', rule: 'MultipleInvoices' } },
      account,
    );
    const first = await newSubscription(t, customerId, BASIC_MONTHLY, account);
    const second = await newSubscription(t, customerId, PRO_MONTHLY, account);
    const res = await activate(t, customerId, ACTIVATION_FLAGS, '?view=sideeffects', account);
    expect(res.statusCode, res.body).toBe(200);
    const invoices: Array<{
      id: number;
      invoiceNumber: number;
      invoiceAmount: number;
      charges: Array<{ subscriptionId: number; endServiceDate: string }>;
    }> = res.json().invoices;
    expect(invoices.map((i) => [i.invoiceNumber, i.invoiceAmount])).toEqual([
      [1, 29.99],
      [2, 74],
    ]);
    expect(await nextInvoiceNumber(account.accountId)).toBe(3);
    const ledger = await ledgerRows(t, customerId);
    expect(ledger.map((e) => [e.entryType, e.invoiceId, Number(e.amount), Number(e.openAmount)])).toEqual([
      ['invoice', invoices[0]!.id, 29.99, 29.99],
      ['invoice', invoices[1]!.id, 74, 74],
    ]);
    for (const [subscriptionId, invoice] of [
      [first, invoices[0]!],
      [second, invoices[1]!],
    ] as const) {
      const subscription = await readSubscription(t, subscriptionId, account);
      expect(subscription).toMatchObject({
        status: 'Active',
        hasPostedInvoice: true,
        nextPeriodStartDate: invoice.charges[0]!.endServiceDate,
      });
    }
    // the response's recurring revenue: BASIC 19.99 + PRO 5 × 8.00 + 9.00 a month (setup fees are not recurring)
    expect(res.json()).toMatchObject({ status: 'Active', monthlyRecurringRevenue: 68.99, netMonthlyRecurringRevenue: 68.99 });
  });

  it('counts a coupon applied to the first invoice as used once', async () => {
    const customerId = await newCustomer(t);
    const subscriptionId = await newSubscription(t, customerId);
    const subscription = await readSubscription(t, subscriptionId);
    expect((await t.call('PUT', '/v1/subscriptions', { ...subscription, coupons: [{ code: 'WELCOME10' }] })).statusCode).toBe(200);
    const res = await activate(t, customerId, ACTIVATION_FLAGS, '?view=sideeffects');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().invoices[0]).toMatchObject({ subtotal: 29.99, totalDiscount: 2, invoiceAmount: 27.99 });
    const coupons = await t.database.db
      .selectFrom('subscriptionCoupons')
      .select(['couponCode', 'periodsUsed'])
      .where('subscriptionId', '=', subscriptionId)
      .execute();
    expect(coupons).toEqual([{ couponCode: 'WELCOME10', periodsUsed: 1 }]);
  });

  it('returns the customer without invoices when view is not given', async () => {
    const customerId = await newCustomer(t);
    await newSubscription(t, customerId);
    const res = await activate(t, customerId);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().status).toBe('Active');
    expect(res.json().invoices).toBeUndefined();
    expect(await listInvoices(t, customerId)).toHaveLength(1);
  });

  it('leaves the subscriptions Draft, and bills nothing, when activateAllSubscriptions is false', async () => {
    const customerId = await newCustomer(t);
    const subscriptionId = await newSubscription(t, customerId);
    const res = await activate(t, customerId, { ...ACTIVATION_FLAGS, activateAllSubscriptions: false }, '?view=sideeffects');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'Active', invoices: [] });
    expect((await readSubscription(t, subscriptionId)).status).toBe('Draft');
    expect(await listInvoices(t, customerId)).toEqual([]);
  });

  it('activates a customer without subscriptions without an invoice', async () => {
    const customerId = await newCustomer(t);
    const res = await activate(t, customerId, ACTIVATION_FLAGS, '?view=sideeffects');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'Active', invoices: [] });
  });

  it('leaves the first invoice Draft with temporarilyDisableAutoPost: nothing on the ledger, no AR balance', async () => {
    const customerId = await newCustomer(t);
    const subscriptionId = await newSubscription(t, customerId);
    await deposit(t, customerId, '100.00');
    const res = await activate(t, customerId, { ...ACTIVATION_FLAGS, temporarilyDisableAutoPost: true }, '?view=sideeffects');
    expect(res.statusCode, res.body).toBe(200);
    const [invoice] = res.json().invoices;
    expect(invoice).toMatchObject({
      status: 'Draft',
      postedTimestamp: null,
      invoiceAmount: 29.99,
      totalPayments: 0,
      outstandingBalance: 29.99,
    });
    expect((await readSubscription(t, subscriptionId)).status).toBe('Active');
    // Only the deposit is on the ledger, still unallocated.
    const ledger = await ledgerRows(t, customerId);
    expect(ledger.map((e) => e.entryType)).toEqual(['payment']);
    expect(Number(ledger[0]!.openAmount)).toBe(100);
    expect(await readOverview(t, customerId)).toMatchObject({ arBalance: 0, unallocatedPayments: 100 });
  });

  it('leaves the first invoice Draft when the customer does not auto-post draft invoices', async () => {
    const customerId = await newCustomer(t, { billingSetting: { autoPostDraftInvoice: false } });
    await newSubscription(t, customerId);
    const res = await activate(t, customerId, ACTIVATION_FLAGS, '?view=sideeffects');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().invoices[0].status).toBe('Draft');
    expect((await readOverview(t, customerId)).arBalance).toBe(0);
  });
});

describe('a deposit collected before activation', () => {
  it('pays the first invoice at once when it is larger; the rest stays unallocated', async () => {
    const customerId = await newCustomer(t);
    const paymentId = await deposit(t, customerId, '50.00');
    await newSubscription(t, customerId);
    const res = await activate(t, customerId, ACTIVATION_FLAGS, '?view=sideeffects');
    expect(res.statusCode, res.body).toBe(200);
    const [invoice] = res.json().invoices;
    expect(invoice).toMatchObject({ status: 'Paid', invoiceAmount: 29.99, totalPayments: 29.99, outstandingBalance: 0 });
    expect((await t.call('GET', `/v1/Invoices/${invoice.id}`)).json()).toMatchObject({
      status: 'Paid',
      totalPayments: 29.99,
      outstandingBalance: 0,
    });
    expect(await readOverview(t, customerId)).toMatchObject({ arBalance: 0, unallocatedPayments: 20.01 });

    const allocations = await t.database.db.selectFrom('ledgerAllocations').selectAll().where('sourceEntryId', '=', paymentId).execute();
    expect(allocations).toHaveLength(1);
    expect(Number(allocations[0]!.amount)).toBe(29.99);
  });

  it('pays part of the first invoice when it is smaller', async () => {
    const customerId = await newCustomer(t);
    await deposit(t, customerId, '10.00');
    await newSubscription(t, customerId);
    const [invoice] = (await activate(t, customerId, ACTIVATION_FLAGS, '?view=sideeffects')).json().invoices;
    expect(invoice).toMatchObject({ status: 'PartiallyPaid', invoiceAmount: 29.99, totalPayments: 10, outstandingBalance: 19.99 });
    expect(await readOverview(t, customerId)).toMatchObject({ arBalance: 19.99, unallocatedPayments: 0 });
  });

  it('pays the invoice exactly when it equals the previewed total (the checkout flow)', async () => {
    const customerId = await newCustomer(t, ONTARIO_BILLING);
    await newSubscription(t, customerId);
    const total = (await activate(t, customerId, {}, '?preview=true')).json().invoicePreview.total;
    await deposit(t, customerId, String(total));
    const [invoice] = (await activate(t, customerId, ACTIVATION_FLAGS, '?view=sideeffects')).json().invoices;
    expect(invoice).toMatchObject({ status: 'Paid', invoiceAmount: total, totalPayments: total, outstandingBalance: 0 });
    expect(await readOverview(t, customerId)).toMatchObject({ arBalance: 0, unallocatedPayments: 0 });
  });

  it('uses several deposits, oldest first', async () => {
    const customerId = await newCustomer(t);
    const older = await deposit(t, customerId, '20.00');
    const newer = await deposit(t, customerId, '20.00');
    await newSubscription(t, customerId);
    const [invoice] = (await activate(t, customerId, ACTIVATION_FLAGS, '?view=sideeffects')).json().invoices;
    expect(invoice).toMatchObject({ status: 'Paid', totalPayments: 29.99 });
    const open = Object.fromEntries((await ledgerRows(t, customerId)).map((e) => [e.id, Number(e.openAmount)]));
    expect(open[older]).toBe(0);
    expect(open[newer]).toBe(10.01);
  });
});

describe('refused activations', () => {
  it('refuses an Active customer with "cannot process since status is Active", previews included', async () => {
    const { customerId } = await activeCustomer(t);
    expectError(await activate(t, customerId), 400, { Key: 'Api Error', Value: 'cannot process since status is Active' });
    expectError(await activate(t, customerId, {}, '?preview=true'), 400, { Value: 'cannot process since status is Active' });
    expect(await listInvoices(t, customerId)).toHaveLength(1);
  });

  it('refuses a customer on Hold or Cancelled, naming the status', async () => {
    const { customerId } = await activeCustomer(t);
    expect((await hold(t, customerId)).statusCode).toBe(200);
    expectError(await activate(t, customerId), 400, { Value: 'cannot process since status is Hold' });
    expect((await cancel(t, customerId, 'None')).statusCode).toBe(204);
    expectError(await activate(t, customerId), 400, { Value: 'cannot process since status is Cancelled' });
    expect((await readCustomer(t, customerId)).status).toBe('Cancelled');
    expect(await listInvoices(t, customerId)).toHaveLength(1);
  });

  it('refuses a Cancelled Draft customer', async () => {
    const customerId = await newCustomer(t);
    expect((await cancel(t, customerId, 'None')).statusCode).toBe(204);
    expectError(await activate(t, customerId), 400, { Value: 'cannot process since status is Cancelled' });
  });

  it("answers 404 for an unknown customer and for another account's customer", async () => {
    expectError(await activate(t, 987654), 404);
    expectError(await activate(t, 987654, {}, '?preview=true'), 404);
    const other = await t.newAccount();
    const foreign = await newCustomer(t, {}, other);
    await newSubscription(t, foreign, BASIC_MONTHLY, other);
    expectError(await activate(t, foreign), 404);
    expectError(await activate(t, foreign, {}, '?preview=true'), 404);
    expect((await readCustomer(t, foreign, other)).status).toBe('Draft');
  });
});

describe('invoice numbers', () => {
  it('are sequential per account, across customers, starting at 1 for a new account', async () => {
    const account = await t.newAccount();
    const numbers: number[] = [];
    for (let i = 0; i < 3; i++) {
      const { invoices } = await activeCustomer(t, { account });
      numbers.push(...invoices.map((inv) => inv.invoiceNumber));
    }
    // A preview and a refused activation use no number.
    const draft = await newCustomer(t, {}, account);
    await newSubscription(t, draft, BASIC_MONTHLY, account);
    await activate(t, draft, {}, '?preview=true', account);
    await activate(t, draft, {}, '', account);
    const { invoices } = await activeCustomer(t, { account, frequencies: [BASIC_MONTHLY] });
    numbers.push(...invoices.map((inv) => inv.invoiceNumber));
    expect(numbers).toEqual([1, 2, 3, 4]);
  });
});
