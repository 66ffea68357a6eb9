import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BASIC_MONTHLY,
  ONTARIO_BILLING,
  activate,
  cancel,
  hold,
  listInvoices,
  newCustomer,
  newSubscription,
  readOverview,
  readSubscription,
  uncancel,
  unhold,
} from '../helpers/api-fixtures.js';
import { startTestApp, testCatalog, type TestAccount, type TestApp } from '../helpers/test-app.js';

/**
 * Coming back mid-period (unhold with `prorate`, uncancel), through the API on an account's test
 * clock: billed to the end of the period running today on the subscription's own grid of periods
 * (the anniversary stays), nothing billed for a rest already paid, and one invoice for a
 * SingleInvoice customer's subscriptions (issue 24, items 2, 3 and 4).
 */

/** Plans of several months or years, all prorated by days (README "Billing rules"). */
const PRO_QUARTERLY = 61;
const TWO_MONTHLY = 71;
const TWO_YEARLY = 81;

let t: TestApp;
beforeAll(async () => {
  const demo = testCatalog();
  const catalog = testCatalog({
    plans: [
      ...structuredClone(demo.plans),
      {
        id: 6,
        code: 'PROQ',
        name: 'Pro quarterly',
        products: [
          { code: 'SEAT', name: 'Seat', quantity: 1 },
          { code: 'SUPPORT', name: 'Support', quantity: 1 },
        ],
        frequencies: [
          {
            id: PRO_QUARTERLY,
            interval: 'Monthly',
            numberOfIntervals: 3,
            isProrated: true,
            prices: [
              { product: 'SEAT', charges: [{ currency: 'USD', amount: '100.00' }] },
              { product: 'SUPPORT', charges: [{ currency: 'USD', amount: '46.95' }] },
            ],
          },
        ],
      },
      {
        id: 7,
        code: 'BIMONTHLY',
        name: 'Every two months',
        products: [{ code: 'SEAT', name: 'Seat', quantity: 1 }],
        frequencies: [
          {
            id: TWO_MONTHLY,
            interval: 'Monthly',
            numberOfIntervals: 2,
            isProrated: true,
            prices: [{ product: 'SEAT', charges: [{ currency: 'USD', amount: '40.00' }] }],
          },
        ],
      },
      {
        id: 8,
        code: 'BIYEARLY',
        name: 'Every two years',
        products: [{ code: 'SEAT', name: 'Seat', quantity: 1 }],
        frequencies: [
          {
            id: TWO_YEARLY,
            interval: 'Yearly',
            numberOfIntervals: 2,
            isProrated: true,
            prices: [{ product: 'SEAT', charges: [{ currency: 'USD', amount: '500.00' }] }],
          },
        ],
      },
    ],
    coupons: [
      ...structuredClone(demo.coupons),
      { code: 'FREEONCE', name: 'First period free', kind: 'Percentage', value: '100', duration: 'Once' },
      { code: 'FREETWICE', name: 'Two periods free', kind: 'Percentage', value: '100', duration: 'Periods', periods: 2 },
    ],
  });
  t = await startTestApp({ catalog, app: { testClocks: true } });
});
afterAll(async () => t?.close());

/**
 * The year the scenarios run in: the first after this one that sits like 2027 in the leap cycle (the
 * year after it is a leap year), so every day count below holds whatever year the tests run.
 */
const Y = (() => {
  let year = new Date().getUTCFullYear() + 1;
  while (year % 4 !== 3) year += 1;
  return year;
})();
/** A date of year Y + `years`, as YYYY-MM-DD. */
const day = (years: number, monthDay: string) => `${Y + years}-${monthDay}`;

/** A new account (a test clock of its own) whose time is moved to `date`. */
async function accountOn(date: string): Promise<TestAccount> {
  const account = await t.newAccount();
  await advance(account, date);
  return account;
}

/** Moves the account's clock to 10:00 UTC on `date`, running the billing clock for every day passed. */
async function advance(account: TestAccount, date: string) {
  const res = await t.call('POST', '/v1/testclock/advance', { to: `${date}T10:00:00.000Z` }, { as: account });
  expect(res.statusCode, res.body).toBe(200);
}

