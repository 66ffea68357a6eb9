import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';
import { newCustomer } from '../helpers/api-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

async function readSetting(customerId: number) {
  const res = await t.call('GET', `/v1/customerbillingsetting/${customerId}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

// Unset flags answer the value in effect (false: not shown); the format has none.
const NO_TRACKED_ITEM_DISPLAY = {
  trackedItemDisplayFormat: null,
  showTrackedItemName: false,
  showTrackedItemReference: false,
  showTrackedItemDescription: false,
  showTrackedItemCreatedDate: false,
};
const NO_STATEMENT_SETTING = {
  option: null,
  type: null,
  interval: null,
  day: null,
  month: null,
  trackedItemDisplay: NO_TRACKED_ITEM_DISPLAY,
  statementActivityType: null,
};

describe('billing settings', () => {
  it('exist for every customer with id = customer id, null meaning the account default where the spec allows null', async () => {
    const id = await newCustomer(t);
    const setting = await readSetting(id);
    expect(setting).toMatchObject({
      id,
      uri: `https://billing.test/v1/customerbillingsetting/${id}`,
      term: 'Net0',
      autoCollect: null,
      autoPostDraftInvoice: null,
      hasPaymentMethod: false,
      taxExempt: false,
      billingPeriodConfigurations: [],
      defaultPaymentMethodId: null,
    });
  });

  it("start from the customer-create body's billingSetting", async () => {
    const id = await newCustomer(t, {
      billingSetting: { term: 'Net30', taxExempt: true, taxExemptCode: 'EX-1', acquisitionCost: '12.50', rollUpTaxes: true },
      monthlyBillingPeriodConfiguration: { type: 'SpecifiedDate', rule: 'SingleInvoice', day: 15 },
      trackedItemDisplay: { trackedItemDisplayFormat: 'Inline', showTrackedItemName: true },
    });
    const setting = await readSetting(id);
    expect(setting).toMatchObject({
      term: 'Net30',
      taxExempt: true,
      taxExemptCode: 'EX-1',
      acquisitionCost: 12.5,
      rollUpTaxes: true,
      trackedItemDisplay: { trackedItemDisplayFormat: 'Inline', showTrackedItemName: true },
    });
    expect(setting.billingPeriodConfigurations).toEqual([
      { type: 'SpecifiedDate', rule: 'SingleInvoice', interval: 'Monthly', day: 15, month: null },
    ]);
  });

  it("take every field of the customer-create body's billingSetting, nested ones included", async () => {
    const id = await newCustomer(t, {
      billingSetting: {
        invoiceDay: 9,
        billingPeriodConfigurations: [{ type: 'SpecifiedDate', rule: 'SingleInvoice', interval: 'Yearly', day: 2, month: 3 }],
        trackedItemDisplay: { showTrackedItemDescription: true },
        customerBillingStatementSetting: { option: 'BySubscription', type: 'CustomerAnniversary', interval: 'Monthly' },
        defaultPaymentMethodId: null,
      },
      monthlyBillingPeriodConfiguration: { type: 'CustomerActivation', rule: 'MultipleInvoices' },
    });
    const setting = await readSetting(id);
    expect(setting).toMatchObject({
      invoiceDay: 9,
      trackedItemDisplay: { ...NO_TRACKED_ITEM_DISPLAY, showTrackedItemDescription: true },
      customerBillingStatementSetting: {
        ...NO_STATEMENT_SETTING,
        option: 'BySubscription',
        type: 'CustomerAnniversary',
        interval: 'Monthly',
      },
      defaultPaymentMethodId: null,
    });
    expect(setting.billingPeriodConfigurations).toEqual([
      { type: 'CustomerActivation', rule: 'MultipleInvoices', interval: 'Monthly', day: null, month: null },
      { type: 'SpecifiedDate', rule: 'SingleInvoice', interval: 'Yearly', day: 2, month: 3 },
    ]);
  });

  it.each([
    [{ billingSetting: { defaultPaymentMethodId: 5 } }, 'billingSetting.defaultPaymentMethodId'],
    [{ billingSetting: { invoiceDay: 32 } }, 'billingSetting.invoiceDay'],
    [
      { billingSetting: { customerBillingStatementSetting: { type: 'SpecifiedDate', interval: 'Monthly' } } },
      'billingSetting.customerBillingStatementSetting.day',
    ],
    [
      {
        billingSetting: {
          billingPeriodConfigurations: [{ type: 'CustomerActivation', rule: 'SingleInvoice', interval: 'Monthly', day: 4 }],
        },
      },
      'billingSetting.billingPeriodConfigurations[0].day',
    ],
    [
      {
        monthlyBillingPeriodConfiguration: { type: 'CustomerActivation', rule: 'SingleInvoice' },
        billingSetting: { billingPeriodConfigurations: [{ type: 'CustomerActivation', rule: 'Prompt', interval: 'Monthly' }] },
      },
      'billingSetting.billingPeriodConfigurations[0].interval',
    ],
    [
      { trackedItemDisplay: { showTrackedItemName: true }, billingSetting: { trackedItemDisplay: { showTrackedItemName: false } } },
      'billingSetting.trackedItemDisplay',
    ],
  ])('refuse %j on customer creation with 400 keyed on %s', async (body, key) => {
    const res = await t.call('POST', '/v1/customers', body);
    expect(res.statusCode, res.body).toBe(400);
    expect(errorsOf(res).map((e) => e.Key)).toEqual([key]);
  });

  it('are replaced whole by PUT: read, modify, send back', async () => {
    const id = await newCustomer(t, { billingSetting: { term: 'Net15', standingPoNumber: 'PO-7' } });
    const setting = await readSetting(id);
    const res = await t.call('PUT', '/v1/customerbillingsetting', {
      ...setting,
      term: 'Net45',
      rechargeType: 'BringBalanceBackTo',
      rechargeThresholdAmount: 10,
      rechargeTargetAmount: '100.25',
      billingPeriodConfigurations: [
        { type: 'SpecifiedDate', rule: 'MultipleInvoices', interval: 'Yearly', day: 31, month: 12 },
        { type: 'CustomerActivation', rule: 'SingleInvoice', interval: 'Monthly' },
      ],
      customerBillingStatementSetting: { option: 'Detailed', type: 'SpecifiedDate', interval: 'Monthly', day: 1 },
      pdfInvoiceEmailAttachmentOption: 'Both',
    });
    expect(res.statusCode, res.body).toBe(200);
    const updated = res.json();
    expect(updated).toMatchObject({
      term: 'Net45',
      standingPoNumber: 'PO-7',
      rechargeType: 'BringBalanceBackTo',
      rechargeThresholdAmount: 10,
      rechargeTargetAmount: 100.25,
      pdfInvoiceEmailAttachmentOption: 'Both',
      customerBillingStatementSetting: { option: 'Detailed', type: 'SpecifiedDate', interval: 'Monthly', day: 1 },
    });
    expect(updated.billingPeriodConfigurations).toHaveLength(2);
    expect(await readSetting(id)).toEqual(updated);

    // Omitted fields are unset again (PUT replaces): the account's default is in effect.
    const cleared = await t.call('PUT', '/v1/customerbillingsetting', { id });
    expect(cleared.json()).toMatchObject({
      term: 'Net0',
      pdfInvoiceEmailAttachmentOption: 'Details',
      standingPoNumber: null,
      rechargeType: null,
      billingPeriodConfigurations: [],
      customerBillingStatementSetting: NO_STATEMENT_SETTING,
    });
  });

  it('return trackedItemDisplay and customerBillingStatementSetting whole: every key, unset flags false, other unset keys null', async () => {
    const id = await newCustomer(t, { trackedItemDisplay: { showTrackedItemName: true } });
    const created = await readSetting(id);
    expect(created.trackedItemDisplay).toEqual({ ...NO_TRACKED_ITEM_DISPLAY, showTrackedItemName: true });
    expect(created.customerBillingStatementSetting).toEqual(NO_STATEMENT_SETTING);
    expect((await readSetting(await newCustomer(t))).trackedItemDisplay).toEqual(NO_TRACKED_ITEM_DISPLAY);

    const res = await t.call('PUT', '/v1/customerbillingsetting', {
      ...created,
      trackedItemDisplay: { trackedItemDisplayFormat: 'Inline' },
      customerBillingStatementSetting: { option: 'Summarized', trackedItemDisplay: { showTrackedItemReference: false } },
    });
    expect(res.statusCode, res.body).toBe(200);
    const updated = res.json();
    expect(updated.trackedItemDisplay).toEqual({ ...NO_TRACKED_ITEM_DISPLAY, trackedItemDisplayFormat: 'Inline' });
    expect(updated.customerBillingStatementSetting).toEqual({
      ...NO_STATEMENT_SETTING,
      option: 'Summarized',
      trackedItemDisplay: { ...NO_TRACKED_ITEM_DISPLAY, showTrackedItemReference: false },
    });
    expect(await readSetting(id)).toEqual(updated);
    // The whole objects go back unchanged (read, modify, send back).
    const again = await t.call('PUT', '/v1/customerbillingsetting', updated);
    expect(again.json()).toEqual(updated);
    const cleared = await t.call('PUT', '/v1/customerbillingsetting', {
      ...updated,
      trackedItemDisplay: null,
      customerBillingStatementSetting: null,
    });
    expect(cleared.json()).toMatchObject({
      trackedItemDisplay: NO_TRACKED_ITEM_DISPLAY,
      customerBillingStatementSetting: NO_STATEMENT_SETTING,
    });
  });

  it.each([
    [{ taxExempt: true }, 'taxExemptCode'],
    [{ autoCollect: true }, 'autoCollect'],
    [{ term: 'Net3' }, 'term'],
    [{ defaultCancelOption: 'Partial' }, 'defaultCancelOption'],
    [{ taxUsageType: 'ABCDE' }, 'taxUsageType'],
    [{ standingPoNumber: 'p'.repeat(256) }, 'standingPoNumber'],
    [{ rechargeType: 'BringBalanceBackTo', rechargeTargetAmount: 50 }, 'rechargeThresholdAmount'],
    [{ rechargeType: 'BringBalanceBackTo', rechargeThresholdAmount: 50, rechargeTargetAmount: 20 }, 'rechargeTargetAmount'],
    [{ rechargeType: 'TopUp' }, 'rechargeType'],
    [
      { billingPeriodConfigurations: [{ type: 'CustomerActivation', rule: 'SingleInvoice', interval: 'Monthly', day: 3 }] },
      'billingPeriodConfigurations[0].day',
    ],
    [
      { billingPeriodConfigurations: [{ type: 'SpecifiedDate', rule: 'SingleInvoice', interval: 'Monthly', day: 3, month: 2 }] },
      'billingPeriodConfigurations[0].month',
    ],
    [
      { billingPeriodConfigurations: [{ type: 'SpecifiedDate', rule: 'SingleInvoice', interval: 'Monthly', day: 32 }] },
      'billingPeriodConfigurations[0].day',
    ],
    [
      { billingPeriodConfigurations: [{ type: 'SpecifiedDate', rule: 'SingleInvoice', interval: 'Yearly', day: 1, month: 13 }] },
      'billingPeriodConfigurations[0].month',
    ],
    [
      { billingPeriodConfigurations: [{ type: 'SpecifiedDate', rule: 'SingleInvoice', interval: 'Monthly' }] },
      'billingPeriodConfigurations[0].day',
    ],
    [
      { billingPeriodConfigurations: [{ type: 'CustomerActivation', rule: 'Sometimes', interval: 'Monthly' }] },
      'billingPeriodConfigurations[0].rule',
    ],
    [
      { customerBillingStatementSetting: { type: 'CustomerAnniversary', interval: 'Monthly', day: 4 } },
      'customerBillingStatementSetting.day',
    ],
    [{ defaultPaymentMethodId: 999 }, 'defaultPaymentMethodId'],
  ])('refuses %j with 400 keyed on %s', async (change, key) => {
    const id = await newCustomer(t);
    const res = await t.call('PUT', '/v1/customerbillingsetting', { ...(await readSetting(id)), ...change });
    expect(res.statusCode, res.body).toBe(400);
    expect(errorsOf(res).map((e) => e.Key)).toContain(key);
  });

  it('accepts autoCollect once a payment method is on file, and shows which is the default', async () => {
    const id = await newCustomer(t);
    const [method] = await t.database.db
      .insertInto('paymentMethods')
      .values({
        accountId: t.account.accountId,
        customerId: id,
        gatewayToken: 'tok_1',
        cardBrand: 'Visa',
        lastFour: '4242',
        isDefault: true,
        modifiedAt: new Date(),
      })
      .returning('id')
      .execute();
    const setting = await readSetting(id);
    expect(setting).toMatchObject({ hasPaymentMethod: true, defaultPaymentMethodId: method!.id });
    const res = await t.call('PUT', '/v1/customerbillingsetting', { ...setting, autoCollect: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().autoCollect).toBe(true);
  });

  it('refuses an invoice day on an Active customer, and keeps it when null is sent back', async () => {
    const draft = await newCustomer(t);
    const set = await t.call('PUT', '/v1/customerbillingsetting', { id: draft, invoiceDay: 12 });
    expect(set.json().invoiceDay).toBe(12);
    const kept = await t.call('PUT', '/v1/customerbillingsetting', { id: draft, invoiceDay: null });
    expect(kept.json().invoiceDay).toBe(12);

    const active = await newCustomer(t);
    await t.database.db.updateTable('customers').set({ status: 'Active' }).where('id', '=', active).execute();
    const refused = await t.call('PUT', '/v1/customerbillingsetting', { id: active, invoiceDay: 5 });
    expect(refused.statusCode).toBe(400);
    expect(errorsOf(refused)[0]).toMatchObject({ Key: 'Api Error' });
    expect(errorsOf(refused)[0]!.Value).toMatch(/invoice day/);
  });

  it("answers 404 for unknown customers and other accounts' customers", async () => {
    const id = await newCustomer(t);
    const other = await t.newAccount();
    expect((await t.call('GET', '/v1/customerbillingsetting/999999')).statusCode).toBe(404);
    expect((await t.call('GET', `/v1/customerbillingsetting/${id}`, undefined, { as: other })).statusCode).toBe(404);
    expect((await t.call('PUT', '/v1/customerbillingsetting', { id }, { as: other })).statusCode).toBe(404);
  });

  it('records each change in the audit log', async () => {
    const id = await newCustomer(t);
    await t.call('PUT', '/v1/customerbillingsetting', { id, term: 'Net7' }, { headers: { 'x-audit-source': 'Back office' } });
    const entry = await t.database.db
      .selectFrom('auditLog')
      .select(['source', 'changes'])
      .where('entityType', '=', 'CustomerBillingSetting')
      .where('entityId', '=', id)
      .executeTakeFirstOrThrow();
    expect(entry.source).toBe('Back office');
    expect(entry.changes).toMatchObject({ term: [null, 'Net7'] });
  });

  it('makes a customer list filter see a change at once', async () => {
    const account = await t.newAccount();
    const created = await t.call('POST', '/v1/customers', { lastName: 'Filterable' }, { as: account });
    const id = created.json().id;
    await t.call('PUT', '/v1/customers', { ...(created.json() as Record<string, unknown>), reference: 'REF-42' }, { as: account });
    const list = await t.call('GET', '/v1/customers?query=Reference:REF-42', undefined, { as: account });
    expect(list.json().map((c: { id: number }) => c.id)).toEqual([id]);
  });
});
