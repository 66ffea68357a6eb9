import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';
import { customerTestCatalog } from './customer-fixtures.js';
import { createCustomer, DAY } from '../helpers/api-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  // the account's grace period, which the suspension countdown starts from
  const catalog = customerTestCatalog();
  t = await startTestApp({ catalog: customerTestCatalog({ defaults: { ...catalog.defaults, customerGracePeriod: 7 } }) });
});
afterAll(async () => t?.close());

async function overview(id: number) {
  const res = await t.call('GET', `/v1/customers/${id}/overview`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** Puts an entry on the customer's ledger, as invoice posting and payment collection will. */
async function ledger(
  customerId: number,
  entry: {
    entryType: 'invoice' | 'payment' | 'credit' | 'refund' | 'opening_balance';
    amount: string;
    openAmount: string;
    dueAt?: Date | null;
    openedAt?: Date;
  },
) {
  await t.database.db
    .insertInto('ledgerEntries')
    .values({ accountId: t.account.accountId, customerId, dueAt: null, ...entry })
    .execute();
}

/** 00:00 UTC `days` days before today: a due date (invoices are due on a calendar day). */
function daysAgo(days: number): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - days));
}

const SPEC_FIELDS = [
  'title',
  'firstName',
  'middleName',
  'lastName',
  'suffix',
  'primaryEmail',
  'primaryPhone',
  'companyName',
  'reference',
  'createdTimestamp',
  'status',
  'customerAccountStatus',
  'pendingCharges',
  'arBalance',
  'unallocatedPayments',
  'unallocatedCredits',
  'unallocatedOpeningBalance',
  'currency',
  'daysUntilSuspension',
  'daysUntilCancellation',
  'customerAccountStatusTimestamp',
  'statusTimestamp',
  'lifetimeValue',
  'monthlyRecurringRevenue',
  'netMonthlyRecurringRevenue',
  'nextBillingDate',
  'crmSynchStatus',
  'crmId',
  'accountingId',
  'erpId',
  'marketingId',
  'parentId',
  'parentName',
  'isParent',
  'unknownPaymentActivityId',
  'id',
  'uri',
];