/** An active customer with one subscription per frequency (coupons added before activation), its first invoice paid. */
async function activeCustomer(
  account: TestAccount,
  frequencies: number[],
  options: { body?: Record<string, unknown>; coupons?: string[] } = {},
) {
  const customerId = await newCustomer(t, options.body ?? {}, account);
  const subscriptionIds: number[] = [];
  for (const frequency of frequencies) {
    const id = await newSubscription(t, customerId, frequency, account);
    if (options.coupons) {
      const subscription = await readSubscription(t, id, account);
      const put = await t.call(
        'PUT',
        '/v1/subscriptions',
        { ...subscription, coupons: options.coupons.map((code) => ({ code })) },
        { as: account },
      );
      expect(put.statusCode, put.body).toBe(200);
    }
    subscriptionIds.push(id);
  }
  const activated = await activate(t, customerId, undefined, '', account);
  expect(activated.statusCode, activated.body).toBe(200);
  await payBalance(account, customerId);
  return { customerId, subscriptionIds };
}

/** Pays what the customer owes by check (so the billing clock never suspends it while the clock moves on). */
async function payBalance(account: TestAccount, customerId: number) {
  const { arBalance } = await readOverview(t, customerId, account);
  if (arBalance === 0) return;
  const paid = await t.call('POST', '/v1/payments', { customerId, amount: arBalance, paymentMethod: 'Check' }, { as: account });
  expect(paid.statusCode, paid.body).toBe(200);
}

/** [start, end, amount] of each charge of each invoice after the first `skip`. */
async function chargesAfter(account: TestAccount, customerId: number, skip: number) {
  const invoices = await listInvoices(t, customerId, account);
  return invoices.slice(skip).map((i) => i.charges.map((c: any) => [c.name, c.startServiceDate, c.endServiceDate, c.amount]));
}

const ok = (res: { statusCode: number; body: string }, status = 200) => expect(res.statusCode, res.body).toBe(status);

describe('frequencies of several months or years: back mid-period, billed to the end of the period running today', () => {
  it('PRO quarterly, cancelled (None) in its first quarter, uncancelled in its third: billed to the anniversary, which stays', async () => {
    const account = await accountOn(day(0, '01-03'));
    const { customerId, subscriptionIds } = await activeCustomer(account, [PRO_QUARTERLY]);
    expect((await listInvoices(t, customerId, account)).map((i) => i.invoiceAmount)).toEqual([146.95]);
    await advance(account, day(0, '01-10'));
    ok(await cancel(t, customerId, 'None', account), 204);
    await advance(account, day(0, '08-10'));
    ok(await uncancel(t, customerId, account));
    // Quarters run 3 Jan, 3 Apr, 3 Jul, 3 Oct. The one running on 10 Aug is 3 Jul – 3 Oct (92 days);
    // 54 are left: Seat 100.00 × 54 / 92 = 58.6957, Support 46.95 × 54 / 92 = 27.5576.
    expect(await chargesAfter(account, customerId, 1)).toEqual([
      [
        ['Seat', day(0, '08-10'), day(0, '10-03'), 58.7],
        ['Support', day(0, '08-10'), day(0, '10-03'), 27.56],
      ],
    ]);
    expect((await listInvoices(t, customerId, account)).map((i) => i.invoiceAmount)).toEqual([146.95, 86.26]);
    expect((await readSubscription(t, subscriptionIds[0]!, account)).nextPeriodStartDate).toBe(day(0, '10-03'));
    // The next quarter renews on the anniversary, in full.
    await payBalance(account, customerId);
    await advance(account, day(0, '10-03'));
    expect(await chargesAfter(account, customerId, 2)).toEqual([
      [
        ['Seat', day(0, '10-03'), day(1, '01-03'), 100],
        ['Support', day(0, '10-03'), day(1, '01-03'), 46.95],
      ],
    ]);
  });

  it('every two months, unhold with prorate: from today to the end of the two months running, not two months from the next billing day', async () => {
    const account = await accountOn(day(0, '01-03'));
    const { customerId, subscriptionIds } = await activeCustomer(account, [TWO_MONTHLY]);
    await advance(account, day(0, '01-20'));
    ok(await hold(t, customerId, account));
    await advance(account, day(0, '04-15'));
    ok(await unhold(t, customerId, { serviceStartOption: 'ChargeForLastMissedPeriods', prorate: true }, account));
    // Periods run 3 Jan, 3 Mar, 3 May. 3 Mar – 3 May is 61 days, 18 left from 15 Apr: 40.00 × 18 / 61 = 11.8033.
    expect(await chargesAfter(account, customerId, 1)).toEqual([[['Seat', day(0, '04-15'), day(0, '05-03'), 11.8]]]);
    expect((await readSubscription(t, subscriptionIds[0]!, account)).nextPeriodStartDate).toBe(day(0, '05-03'));
  });

  it('every two years, uncancel after Unearned in the second year: the days left to the end of the two years, billed again', async () => {
    const account = await accountOn(day(0, '01-03'));
    const { customerId, subscriptionIds } = await activeCustomer(account, [TWO_YEARLY]);
    await advance(account, day(1, '02-01'));
    ok(await cancel(t, customerId, 'Unearned', account), 204);
    await advance(account, day(1, '03-01'));
    ok(await uncancel(t, customerId, account));
    // The period is Y-01-03 – (Y+2)-01-03, 731 days (Y+1 is a leap year). Unearned credited the 337 days
    // left on 1 Feb (500.00 × 337 / 731 = 230.51); from 1 Mar 308 are served again: 500.00 × 308 / 731 = 210.6703.
    expect(await chargesAfter(account, customerId, 1)).toEqual([[['Seat', day(1, '03-01'), day(2, '01-03'), 210.67]]]);
    expect((await readSubscription(t, subscriptionIds[0]!, account)).nextPeriodStartDate).toBe(day(2, '01-03'));
    // Owed: the 210.67 less the 230.51 credit's rest: 500.00 paid, 230.51 credited → 19.84 left unallocated.
    expect(await readOverview(t, customerId, account)).toMatchObject({ arBalance: 0, unallocatedCredits: 19.84 });
  });
});

