import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACTIVATION_FLAGS,
  BASIC_MONTHLY,
  PRO_MONTHLY,
  activate,
  listInvoices,
  newCustomer,
  newSubscription,
  readSubscription,
} from '../helpers/api-fixtures.js';
import { startTestApp, testCatalog, type TestAccount, type TestApp } from '../helpers/test-app.js';

/**
 * A subscription's coupons as billing applies them: in the order the PUT listed them (issue 24),
 * and only on an invoice that has something for them to discount.
 */

let t: TestApp;
beforeAll(async () => {
  const demo = testCatalog();
  t = await startTestApp({
    catalog: testCatalog({
      coupons: [
        ...demo.coupons,
        { code: 'HALF', name: 'Half off', kind: 'Percentage', value: '50', duration: 'Forever' },
        { code: 'TENOFF', name: '10 off', kind: 'Amount', value: '10', currency: 'USD', duration: 'Forever' },
      ],
    }),
    app: { testClocks: true },
  });
});
afterAll(async () => t?.close());

type Sub = Record<string, any>;

async function putSubscription(body: Sub, account?: TestAccount): Promise<Sub> {
  const res = await t.call('PUT', '/v1/subscriptions', body, account ? { as: account } : {});
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/**
 * PRO monthly (5 seats at 8.00 = 40.00, support 9.00, support setup fee 25.00) with 6.00 off the
 * support line (3.00 left on it) and the two coupons in the given order.
 */
async function proWithCoupons(codes: string[], account?: TestAccount) {
  const customerId = await newCustomer(t, {}, account);
  const read = await readSubscription(t, await newSubscription(t, customerId, PRO_MONTHLY, account), account);
  const subscription = await putSubscription(
    {
      ...read,
      subscriptionProducts: read.subscriptionProducts.map((p: Sub) =>
        p.productCode === 'SUPPORT' ? { ...p, discount: { type: 'Amount', amount: 6 } } : p,
      ),
      coupons: codes.map((code) => ({ code })),
    },
    account,
  );
  return { customerId, subscription };
}

const preview = async (customerId: number) => {
  const res = await t.call('POST', '/v1/customeractivation?preview=true', { customerId });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().invoicePreview as Sub;
};

async function advanceTo(account: TestAccount, to: Date) {
  const res = await t.call('POST', '/v1/testclock/advance', { to: to.toISOString() }, { as: account });
  expect(res.statusCode, res.body).toBe(200);
}

describe('coupon order', () => {
  // Percentages are taken of the line before discounts and every discount stops at what is left of
  // the line, so which coupon comes first decides how much of the support line is discounted:
  //   HALF, TENOFF: HALF takes 20.00 + 3.00 (all that is left of support), TENOFF 10.00 of the seats: 39.00 off, total 35.00
  //   TENOFF, HALF: TENOFF spreads 10.00 over 40.00 and 3.00 (9.30 + 0.70), HALF 20.00 + 2.30: 38.30 off, total 35.70
  it('applies the coupons in the order the PUT listed them, and lists them in that order', async () => {
    const halfFirst = await proWithCoupons(['HALF', 'TENOFF']);
    expect(halfFirst.subscription.coupons.map((c: Sub) => c.code)).toEqual(['HALF', 'TENOFF']);
    expect(await preview(halfFirst.customerId)).toMatchObject({ subtotal: 74, totalDiscount: 39, total: 35 });

    const tenFirst = await proWithCoupons(['TENOFF', 'HALF']);
    expect(tenFirst.subscription.coupons.map((c: Sub) => c.code)).toEqual(['TENOFF', 'HALF']);
    const invoice = await preview(tenFirst.customerId);
    expect(invoice).toMatchObject({ subtotal: 74, totalDiscount: 38.3, total: 35.7 });
    const seats = invoice.draftCharges.find((c: Sub) => c.productCode === 'SEAT' && c.chargeType === 'Recurring');
    expect(seats.draftDiscounts).toEqual([
      { name: '10 off', amount: 9.3 },
      { name: 'Half off', amount: 20 },
    ]);
  });

  it('follows a PUT that reorders the list, in the activation and at renewal', async () => {
    const account = await t.newAccount();
    const { customerId, subscription } = await proWithCoupons(['HALF', 'TENOFF'], account);
    const reordered = await putSubscription({ ...subscription, coupons: [{ code: 'TENOFF' }, { code: 'HALF' }] }, account);
    expect(reordered.coupons.map((c: Sub) => c.code)).toEqual(['TENOFF', 'HALF']);

    const res = await activate(t, customerId, ACTIVATION_FLAGS, '?view=sideeffects', account);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().invoices.map((i: Sub) => i.invoiceAmount)).toEqual([35.7]);

    // paid (in good standing when the period ends), then the renewal (no setup fee): 49.00 less 38.30
    const paid = await t.call('POST', '/v1/payments', { customerId, amount: 35.7, paymentMethod: 'Check' }, { as: account });
    expect(paid.statusCode, paid.body).toBe(200);
    const { nextPeriodStartDate } = await readSubscription(t, subscription.id, account);
    await advanceTo(account, new Date(`${nextPeriodStartDate}T12:00:00Z`));
    expect((await listInvoices(t, customerId, account)).map((i) => i.invoiceAmount)).toEqual([35.7, 10.7]);
  });
});

describe('a Once coupon', () => {
  it('is not used up by an activation whose every line is dropped, and discounts the next real billing', async () => {
    const account = await t.newAccount();
    const customerId = await newCustomer(t, {}, account);
    const subscriptionId = await newSubscription(t, customerId, BASIC_MONTHLY, account);
    const read = await readSubscription(t, subscriptionId, account);
    const nothingIncluded = await putSubscription(
      {
        ...read,
        subscriptionProducts: read.subscriptionProducts.map((p: Sub) => ({ ...p, isIncluded: false })),
        coupons: [{ code: 'WELCOME10' }],
      },
      account,
    );

    const res = await activate(t, customerId, ACTIVATION_FLAGS, '?view=sideeffects', account);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().invoices, 'nothing to charge: no invoice').toEqual([]);
    const afterActivation = await readSubscription(t, subscriptionId, account);
    expect(afterActivation.coupons).toEqual([{ code: 'WELCOME10', name: '10% off the first period', periodsUsed: 0, remainingPeriods: 1 }]);

    // the seat is included again: the next period is billed, with the coupon (19.99 less 10 %)
    await putSubscription(
      { ...afterActivation, subscriptionProducts: nothingIncluded.subscriptionProducts.map((p: Sub) => ({ ...p, isIncluded: true })) },
      account,
    );
    await advanceTo(account, new Date(`${afterActivation.nextPeriodStartDate}T12:00:00Z`));
    const invoices = await listInvoices(t, customerId, account);
    expect(invoices.map((i) => [i.subtotal, i.totalDiscount, i.invoiceAmount])).toEqual([[19.99, 2, 17.99]]);
    expect((await readSubscription(t, subscriptionId, account)).coupons).toMatchObject([
      { code: 'WELCOME10', periodsUsed: 1, remainingPeriods: 0 },
    ]);
  });
});
