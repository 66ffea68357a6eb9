import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  anniversaryPeriodStart,
  billingPeriod,
  nextPeriodStart,
  periodStartBefore,
  restOfPeriod,
  type BillingPeriodRule,
} from '../../../src/invoices/engine/index.js';
import { fromDayNumber, formatDate, toDayNumber, parseDate } from '../../../src/invoices/engine/dates.js';

const specified = (day: number, month?: number): BillingPeriodRule => ({ type: 'SpecifiedDate', rule: 'SingleInvoice', day, month });

describe('billing periods: anniversary', () => {
  it.each([
    ['2026-01-15', 'Monthly', 1, undefined, '2026-02-15'],
    ['2026-01-31', 'Monthly', 1, undefined, '2026-02-28'],
    ['2026-02-28', 'Monthly', 1, 31, '2026-03-31'],
    ['2026-02-28', 'Monthly', 1, undefined, '2026-03-28'],
    ['2026-03-31', 'Monthly', 1, 31, '2026-04-30'],
    ['2026-04-30', 'Monthly', 1, 31, '2026-05-31'],
    ['2028-01-31', 'Monthly', 1, undefined, '2028-02-29'],
    ['2026-02-28', 'Monthly', 1, 30, '2026-03-30'],
    ['2026-11-30', 'Monthly', 3, 31, '2027-02-28'],
    ['2026-12-15', 'Monthly', 1, undefined, '2027-01-15'],
    ['2026-03-10', 'Yearly', 1, undefined, '2027-03-10'],
    ['2024-02-29', 'Yearly', 1, undefined, '2025-02-28'],
    ['2027-02-28', 'Yearly', 1, 29, '2028-02-29'],
    ['2026-03-10', 'Yearly', 3, undefined, '2029-03-10'],
  ] as const)('%s %s × %i (anchor day %s) → %s', (start, interval, n, anchorDay, expected) => {
    expect(nextPeriodStart(start, interval, n, undefined, anchorDay)).toBe(expected);
    const period = billingPeriod(start, interval, n, { type: 'FirstSubscriptionActivation', rule: 'SingleInvoice' }, anchorDay);
    expect(period).toMatchObject({ start, end: expected, fullStart: start, fullEnd: expected, partial: false });
  });

  it('remembers the anniversary day: Jan 31 → Feb 28 → Mar 31 → Apr 30', () => {
    const starts = [0, 1, 2, 3].map((k) => anniversaryPeriodStart('2026-01-31', 'Monthly', 1, k));
    expect(starts).toEqual(['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30']);
    // Chaining nextPeriodStart with the anchor day gives the same dates as computing from the anchor.
    let start = '2026-01-31';
    const chained = [start];
    for (let i = 0; i < 3; i++) {
      start = nextPeriodStart(start, 'Monthly', 1, undefined, 31);
      chained.push(start);
    }
    expect(chained).toEqual(starts);
  });

  it('chaining with the anchor day equals computing from the original start (any start, any frequency)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3650 }),
        fc.constantFrom('Monthly' as const, 'Yearly' as const),
        fc.integer({ min: 1, max: 4 }),
        (offset, interval, n) => {
          const anchor = addDays('2020-01-01', offset);
          const anchorDay = parseDate(anchor).day;
          let start = anchor;
          for (let k = 1; k <= 15; k++) {
            start = nextPeriodStart(start, interval, n, undefined, anchorDay);
            expect(start).toBe(anniversaryPeriodStart(anchor, interval, n, k));
          }
        },
      ),
    );
  });

  it('rejects an anchor day that does not fit the period start', () => {
    expect(() => nextPeriodStart('2026-01-15', 'Monthly', 1, undefined, 31)).toThrow(/anchorDay/);
    expect(() => nextPeriodStart('2026-01-15', 'Monthly', 1, undefined, 14)).toThrow(/anchorDay/);
    expect(() => nextPeriodStart('2026-01-15', 'Monthly', 0)).toThrow(/numberOfIntervals/);
  });
});