describe('uncancel in the same period after a cancellation that credited nothing: the rest is still paid for, nothing is billed', () => {
  // BASIC monthly, 19.99 (setup fee 10.00), activated 1 Jan; back on 12 Jan: the 20 days left of 31 are worth 12.90 before coupons.
  it('a 100 % coupon for the first period only (None): no invoice, and the next renewal is the full price', async () => {
    const account = await accountOn(day(0, '01-01'));
    const { customerId } = await activeCustomer(account, [BASIC_MONTHLY], { coupons: ['FREEONCE'] });
    expect((await listInvoices(t, customerId, account)).map((i) => i.invoiceAmount)).toEqual([10]);
    await advance(account, day(0, '01-11'));
    ok(await cancel(t, customerId, 'None', account), 204);
    await advance(account, day(0, '01-12'));
    ok(await uncancel(t, customerId, account));
    expect((await listInvoices(t, customerId, account)).map((i) => i.invoiceAmount)).toEqual([10]);
    await advance(account, day(0, '02-01'));
    expect(await chargesAfter(account, customerId, 1)).toEqual([[['Seat', day(0, '02-01'), day(0, '03-01'), 19.99]]]);
  });

  it('a 100 % coupon for two periods (None): no 0.00 invoice that would use up the second period', async () => {
    const account = await accountOn(day(0, '01-01'));
    const { customerId, subscriptionIds } = await activeCustomer(account, [BASIC_MONTHLY], { coupons: ['FREETWICE'] });
    await advance(account, day(0, '01-11'));
    ok(await cancel(t, customerId, 'None', account), 204);
    await advance(account, day(0, '01-12'));
    ok(await uncancel(t, customerId, account));
    expect(await listInvoices(t, customerId, account)).toHaveLength(1);
    expect((await readSubscription(t, subscriptionIds[0]!, account)).coupons).toMatchObject([
      { code: 'FREETWICE', periodsUsed: 1, remainingPeriods: 1 },
    ]);
    // February is the second free period; March is paid.
    await advance(account, day(0, '03-01'));
    expect((await listInvoices(t, customerId, account)).map((i) => i.invoiceAmount)).toEqual([10, 0, 19.99]);
  });

  it('a 100 % coupon (Unearned): the rest was worth nothing, nothing was credited, so nothing is taken back', async () => {
    const account = await accountOn(day(0, '01-01'));
    const { customerId } = await activeCustomer(account, [BASIC_MONTHLY], { coupons: ['FREEONCE'] });
    await advance(account, day(0, '01-11'));
    ok(await cancel(t, customerId, 'Unearned', account), 204);
    await advance(account, day(0, '01-12'));
    ok(await uncancel(t, customerId, account));
    expect((await listInvoices(t, customerId, account)).map((i) => i.invoiceAmount)).toEqual([10]);
    expect(await readOverview(t, customerId, account)).toMatchObject({ arBalance: 0, unallocatedCredits: 0 });
  });
});

