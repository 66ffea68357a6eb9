import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/invoices/engine/index.js';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.js';
import { deposit, expectError } from '../lifecycle/lifecycle-fixtures.js';
import {
  ACTIVATION_FLAGS,
  BASIC_MONTHLY,
  BASIC_YEARLY,
  PRO_MONTHLY,
  activate,
  activeCustomer,
  newCustomer,
  newSubscription,
} from '../helpers/api-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

/** A customer billed one invoice per subscription (MultipleInvoices): three invoices on activation. */
async function customerWithThreeInvoices(account?: TestAccount, body: Record<string, unknown> = {}) {
  const customerId = await newCustomer(
    t,
    {
      monthlyBillingPeriodConfiguration: { type: 'CustomerActivation', rule: 'MultipleInvoices' },
      yearlyBillingPeriodConfiguration: { type: 'CustomerActivation', rule: 'MultipleInvoices' },
      ...body,
    },
    account,
  );
  for (const f of [BASIC_MONTHLY, PRO_MONTHLY, BASIC_YEARLY]) await newSubscription(t, customerId, f, account);
  const res = await activate(t, customerId, ACTIVATION_FLAGS, '?view=sideeffects', account);
  expect(res.statusCode, res.body).toBe(200);
  return { customerId, invoices: res.json().invoices as Array<Record<string, any>> };
}

describe('GET /v1/Invoices/{id}', () => {
  it('returns a posted invoice with its lines, taxes, totals, terms and uri', async () => {
    const { invoices } = await activeCustomer(t, {
      body: { billing: { country: 'CA', state: 'ON' }, billingSetting: { term: 'Net30', standingPoNumber: 'PO-77' } },
    });
    const res = await t.call('GET', `/v1/Invoices/${invoices[0]!.id}`);
    expect(res.statusCode, res.body).toBe(200);
    const invoice = res.json();
    const today = new Date().toISOString().slice(0, 10);
    expect(invoice).toMatchObject({
      status: 'Posted',
      subtotal: 29.99,
      totalDiscount: 0,
      taxes: [
        { name: 'GST', rate: 0.05, amount: 1.5 },
        { name: 'HST', rate: 0.08, amount: 2.4 },
      ],
      totalTaxes: 3.9,
      invoiceAmount: 33.89,
      totalPayments: 0,
      outstandingBalance: 33.89,
      terms: 'Net30',
      poNumber: 'PO-77',
      currency: 'USD',
      effectiveTimestamp: `${today}T00:00:00.000Z`,
      dueTimestamp: `${addDays(today, 30)}T00:00:00.000Z`,
      uri: `https://billing.test/v1/Invoices/${invoice.id}`,
    });
    expect(invoice.charges.map((c: { chargeType: string; amount: number }) => [c.chargeType, c.amount])).toEqual([
      ['Recurring', 19.99],
      ['SetupFee', 10],
    ]);
  });

  it("answers 404 for an unknown invoice and for another account's invoice", async () => {
    const other = await t.newAccount();
    const { invoices } = await activeCustomer(t, { account: other });
    expectError(await t.call('GET', `/v1/Invoices/${invoices[0]!.id}`), 404, { Key: 'Api Error' });
    expect((await t.call('GET', `/v1/Invoices/${invoices[0]!.id}`, undefined, { as: other })).statusCode).toBe(200);
    expectError(await t.call('GET', '/v1/Invoices/99999999'), 404);
  });

  it('answers 404 for an id beyond any stored row (not a database error)', async () => {
    expectError(await t.call('GET', '/v1/Invoices/99999999999'), 404);
    expectError(await t.call('GET', '/v1/Customers/99999999999/Invoices'), 404);
  });

  it('refuses an id that is not a positive number', async () => {
    expectError(await t.call('GET', '/v1/Invoices/abc'), 400);
    expectError(await t.call('GET', '/v1/Invoices/0'), 400);
  });

  it('shows what the ledger paid: Paid, PartiallyPaid, and Draft for an unposted invoice', async () => {
    const paidCustomer = await newCustomer(t);
    await deposit(t, paidCustomer, '100');
    await newSubscription(t, paidCustomer);
    const [paid] = (await activate(t, paidCustomer, ACTIVATION_FLAGS, '?view=sideeffects')).json().invoices;
    expect((await t.call('GET', `/v1/Invoices/${paid.id}`)).json()).toMatchObject({
      status: 'Paid',
      totalPayments: 29.99,
      outstandingBalance: 0,
    });

    const partCustomer = await newCustomer(t);
    await deposit(t, partCustomer, '0.99');
    await newSubscription(t, partCustomer);
    const [part] = (await activate(t, partCustomer, ACTIVATION_FLAGS, '?view=sideeffects')).json().invoices;
    expect((await t.call('GET', `/v1/Invoices/${part.id}`)).json()).toMatchObject({
      status: 'PartiallyPaid',
      totalPayments: 0.99,
      outstandingBalance: 29,
    });

    const draftCustomer = await newCustomer(t);
    await newSubscription(t, draftCustomer);
    const [draft] = (
      await activate(t, draftCustomer, { ...ACTIVATION_FLAGS, temporarilyDisableAutoPost: true }, '?view=sideeffects')
    ).json().invoices;
    expect((await t.call('GET', `/v1/Invoices/${draft.id}`)).json()).toMatchObject({
      status: 'Draft',
      postedTimestamp: null,
      totalPayments: 0,
      outstandingBalance: 29.99,
    });
  });
});

