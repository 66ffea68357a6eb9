import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addLedgerEntry } from '../../src/ledger/entries.js';
import { allocateExplicitly } from '../../src/ledger/allocation.js';
import { money } from '../../src/money/money.js';
import { loadCatalog } from '../../src/catalog/load-catalog.js';
import { DEMO_CATALOG_PATH } from '../../src/config.js';
import { errorsOf, startTestApp, testCatalog, type TestApp } from '../helpers/test-app.js';
import { customerWithInvoice } from '../helpers/api-fixtures.js';

/** The demo catalogue with BASIC monthly also priced in BHD (three decimals) and JPY (none). */
function threeCurrencyCatalog() {
  const demo = loadCatalog(DEMO_CATALOG_PATH) as unknown as {
    plans: Array<{ frequencies: Array<{ id: number; prices: Array<{ charges: unknown[]; setupFees?: unknown[] }> }> }>;
  };
  const plans = structuredClone(demo.plans);
  const monthly = plans[0]!.frequencies.find((f) => f.id === 11)!;
  monthly.prices[0]!.charges.push({ currency: 'BHD', amount: '65.455' }, { currency: 'JPY', amount: '3000' });
  monthly.prices[0]!.setupFees = [
    ...(monthly.prices[0]!.setupFees ?? []),
    { currency: 'BHD', amount: '10.000' },
    { currency: 'JPY', amount: '500' },
  ];
  return testCatalog({ currencies: { default: 'USD', allowed: ['USD', 'BHD', 'JPY'] }, plans });
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ catalog: threeCurrencyCatalog() });
});
afterAll(async () => t?.close());

