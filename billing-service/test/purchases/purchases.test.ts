import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACTIVATION_FLAGS,
  DAY,
  ONTARIO_BILLING,
  activate,
  listInvoices,
  newCustomer as createdCustomer,
  newSubscription,
} from '../helpers/api-fixtures.js';
import { startTestApp, testCatalog, type TestAccount, type TestApp } from '../helpers/test-app.js';
import { expectError } from '../lifecycle/lifecycle-fixtures.js';

/**
 * Purchases (issue 40, an extension): one-time charges billed on the activation's invoice
 * (activateAllDraftPurchases), at once (invoiceNow) or on the next renewal's invoice, taxed like plan products.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    catalog: testCatalog({ currencies: { default: 'USD', allowed: ['USD', 'JPY', 'BHD'] } }),
    app: { testClocks: true, backgroundTasks: false, webhooks: { allowHttp: true, allowPrivate: true } },
  });
});
afterAll(async () => t?.close());

type Body = Record<string, any>;
/** The account bills in several currencies: a customer names its own (USD unless given). */
const newCustomer = (app: TestApp, body: Body = {}, account?: TestAccount) => createdCustomer(app, { currency: 'USD', ...body }, account);
const as = (account?: TestAccount) => (account ? { as: account } : {});

function purchase(body: Body, options: { account?: TestAccount; key?: string } = {}) {
  return t.call('POST', '/v1/purchases', body, {
    ...as(options.account),
    ...(options.key ? { headers: { 'idempotency-key': options.key } } : {}),
  });
}

