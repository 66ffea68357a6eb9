/**
 * A disagreement the plan-change oracle found (issue 28), written out: a Percentage coupon attached after the
 * running period was billed (PUT /v1/subscriptions replaces the coupon list at any time; a new coupon has
 * periodsUsed 0 and no last use). PLAN-CHANGES.md, step 4: "Percentage coupons of the subscription apply to the
 * charge lines when they applied to the period being changed". This one did not apply to that period, so the
 * change's charges carry no discount of it. The engine used to infer that from periodsUsed − 1 (clamped at 0) and
 * applied it, using none of its periods, so the next renewal applied the Once coupon a second time; it now reads
 * the period the coupon's last use discounted (`lastUsedOn`).
 */
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { planChangeInvoice } from '../../../src/invoices/engine/index.js';
import { product } from './fixtures.js';

const d = (value: Decimal.Value) => new Decimal(value);

describe('plan change: a coupon attached after the running period was billed', () => {
  it('Basic 19.99 → Pro 49.00 on 2027-01-10 with a 10 % Once coupon added on 2027-01-05: no discount on the change', () => {
    const invoice = planChangeInvoice({
      currency: 'USD',
      changeDate: '2027-01-10',
      oldFrequency: { interval: 'Monthly', numberOfIntervals: 1 },
      runningLines: [
        {
          chargeId: 1,
          subscriptionId: 7,
          productCode: 'SEAT',
          name: 'Seat',
          description: null,
          quantity: d(1),
          unitPrice: d('19.99'),
          // The January invoice billed 19.99 without the coupon: it was not attached yet.
          taxableAmount: d('19.99'),
          creditedAmount: d(0),
          startServiceDate: '2027-01-01',
          endServiceDate: '2027-02-01',
        },
      ],
      subscription: {
        subscriptionId: 7,
        name: 'Subscription',
        interval: 'Monthly',
        numberOfIntervals: 1,
        isProrated: true,
        products: [product({ productCode: 'SEAT', name: 'Seat', unitPrice: d('49.00') })],
        coupons: [{ code: 'WELCOME10', kind: 'Percentage', value: d(10), duration: 'Once', periodsUsed: 0 }],
        periodStart: '2027-01-01',
      },
      billingPeriods: {},
      taxRates: [],
      term: 'Net0',
      showZeroDollarCharges: false,
      rollUpTaxes: false,
      rollUpDiscounts: false,
    });
    // Credit 19.99 × 22/31 = 14.19; charge 49.00 × 22/31 = 34.77, undiscounted; total 20.58. The coupon's one period is
    // the next renewal's (2027-02-01), which sees periodsUsed 0.
    expect(
      invoice.charges.map(
        (c) => `${c.kind} ${c.amount.toFixed(2)}${c.discounts.map((x) => ` -${x.name} ${x.amount.toFixed(2)}`).join('')}`,
      ),
    ).toEqual(['Credit -14.19', 'Recurring 34.77']);
    expect(invoice.total.toFixed(2)).toBe('20.58');
  });
});