describe('billing periods: SpecifiedDate', () => {
  it.each([
    // start, interval, n, rule, end, fullStart, days, fullDays
    ['2026-01-15', 'Monthly', 1, specified(1), '2026-02-01', '2026-01-01', 17, 31],
    ['2026-01-01', 'Monthly', 1, specified(1), '2026-02-01', '2026-01-01', 31, 31],
    ['2026-01-31', 'Monthly', 1, specified(15), '2026-02-15', '2026-01-15', 15, 31],
    ['2026-02-10', 'Monthly', 1, specified(31), '2026-02-28', '2026-01-31', 18, 28],
    ['2026-02-28', 'Monthly', 1, specified(31), '2026-03-31', '2026-02-28', 31, 31],
    ['2026-03-31', 'Monthly', 1, specified(31), '2026-04-30', '2026-03-31', 30, 30],
    ['2026-12-20', 'Monthly', 1, specified(5), '2027-01-05', '2026-12-05', 16, 31],
    ['2026-01-15', 'Monthly', 3, specified(1), '2026-04-01', '2026-01-01', 76, 90],
    ['2026-02-01', 'Monthly', 3, specified(1), '2026-05-01', '2026-02-01', 89, 89],
    ['2026-07-01', 'Yearly', 1, specified(1, 1), '2027-01-01', '2026-01-01', 184, 365],
    ['2026-01-01', 'Yearly', 1, specified(1, 1), '2027-01-01', '2026-01-01', 365, 365],
    ['2026-03-01', 'Yearly', 1, specified(29, 2), '2027-02-28', '2026-02-28', 364, 365],
    ['2027-03-01', 'Yearly', 1, specified(29, 2), '2028-02-29', '2027-02-28', 365, 366],
    ['2026-07-01', 'Yearly', 2, specified(1, 1), '2028-01-01', '2026-01-01', 549, 730],
  ] as const)('%s %s × %i %o → [%s) full from %s, %i of %i days', (start, interval, n, rule, end, fullStart, days, fullDays) => {
    const period = billingPeriod(start, interval, n, rule);
    expect(period).toEqual({ start, end, fullStart, fullEnd: end, partial: fullStart !== start, days, fullDays });
    expect(nextPeriodStart(start, interval, n, rule)).toBe(end);
  });

  it('a partial period lies inside its full period, and the following period is full', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3650 }),
        fc.constantFrom('Monthly' as const, 'Yearly' as const),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 31 }),
        fc.integer({ min: 1, max: 12 }),
        (offset, interval, n, day, month) => {
          const rule = specified(day, month);
          const period = billingPeriod(addDays('2020-01-01', offset), interval, n, rule);
          expect(period.days).toBeGreaterThan(0);
          expect(period.days).toBeLessThanOrEqual(period.fullDays);
          expect(period.fullStart <= period.start && period.start < period.end).toBe(true);
          const next = billingPeriod(period.end, interval, n, rule);
          expect(next.partial).toBe(false);
          expect(next.fullStart).toBe(period.end);
        },
      ),
    );
  });
});

describe('billing periods: the rest of a period, and the start of the period before an end', () => {
  it('the rest keeps the end and the full period, so it is prorated over the whole period', () => {
    const quarter = billingPeriod('2027-07-03', 'Monthly', 3);
    expect(restOfPeriod(quarter, '2027-08-10')).toEqual({
      start: '2027-08-10',
      end: '2027-10-03',
      fullStart: '2027-07-03',
      fullEnd: '2027-10-03',
      partial: true,
      days: 54,
      fullDays: 92,
    });
    expect(restOfPeriod(quarter, '2027-07-03')).toEqual(quarter);
    // A partial SpecifiedDate period: its rest is still measured against the full month.
    expect(restOfPeriod(billingPeriod('2026-01-15', 'Monthly', 1, specified(1)), '2026-01-20')).toMatchObject({
      days: 12,
      fullDays: 31,
      partial: true,
    });
    expect(() => restOfPeriod(quarter, '2027-10-03')).toThrow(/billFrom/);
    expect(() => restOfPeriod(quarter, '2027-07-02')).toThrow(/billFrom/);
  });

  it.each([
    // end, interval, n, rule, anchor day, start
    ['2027-10-03', 'Monthly', 3, undefined, 3, '2027-07-03'],
    ['2027-05-03', 'Monthly', 2, undefined, undefined, '2027-03-03'],
    ['2026-02-28', 'Monthly', 1, undefined, 31, '2026-01-31'],
    ['2026-04-30', 'Monthly', 3, undefined, 31, '2026-01-31'],
    ['2029-01-03', 'Yearly', 2, undefined, undefined, '2027-01-03'],
    ['2028-02-29', 'Yearly', 1, undefined, 29, '2027-02-28'],
    ['2026-05-01', 'Monthly', 3, specified(1), undefined, '2026-02-01'],
    ['2026-02-28', 'Monthly', 1, specified(30), undefined, '2026-01-30'],
    ['2029-01-01', 'Yearly', 2, specified(1, 1), undefined, '2027-01-01'],
  ] as const)('the period ending %s (%s × %i, %o, anchor day %s) starts %s', (end, interval, n, rule, anchorDay, start) => {
    expect(periodStartBefore(end, interval, n, rule, anchorDay)).toBe(start);
    expect(nextPeriodStart(start, interval, n, rule, anchorDay)).toBe(end);
  });

  it('is the inverse of nextPeriodStart on an anniversary grid (any start, any frequency)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3650 }),
        fc.constantFrom('Monthly' as const, 'Yearly' as const),
        fc.integer({ min: 1, max: 24 }),
        fc.nat(5),
        (offset, interval, n, k) => {
          const anchor = addDays('2020-01-01', offset);
          const start = anniversaryPeriodStart(anchor, interval, n, k);
          const anchorDay = Number(anchor.slice(8, 10));
          const end = nextPeriodStart(start, interval, n, undefined, anchorDay);
          expect(periodStartBefore(end, interval, n, undefined, anchorDay)).toBe(start);
        },
      ),
    );
  });
});

describe('calendar arithmetic', () => {
  it('day numbers agree with the JavaScript calendar', () => {
    fc.assert(
      fc.property(fc.integer({ min: -719_162, max: 2_932_896 }) /* 0001-01-01 … 9999-12-31 */, (n) => {
        const iso = new Date(n * 86_400_000).toISOString().slice(0, 10);
        expect(formatDate(fromDayNumber(n))).toBe(iso);
        expect(toDayNumber(parseDate(iso))).toBe(n);
      }),
    );
  });
});