async function purchased(body: Body, options: { account?: TestAccount; key?: string } = {}): Promise<Body> {
  const res = await purchase(body, options);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function readPurchase(id: number, account?: TestAccount): Promise<Body> {
  const res = await t.call('GET', `/v1/purchases/${id}`, undefined, as(account));
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** An Ontario customer (GST 5 % + HST 8 %) with a Draft BASIC monthly subscription (19.99 + 10.00 setup fee) and a Setup purchase (99.00). */
async function draftCustomerWithSetup() {
  const customerId = await newCustomer(t, ONTARIO_BILLING);
  await newSubscription(t, customerId);
  const setup = await purchased({ customerId, productCode: 'SETUP', quantity: 1 });
  return { customerId, setup };
}

describe('a Draft customer’s purchases and its activation', () => {
  it('activateAllDraftPurchases: the preview and the posted invoice both carry the purchase, with its tax, the same amounts', async () => {
    const { customerId, setup } = await draftCustomerWithSetup();
    expect(setup).toMatchObject({
      status: 'Draft',
      productCode: 'SETUP',
      name: 'Setup',
      quantity: 1,
      unitPrice: 99,
      amount: 99,
      currency: 'USD',
    });
    expect(setup.invoiceId).toBeNull();

    const preview = await activate(t, customerId, { customerId }, '?preview=true');
    expect(preview.statusCode, preview.body).toBe(200);
    const planned = preview.json().invoicePreview as Body;
    expect(planned.draftCharges.map((c: Body) => [c.chargeType, c.name, c.amount])).toEqual([
      ['Recurring', 'Seat', 19.99],
      ['SetupFee', 'Seat (setup fee)', 10],
      ['Purchase', 'Setup', 99],
    ]);
    // 128.99 taxable: GST 6.4495 → 6.45, HST 10.3192 → 10.32
    expect(planned).toMatchObject({ subtotal: 128.99, totalTaxes: 16.77, total: 145.76 });

    const res = await activate(t, customerId, { ...ACTIVATION_FLAGS, activateAllDraftPurchases: true }, '?view=sideeffects');
    expect(res.statusCode, res.body).toBe(200);
    const [invoice] = res.json().invoices as Body[];
    expect(invoice!.charges.map((c: Body) => [c.chargeType, c.name, c.amount, c.subscriptionId === null])).toEqual([
      ['Recurring', 'Seat', 19.99, false],
      ['SetupFee', 'Seat (setup fee)', 10, false],
      ['Purchase', 'Setup', 99, true],
    ]);
    expect(invoice!.taxes).toEqual(planned.draftTaxes);
    expect(invoice).toMatchObject({
      status: 'Posted',
      subtotal: planned.subtotal,
      totalTaxes: planned.totalTaxes,
      invoiceAmount: planned.total,
    });
    expect(await readPurchase(setup.id)).toMatchObject({ status: 'Invoiced', invoiceId: invoice!.id });
    // invoiced: no longer deletable
    expectError(await t.call('DELETE', `/v1/purchases/${setup.id}`), 409, { Key: 'id', Code: 'purchase_not_draft' });
  });

  it('without activateAllDraftPurchases the purchase stays Draft, off the invoice, and can be deleted', async () => {
    const { customerId, setup } = await draftCustomerWithSetup();
    const res = await activate(t, customerId, ACTIVATION_FLAGS, '?view=sideeffects');
    expect(res.statusCode, res.body).toBe(200);
    const [invoice] = res.json().invoices as Body[];
    expect(invoice!.charges.map((c: Body) => c.chargeType)).toEqual(['Recurring', 'SetupFee']);
    expect(await readPurchase(setup.id)).toMatchObject({ status: 'Draft', invoiceId: null });
    const deleted = await t.call('DELETE', `/v1/purchases/${setup.id}`, undefined, { headers: { 'idempotency-key': `del-${setup.id}` } });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect((await t.call('GET', `/v1/purchases/${setup.id}`)).statusCode).toBe(404);
  });

  it('a Draft customer with purchases only: activation posts an invoice of them', async () => {
    const customerId = await newCustomer(t, {});
    await purchased({ customerId, name: 'Replacement pen', amount: '4.50', quantity: 3, description: 'blue ink' });
    const res = await activate(t, customerId, { ...ACTIVATION_FLAGS, activateAllDraftPurchases: true }, '?view=sideeffects');
    expect(res.statusCode, res.body).toBe(200);
    const invoices = res.json().invoices as Body[];
    expect(invoices).toHaveLength(1);
    expect(invoices[0]!.charges).toEqual([
      expect.objectContaining({
        chargeType: 'Purchase',
        name: 'Replacement pen',
        description: 'blue ink',
        quantity: 3,
        unitPrice: 4.5,
        amount: 13.5,
      }),
    ]);
    expect(invoices[0]).toMatchObject({ invoiceAmount: 13.5, status: 'Posted' });
  });
});

describe('an Active customer’s purchases', () => {
  it('invoiceNow posts one invoice with the purchase, once: a retry with the same key answers the same purchase and invoice', async () => {
    const account = await t.newAccount();
    const hook = await t.call('POST', '/v1/webhookEndpoints', { url: 'http://127.0.0.1:9/hooks', eventTypes: ['*'] }, as(account));
    expect(hook.statusCode, hook.body).toBe(200);
    const customerId = await newCustomer(t, ONTARIO_BILLING, account);
    await newSubscription(t, customerId, undefined, account);
    expect((await activate(t, customerId, ACTIVATION_FLAGS, '', account)).statusCode).toBe(200);
    const body = { customerId, productCode: 'TRAINING_DAY', quantity: 2, invoiceNow: true };
    const first = await purchase(body, { account, key: 'training-1' });
    expect(first.statusCode, first.body).toBe(200);
    const again = await purchase(body, { account, key: 'training-1' });
    expect(again.body).toBe(first.body);
    const bought = first.json() as Body;
    expect(bought).toMatchObject({ status: 'Invoiced', amount: 900, unitPrice: 450 });
    const invoices = await listInvoices(t, customerId, account);
    expect(invoices).toHaveLength(2);
    const invoice = invoices.find((i) => i.id === bought.invoiceId)!;
    // 900 taxable: GST 45.00, HST 72.00
    expect(invoice).toMatchObject({ status: 'Posted', subtotal: 900, totalTaxes: 117, invoiceAmount: 1017 });
    expect(invoice.charges).toEqual([expect.objectContaining({ chargeType: 'Purchase', name: 'Training day', quantity: 2, amount: 900 })]);
    // its PDF renders like any invoice's
    const pdf = await t.call('GET', `/v1/Invoices/pdf/${invoice.id}`, undefined, as(account));
    expect(pdf.statusCode, pdf.body.slice(0, 200)).toBe(200);
    expect(pdf.headers['content-type']).toContain('application/pdf');
    const events = await t.database.db
      .selectFrom('webhookEvents')
      .select(['eventType', 'payload'])
      .where('accountId', '=', account.accountId)
      .where('eventType', 'in', ['purchase.created', 'invoice.posted'])
      .orderBy('id')
      .execute();
    expect(events.map((e) => e.eventType)).toEqual(['invoice.posted', 'purchase.created', 'invoice.posted']);
    const audit = await t.database.db
      .selectFrom('auditLog')
      .select(['action'])
      .where('accountId', '=', account.accountId)
      .where('entityType', '=', 'Purchase')
      .execute();
    expect(audit.map((a) => a.action)).toEqual(['create']);
  });

  it('a Pending purchase lands on the next renewal’s invoice, once (the test clock)', async () => {
    const account = await t.newAccount();
    const customerId = await newCustomer(t, {}, account);
    await newSubscription(t, customerId, undefined, account);
    expect((await activate(t, customerId, ACTIVATION_FLAGS, '', account)).statusCode).toBe(200);
    const pending = await purchased({ customerId, productCode: 'SETUP', quantity: 1 }, { account });
    expect(pending).toMatchObject({ status: 'Pending', invoiceId: null });
    const clock = (await t.call('GET', '/v1/testclock', undefined, as(account))).json() as Body;
    const advance = async (days: number) => {
      const to = new Date(new Date(clock.now).getTime() + days * DAY).toISOString();
      const res = await t.call('POST', '/v1/testclock/advance', { to }, as(account));
      expect(res.statusCode, res.body).toBe(200);
    };
    // paid as billed, so the customer stays Active (an overdue invoice would suspend it before the renewal)
    const pay = async (amount: number) =>
      expect((await t.call('POST', '/v1/payments', { customerId, amount, paymentMethod: 'Check' }, as(account))).statusCode).toBe(200);
    await pay(29.99);
    await advance(32);
    const renewed = await listInvoices(t, customerId, account);
    expect(renewed).toHaveLength(2);
    expect(renewed[1]!.charges.map((c: Body) => [c.chargeType, c.amount])).toEqual([
      ['Recurring', 19.99],
      ['Purchase', 99],
    ]);
    expect(await readPurchase(pending.id, account)).toMatchObject({ status: 'Invoiced', invoiceId: renewed[1]!.id });
    await pay(118.99);
    await advance(63);
    const later = await listInvoices(t, customerId, account);
    expect(later.length).toBeGreaterThanOrEqual(3);
    for (const invoice of later.slice(2)) expect(invoice.charges.map((c: Body) => c.chargeType)).toEqual(['Recurring']);
    const list = await t.call('GET', `/v1/customers/${customerId}/purchases`, undefined, as(account));
    expect(list.statusCode, list.body).toBe(200);
    expect((list.json() as Body[]).map((p) => [p.id, p.status])).toEqual([[pending.id, 'Invoiced']]);
  });
});

describe('amounts in the customer’s currency', () => {
  it('JPY (no decimals) and BHD (3) are exact, and more places than the currency has are a 400 on amount', async () => {
    const yen = await newCustomer(t, { currency: 'JPY' });
    expect(await purchased({ customerId: yen, name: 'Kit', amount: 1234, quantity: 3 })).toMatchObject({ amount: 3702, currency: 'JPY' });
    expectError(await purchase({ customerId: yen, name: 'Kit', amount: '12.5', quantity: 1 }), 400, {
      Key: 'amount',
      Code: 'value_invalid',
    });
    const dinar = await newCustomer(t, { currency: 'BHD' });
    // 1.234 × 2.5 = 3.085, exact in fils
    const bought = await purchased({ customerId: dinar, name: 'Kit', amount: '1.234', quantity: 2.5 });
    expect(bought).toMatchObject({ amount: 3.085, unitPrice: 1.234, quantity: 2.5, currency: 'BHD' });
    expectError(await purchase({ customerId: dinar, name: 'Kit', amount: '1.2345', quantity: 1 }), 400, {
      Key: 'amount',
      Code: 'value_invalid',
    });
    // a product with no price in the customer's currency
    expectError(await purchase({ customerId: dinar, productCode: 'SETUP', quantity: 1 }), 400, {
      Key: 'productCode',
      Code: 'value_invalid',
    });
  });
});

describe('refusals', () => {
  it('bad input is a 400 keyed by field; a purchase nothing would bill is a 409', async () => {
    const customerId = await newCustomer(t, {});
    expectError(await purchase({ customerId, productCode: 'SETUP' }), 400, { Key: 'quantity' });
    expectError(await purchase({ customerId, productCode: 'SETUP', quantity: 0 }), 400, { Key: 'quantity' });
    expectError(await purchase({ customerId, productCode: 'NOPE', quantity: 1 }), 400, { Key: 'productCode', Code: 'value_invalid' });
    expectError(await purchase({ customerId, productCode: 'SETUP', amount: 5, quantity: 1 }), 400, {
      Key: 'amount',
      Code: 'value_invalid',
    });
    expectError(await purchase({ customerId, name: 'Pen', quantity: 1 }), 400, { Key: 'amount', Code: 'value_required' });
    expectError(await purchase({ customerId, amount: 5, quantity: 1 }), 400, { Key: 'name', Code: 'value_required' });
    expectError(await purchase({ customerId, name: 'Pen', amount: '-1', quantity: 1 }), 400, { Key: 'amount' });
    expectError(await purchase({ customerId, name: 'Pen', amount: 'x', quantity: 1 }), 400, { Key: 'amount' });
    expectError(await purchase({ customerId: 999999, productCode: 'SETUP', quantity: 1 }), 404);
    expectError(await purchase({ customerId, productCode: 'SETUP', quantity: 1, invoiceNow: true }), 409, {
      Key: 'invoiceNow',
      Code: 'state_conflict',
    });
    const cancelled = await newCustomer(t, {});
    await t.database.db.updateTable('customers').set({ status: 'Cancelled' }).where('id', '=', cancelled).execute();
    expectError(await purchase({ customerId: cancelled, productCode: 'SETUP', quantity: 1 }), 409, {
      Key: 'customerId',
      Code: 'state_conflict',
    });
    expect((await t.call('GET', `/v1/customers/${customerId}/purchases`)).json()).toEqual([]);
    expectError(await t.call('DELETE', '/v1/purchases/999999'), 404);
  });
});