describe('GET /v1/customers/{id}/overview', () => {
  it('shows a new customer with every field of the spec and zero amounts', async () => {
    const given = {
      title: 'Mrs',
      firstName: 'Olive',
      middleName: 'May',
      lastName: 'Oyl',
      suffix: 'Sr',
      companyName: 'Spinach Co',
      primaryEmail: 'olive@spinach.example',
      primaryPhone: '555-0199',
      reference: 'OV-1',
      crmId: 'crm-ov',
      crmSynchStatus: 'Enabled',
      erpId: 'erp-ov',
      accountingId: 31,
      marketingId: 32,
    };
    const customer = await createCustomer(t, given);
    const view = await overview(customer.id);
    expect(Object.keys(view).sort()).toEqual([...SPEC_FIELDS].sort());
    expect(view).toMatchObject({
      id: customer.id,
      uri: `https://billing.test/v1/customers/${customer.id}/overview`,
      ...given,
      createdTimestamp: customer.createdTimestamp,
      status: 'Draft',
      customerAccountStatus: 'Good',
      currency: 'USD',
      pendingCharges: 0,
      arBalance: 0,
      unallocatedPayments: 0,
      unallocatedCredits: 0,
      unallocatedOpeningBalance: 0,
      lifetimeValue: 0,
      monthlyRecurringRevenue: 0,
      netMonthlyRecurringRevenue: 0,
      daysUntilSuspension: null,
      parentId: null,
      parentName: null,
      isParent: false,
    });
    for (const amount of [
      'pendingCharges',
      'arBalance',
      'unallocatedPayments',
      'unallocatedCredits',
      'unallocatedOpeningBalance',
      'lifetimeValue',
    ]) {
      expect(typeof view[amount], amount).toBe('number');
    }
    expect(Number.isNaN(Date.parse(view.statusTimestamp))).toBe(false);
    expect(Number.isNaN(Date.parse(view.customerAccountStatusTimestamp))).toBe(false);
  });

  it('takes balances from the ledger: an overdue invoice makes the customer PoorStanding', async () => {
    const customer = await createCustomer(t, { firstName: 'Owing', lifetimeValue: -150 });
    // due 4 days ago, posted before: overdue (PoorStanding) since the day after, 3 days ago
    await ledger(customer.id, { entryType: 'invoice', amount: '30.10', openAmount: '30.10', dueAt: daysAgo(4), openedAt: daysAgo(10) });
    await ledger(customer.id, { entryType: 'payment', amount: '50', openAmount: '12.35' });

    const view = await overview(customer.id);
    expect(view).toMatchObject({
      arBalance: 30.1,
      unallocatedPayments: 12.35,
      customerAccountStatus: 'PoorStanding',
      // the onboarding cost given at creation, raised by the payment received
      lifetimeValue: -100,
      // 3 days into the account's 7-day grace period
      daysUntilSuspension: 4,
    });
  });

  it("counts the customer's own grace period and its extension down to suspension", async () => {
    const customer = await createCustomer(t, { billingSetting: { customerGracePeriod: 10, gracePeriodExtension: 2 } });
    await ledger(customer.id, { entryType: 'invoice', amount: '5', openAmount: '5', dueAt: daysAgo(4), openedAt: daysAgo(10) });
    const view = await overview(customer.id);
    expect(view.customerAccountStatus).toBe('PoorStanding');
    expect(view.daysUntilSuspension).toBe(9);
  });

  it('stays Good while open invoices are not yet due, or overdue ones are paid', async () => {
    const notDue = await createCustomer(t, {});
    await ledger(notDue.id, { entryType: 'invoice', amount: '99.99', openAmount: '99.99', dueAt: new Date(Date.now() + 5 * DAY) });
    expect(await overview(notDue.id)).toMatchObject({ arBalance: 99.99, customerAccountStatus: 'Good', daysUntilSuspension: null });

    const paid = await createCustomer(t, {});
    await ledger(paid.id, { entryType: 'invoice', amount: '40', openAmount: '0', dueAt: new Date(Date.now() - 10 * DAY) });
    await ledger(paid.id, { entryType: 'payment', amount: '40', openAmount: '0' });
    expect(await overview(paid.id)).toMatchObject({
      arBalance: 0,
      unallocatedPayments: 0,
      customerAccountStatus: 'Good',
      lifetimeValue: 40,
    });
  });

  it('adds amounts exactly, as decimals', async () => {
    const customer = await createCustomer(t, {});
    await ledger(customer.id, { entryType: 'invoice', amount: '0.10', openAmount: '0.10', dueAt: new Date(Date.now() + DAY) });
    await ledger(customer.id, { entryType: 'invoice', amount: '0.20', openAmount: '0.20', dueAt: new Date(Date.now() + DAY) });
    expect((await overview(customer.id)).arBalance).toBe(0.3);
  });

  it('shows unallocated credits and opening balance, and lowers the lifetime value by refunds', async () => {
    const customer = await createCustomer(t, {});
    await ledger(customer.id, { entryType: 'credit', amount: '15', openAmount: '7.5' });
    await ledger(customer.id, { entryType: 'opening_balance', amount: '200', openAmount: '120.25' });
    await ledger(customer.id, { entryType: 'payment', amount: '80', openAmount: '0' });
    await ledger(customer.id, { entryType: 'refund', amount: '30', openAmount: '0' });
    expect(await overview(customer.id)).toMatchObject({
      unallocatedCredits: 7.5,
      unallocatedOpeningBalance: 120.25,
      unallocatedPayments: 0,
      arBalance: 0,
      lifetimeValue: 50,
      customerAccountStatus: 'Good',
    });
  });

  it("counts only the customer's own ledger entries", async () => {
    const owing = await createCustomer(t, {});
    const neighbour = await createCustomer(t, {});
    await ledger(owing.id, { entryType: 'invoice', amount: '70', openAmount: '70', dueAt: new Date(Date.now() - DAY - 3_600_000) });
    expect(await overview(neighbour.id)).toMatchObject({ arBalance: 0, customerAccountStatus: 'Good', lifetimeValue: 0 });
  });

  it('names the parent of a child customer and marks the parent', async () => {
    const company = await createCustomer(t, { companyName: 'Parent Holdings' });
    const person = await createCustomer(t, { firstName: 'Pat', lastName: 'Parent' });
    const child = await createCustomer(t, { firstName: 'Kid', parentId: company.id });
    const grandchild = await createCustomer(t, { firstName: 'Grandkid', parentId: person.id });

    expect(await overview(child.id)).toMatchObject({ parentId: company.id, parentName: 'Parent Holdings', isParent: false });
    expect(await overview(company.id)).toMatchObject({ parentId: null, parentName: null, isParent: true });
    expect(await overview(grandchild.id)).toMatchObject({ parentId: person.id, parentName: 'Pat Parent' });
    expect((await overview(person.id)).isParent).toBe(true);
  });

  it("answers 404 for an unknown customer and for another account's customer", async () => {
    const unknown = await t.call('GET', '/v1/customers/987654/overview');
    expect(unknown.statusCode).toBe(404);
    expect(errorsOf(unknown)).toEqual([{ Key: 'Api Error', Value: expect.any(String), Code: 'not_found' }]);

    const huge = await t.call('GET', '/v1/customers/99999999999/overview');
    expect(huge.statusCode).toBe(404);

    const other = await t.newAccount();
    const theirs = await createCustomer(t, {}, other);
    const res = await t.call('GET', `/v1/customers/${theirs.id}/overview`);
    expect(res.statusCode).toBe(404);
    expect(errorsOf(res)[0]!.Key).toBe('Api Error');
  });

  it('is reachable with any path casing', async () => {
    const customer = await createCustomer(t, { firstName: 'Cased' });
    const res = await t.call('GET', `/v1/Customers/${customer.id}/Overview/`);
    expect(res.statusCode).toBe(200);
    expect(res.json().firstName).toBe('Cased');
  });
});