describe('allocations: one invoice named twice', () => {
  it('refuses allocations whose sum for one invoice is more than it owes, keyed on the allocation, and changes nothing', async () => {
    const { customerId, invoiceId, total } = await customerWithInvoice(t, { currency: 'USD' });
    expect(total).toBe(29.99);
    const res = await t.call('POST', '/v1/payments', {
      customerId,
      amount: 50,
      paymentMethod: 'Cash',
      paymentAllocations: [
        { invoiceId, amount: 25 },
        { invoiceId, amount: 25 },
      ],
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(errorsOf(res)[0]!.Key).toBe('paymentAllocations[1].amount');
    const invoice = (await t.call('GET', `/v1/Invoices/${invoiceId}`)).json();
    expect(invoice).toMatchObject({ outstandingBalance: 29.99, totalPayments: 0 });
    const overview = (await t.call('GET', `/v1/customers/${customerId}/overview`)).json();
    expect(overview).toMatchObject({ arBalance: 29.99, unallocatedPayments: 0 });
  });

  it('accepts two allocations to one invoice that together pay it exactly', async () => {
    const { customerId, invoiceId } = await customerWithInvoice(t, { currency: 'USD' });
    const res = await t.call('POST', '/v1/payments', {
      customerId,
      amount: 50,
      paymentMethod: 'Cash',
      paymentAllocations: [
        { invoiceId, amount: 20 },
        { invoiceId, amount: 9.99 },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().unallocatedAmount).toBe(20.01);
    expect((await t.call('GET', `/v1/Invoices/${invoiceId}`)).json()).toMatchObject({
      status: 'Paid',
      outstandingBalance: 0,
      totalPayments: 29.99,
    });
  });

  it('applies the same rule to bulk payment items', async () => {
    const { customerId, invoiceId } = await customerWithInvoice(t, { currency: 'USD' });
    const res = await t.call('POST', '/v1/bulkPaymentSubmit', {
      accountUploadType: 'bulkPayment',
      data: [
        {
          customerId,
          amount: 50,
          paymentMethod: 'Cash',
          paymentAllocations: [
            { invoiceId, amount: 25 },
            { invoiceId, amount: 25 },
          ],
        },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const job = (await t.call('GET', `/v1/BulkApi/${res.json().id}?view=full`)).json();
    expect(job.failedRecords).toBe(1);
    expect(JSON.stringify(job)).toContain('data[0].paymentAllocations[1].amount');
  });

  it('the ledger itself refuses to take an open amount below zero, whoever writes it', async () => {
    const { customerId, invoiceId } = await customerWithInvoice(t, { currency: 'USD' });
    const db = t.database.db;
    const invoiceEntry = await db.selectFrom('ledgerEntries').select(['id']).where('invoiceId', '=', invoiceId).executeTakeFirstOrThrow();
    await expect(
      db.transaction().execute(async (trx) => {
        const source = await addLedgerEntry(trx, {
          accountId: t.account.accountId,
          customerId,
          entryType: 'payment',
          amount: money(50),
          effectiveAt: new Date(),
        });
        await allocateExplicitly(
          trx,
          t.account.accountId,
          source,
          [
            { invoiceEntryId: Number(invoiceEntry.id), invoiceId, amount: money(25) },
            { invoiceEntryId: Number(invoiceEntry.id), invoiceId, amount: money(25) },
          ],
          new Date(),
        );
      }),
    ).rejects.toThrow(/below zero/);
    expect((await t.call('GET', `/v1/Invoices/${invoiceId}`)).json().outstandingBalance).toBe(29.99);
  });
});

describe("amounts in the currency's minor units", () => {
  it('pays a BHD invoice of 75.455 exactly', async () => {
    const { customerId, invoiceId, total } = await customerWithInvoice(t, { currency: 'BHD' });
    expect(total).toBe(75.455);
    const res = await t.call('POST', '/v1/payments', { customerId, amount: '75.455', paymentMethod: 'Cash' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ amount: 75.455, unallocatedAmount: 0 });
    expect((await t.call('GET', `/v1/Invoices/${invoiceId}`)).json()).toMatchObject({ status: 'Paid', outstandingBalance: 0 });
    expect((await t.call('GET', `/v1/customers/${customerId}/overview`)).json()).toMatchObject({ arBalance: 0, unallocatedPayments: 0 });
  });

  it('allows three decimals in BHD allocations, not four', async () => {
    const { customerId, invoiceId } = await customerWithInvoice(t, { currency: 'BHD' });
    const ok = await t.call('POST', '/v1/payments', {
      customerId,
      amount: 10.005,
      paymentMethod: 'Cash',
      paymentAllocations: [{ invoiceId, amount: '10.005' }],
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect((await t.call('GET', `/v1/Invoices/${invoiceId}`)).json().outstandingBalance).toBe(65.45);
    const tooFine = await t.call('POST', '/v1/payments', {
      customerId,
      amount: 1,
      paymentMethod: 'Cash',
      paymentAllocations: [{ invoiceId, amount: '0.0005' }],
    });
    expect(tooFine.statusCode).toBe(400);
    expect(errorsOf(tooFine)[0]!.Key).toBe('paymentAllocations[0].amount');
  });

  it('refuses a fraction of a yen and a third decimal of a dollar', async () => {
    const yen = (await t.call('POST', '/v1/customers', { currency: 'JPY' })).json().id;
    const half = await t.call('POST', '/v1/payments', { customerId: yen, amount: 1000.5, paymentMethod: 'Cash' });
    expect(half.statusCode).toBe(400);
    expect(errorsOf(half)[0]).toMatchObject({ Key: 'amount', Value: expect.stringMatching(/JPY amounts have at most 0 decimals/) });
    expect((await t.call('POST', '/v1/payments', { customerId: yen, amount: 1000, paymentMethod: 'Cash' })).statusCode).toBe(200);
    const dollars = (await t.call('POST', '/v1/customers', { currency: 'USD' })).json().id;
    const mills = await t.call('POST', '/v1/payments', { customerId: dollars, amount: '10.001', paymentMethod: 'Cash' });
    expect(mills.statusCode).toBe(400);
    expect(errorsOf(mills)[0]!.Key).toBe('amount');
  });
});

describe('price overrides and amount discounts in the currency of the subscription', () => {
  async function subscriptionIn(currency: string) {
    const customerId = (await t.call('POST', '/v1/customers', { currency })).json().id;
    const created = await t.call('POST', '/v1/subscriptions', { customerId, planFrequencyId: 11 });
    expect(created.statusCode, created.body).toBe(200);
    return created.json();
  }
  const withProduct = (subscription: any, change: Record<string, unknown>) => ({
    ...subscription,
    subscriptionProducts: subscription.subscriptionProducts.map((p: any) => ({ id: p.id, ...change })),
  });

  it('takes three decimals in BHD, none in JPY, and refuses more, keyed on the product', async () => {
    const bhd = await subscriptionIn('BHD');
    expect((await t.call('PUT', '/v1/subscriptions', withProduct(bhd, { priceOverride: '12.345' }))).statusCode).toBe(200);
    const tooFine = await t.call('PUT', '/v1/subscriptions', withProduct(bhd, { priceOverride: '12.3456' }));
    expect(tooFine.statusCode).toBe(400);
    expect(errorsOf(tooFine)[0]!.Key).toBe('subscriptionProducts[0].priceOverride');
    const jpy = await subscriptionIn('JPY');
    const halfYen = await t.call('PUT', '/v1/subscriptions', withProduct(jpy, { discount: { type: 'Amount', amount: 10.5 } }));
    expect(halfYen.statusCode).toBe(400);
    expect(errorsOf(halfYen)[0]!.Key).toBe('subscriptionProducts[0].discount.amount');
    // A percentage is not money: it may have decimals.
    expect(
      (await t.call('PUT', '/v1/subscriptions', withProduct(jpy, { discount: { type: 'Percentage', amount: 12.5 } }))).statusCode,
    ).toBe(200);
  });
});