describe('GET /v1/Customers/{id}/Invoices', () => {
  it("lists the customer's invoices in id order, with the paging headers", async () => {
    const { customerId, invoices } = await customerWithThreeInvoices();
    expect(invoices).toHaveLength(3);
    const res = await t.call('GET', `/v1/Customers/${customerId}/Invoices`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual(invoices);
    expect(res.headers).toMatchObject({
      'x-count': '3',
      'x-maxcount': '3',
      'x-currentpage': '0',
      'x-previouspage': '-1',
      'x-nextpage': '-1',
      'x-maxpageindex': '0',
      'x-sortorder': 'Ascending',
      'x-sortexpression': 'Id',
    });

    const first = await t.call('GET', `/v1/Customers/${customerId}/Invoices?pageSize=2&pageNumber=0`);
    expect(first.json().map((i: { id: number }) => i.id)).toEqual(invoices.slice(0, 2).map((i) => i.id));
    expect(first.headers).toMatchObject({
      'x-count': '3',
      'x-pagesize': '2',
      'x-nextpage': '1',
      'x-maxpageindex': '1',
      'x-previouspage': '-1',
    });
    const second = await t.call('GET', `/v1/Customers/${customerId}/Invoices?pageSize=2&pageNumber=1`);
    expect(second.json().map((i: { id: number }) => i.id)).toEqual([invoices[2]!.id]);
    expect(second.headers).toMatchObject({ 'x-currentpage': '1', 'x-nextpage': '-1', 'x-previouspage': '0' });

    const sorted = await t.call('GET', `/v1/Customers/${customerId}/Invoices?sortOrder=Descending&sortExpression=InvoiceNumber`);
    expect(sorted.json().map((i: { invoiceNumber: number }) => i.invoiceNumber)).toEqual(invoices.map((i) => i.invoiceNumber).reverse());
    expect(sorted.headers).toMatchObject({ 'x-sortorder': 'Descending', 'x-sortexpression': 'InvoiceNumber' });
  });

  it('filters by status and invoice number; a bad query is 400', async () => {
    const { customerId, invoices } = await customerWithThreeInvoices();
    const posted = await t.call('GET', `/v1/Customers/${customerId}/Invoices?query=Status:Posted`);
    expect(posted.json()).toHaveLength(3);
    const drafts = await t.call('GET', `/v1/Customers/${customerId}/Invoices?query=Status:Draft`);
    expect(drafts.json()).toEqual([]);
    expect(drafts.headers).toMatchObject({ 'x-count': '0', 'x-maxcount': '3' });
    const one = await t.call('GET', `/v1/Customers/${customerId}/Invoices?query=InvoiceNumber:${invoices[1]!.invoiceNumber}`);
    expect(one.json().map((i: { id: number }) => i.id)).toEqual([invoices[1]!.id]);
    expectError(await t.call('GET', `/v1/Customers/${customerId}/Invoices?query=Nonsense:1`), 400);
  });

  it("lists only that customer's invoices; an empty list for a customer without any", async () => {
    const { customerId } = await customerWithThreeInvoices();
    const { customerId: otherCustomer } = await activeCustomer(t);
    expect(await (await t.call('GET', `/v1/Customers/${otherCustomer}/Invoices`)).json()).toHaveLength(1);
    const fresh = await newCustomer(t);
    const empty = await t.call('GET', `/v1/Customers/${fresh}/Invoices`);
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual([]);
    expect(empty.headers['x-count']).toBe('0');
    const all = (await t.call('GET', `/v1/Customers/${customerId}/Invoices`)).json();
    expect(all.every((i: { customerId: number }) => i.customerId === customerId)).toBe(true);
  });

  it("answers 404 for an unknown customer and another account's customer", async () => {
    expectError(await t.call('GET', '/v1/Customers/987654/Invoices'), 404);
    const other = await t.newAccount();
    const { customerId } = await activeCustomer(t, { account: other });
    expectError(await t.call('GET', `/v1/Customers/${customerId}/Invoices`), 404);
  });
});

describe('invoice numbers', () => {
  it('are consecutive per account, several invoices of one activation included, and each account starts at 1', async () => {
    const account = await t.newAccount();
    const { invoices: three } = await customerWithThreeInvoices(account);
    const { invoices: one } = await activeCustomer(t, { account });
    expect([...three, ...one].map((i) => i.invoiceNumber)).toEqual([1, 2, 3, 4]);
    const another = await t.newAccount();
    const { invoices } = await activeCustomer(t, { account: another });
    expect(invoices[0]!.invoiceNumber).toBe(1);
  });

  it('are used by Draft invoices too (no gaps when they are posted later)', async () => {
    const account = await t.newAccount();
    const draft = await newCustomer(t, {}, account);
    await newSubscription(t, draft, BASIC_MONTHLY, account);
    const [d] = (await activate(t, draft, { ...ACTIVATION_FLAGS, temporarilyDisableAutoPost: true }, '?view=sideeffects', account)).json()
      .invoices;
    const { invoices } = await activeCustomer(t, { account });
    expect([d.invoiceNumber, invoices[0]!.invoiceNumber]).toEqual([1, 2]);
  });
});