describe('a SingleInvoice customer: one invoice for all the subscriptions a prorated unhold or uncancel bills', () => {
  // Ontario (GST 5 %, HST 8 %, each rounded once per invoice); two BASIC monthly subscriptions (19.99).
  // Back on 12 Mar: 20 of March's 31 days, 19.99 × 20 / 31 = 12.8968 → 12.90 each. One invoice:
  // 25.80 + GST 1.29 + HST 2.064 → 2.06 = 29.15 (two invoices would be 2 × (12.90 + 0.65 + 1.03) = 29.16).
  const SINGLE_INVOICE = { ...ONTARIO_BILLING, monthlyBillingPeriodConfiguration: { type: 'CustomerActivation', rule: 'SingleInvoice' } };
  const rest = (subscriptionId: number) => ({
    subscriptionId,
    startServiceDate: day(0, '03-12'),
    endServiceDate: day(0, '04-01'),
    amount: 12.9,
  });

  async function expectOneInvoice(account: TestAccount, customerId: number, subscriptionIds: number[], before: number) {
    const invoices = (await listInvoices(t, customerId, account)).slice(before);
    expect(invoices).toHaveLength(1);
    expect(invoices[0]).toMatchObject({ subtotal: 25.8, totalTaxes: 3.35, invoiceAmount: 29.15, charges: subscriptionIds.map(rest) });
    for (const id of subscriptionIds) expect((await readSubscription(t, id, account)).nextPeriodStartDate).toBe(day(0, '04-01'));
  }

  it('unhold with ChargeForLastMissedPeriods and prorate', async () => {
    const account = await accountOn(day(0, '01-01'));
    const { customerId, subscriptionIds } = await activeCustomer(account, [BASIC_MONTHLY, BASIC_MONTHLY], { body: SINGLE_INVOICE });
    await advance(account, day(0, '01-15'));
    ok(await hold(t, customerId, account));
    await advance(account, day(0, '03-12'));
    ok(await unhold(t, customerId, { serviceStartOption: 'ChargeForLastMissedPeriods', prorate: true }, account));
    await expectOneInvoice(account, customerId, subscriptionIds, 1);
  });

  it('uncancel after None, periods having started while cancelled', async () => {
    const account = await accountOn(day(0, '01-01'));
    const { customerId, subscriptionIds } = await activeCustomer(account, [BASIC_MONTHLY, BASIC_MONTHLY], { body: SINGLE_INVOICE });
    await advance(account, day(0, '01-15'));
    ok(await cancel(t, customerId, 'None', account), 204);
    await advance(account, day(0, '03-12'));
    ok(await uncancel(t, customerId, account));
    await expectOneInvoice(account, customerId, subscriptionIds, 1);
  });

  it('uncancel after Unearned in the same period', async () => {
    const account = await accountOn(day(0, '03-01'));
    const { customerId, subscriptionIds } = await activeCustomer(account, [BASIC_MONTHLY, BASIC_MONTHLY], { body: SINGLE_INVOICE });
    await advance(account, day(0, '03-05'));
    ok(await cancel(t, customerId, 'Unearned', account), 204);
    await advance(account, day(0, '03-12'));
    ok(await uncancel(t, customerId, account));
    await expectOneInvoice(account, customerId, subscriptionIds, 1);
  });
});
