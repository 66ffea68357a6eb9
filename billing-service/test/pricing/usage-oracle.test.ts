/**
 * Usage pricing (src/pricing/usage-charges.ts, issue 41) against an independent model written here from its rules:
 * every value a BigInt scaled by 10^18, graduated priced as the overlap of [0, units] with each tier, volume by the
 * tier the total falls in, packages by integer ceiling, the line rounded half up once to the minor unit. Random
 * charges (1-4 tiers, free units, package sizes, prices finer than the minor unit, flat fees) and quantities (0, whole,
 * decimal, exactly on a tier's bound, huge) in USD, JPY and BHD. RENEW_ORACLE_RUNS (default 20,000).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { UsageCharge } from '../../src/catalog/usage-schema.js';
import { money } from '../../src/money/money.js';
import { priceUsage } from '../../src/pricing/usage-charges.js';

const RUNS = Number(process.env.RENEW_ORACLE_RUNS ?? 20_000);
const DIGITS = { USD: 2, JPY: 0, BHD: 3 } as const;
type Currency = keyof typeof DIGITS;
const SCALE = 10n ** 18n;

/** A decimal string as a BigInt × 10^18. */
function scaled(value: string | number): bigint {
  const [whole, fraction = ''] = String(value).split('.');
  return BigInt(whole!) * SCALE + BigInt((fraction + '0'.repeat(18)).slice(0, 18));
}
const times = (a: bigint, b: bigint) => (a * b) / SCALE; // exact: the test's values have few decimals
const minOf = (a: bigint, b: bigint) => (a < b ? a : b);

/** The model's line amount in minor units. */
function modelAmount(charge: UsageCharge, quantity: string, currency: Currency): bigint {
  const price = charge.prices[0]!;
  const free = scaled(charge.freeUnits);
  const q = scaled(quantity);
  const units = q > free ? q - free : 0n;
  let exact = 0n;
  if (units > 0n) {
    if (charge.model === 'perUnit') exact = times(units, scaled(price.unitAmount!));
    if (charge.model === 'package') {
      const size = scaled(charge.packageSize!);
      exact = ((units + size - 1n) / size) * scaled(price.packageAmount!);
    }
    const tiers = (price.tiers ?? []).map((t, i, all) => ({
      lower: i === 0 ? 0n : scaled(all[i - 1]!.upTo!),
      upper: t.upTo === null ? null : scaled(t.upTo),
      unit: scaled(t.unitAmount),
      flat: scaled(t.flatAmount),
    }));
    if (charge.model === 'graduated')
      for (const t of tiers) {
        const overlap = (t.upper === null ? units : minOf(units, t.upper)) - t.lower;
        if (overlap > 0n) exact += times(overlap, t.unit) + t.flat;
      }
    if (charge.model === 'volume') {
      const t = tiers.find((x) => x.upper === null || units <= x.upper)!;
      exact = times(units, t.unit) + t.flat;
    }
  }
  const unit = 10n ** BigInt(18 - DIGITS[currency]);
  return (2n * exact + unit) / (2n * unit);
}

const decimal = (maxWhole: number, decimals: number) =>
  fc
    .tuple(fc.integer({ min: 0, max: maxWhole }), fc.integer({ min: 0, max: 10 ** decimals - 1 }))
    .map(([w, f]) => (f === 0 ? String(w) : `${w}.${String(f).padStart(decimals, '0')}`));

const tiersArb = fc
  .uniqueArray(fc.integer({ min: 1, max: 100_000 }), { minLength: 0, maxLength: 3 })
  .chain((bounds) =>
    fc.tuple(
      fc.constant([...bounds].sort((a, b) => a - b)),
      fc.array(fc.tuple(decimal(20, 4), fc.oneof(fc.constant('0'), decimal(50, 2))), {
        minLength: bounds.length + 1,
        maxLength: bounds.length + 1,
      }),
    ),
  )
  .map(([bounds, prices]) => prices.map(([unitAmount, flatAmount], i) => ({ upTo: bounds[i] ?? null, unitAmount, flatAmount })));

const chargeArb = fc
  .record({
    model: fc.constantFrom('perUnit', 'package', 'graduated', 'volume' as const),
    freeUnits: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 2000 })),
    packageSize: fc.integer({ min: 1, max: 1000 }),
    unitAmount: decimal(5, 4),
    packageAmount: decimal(500, 2),
    tiers: tiersArb,
    currency: fc.constantFrom<Currency>('USD', 'JPY', 'BHD'),
  })
  .map((c): { charge: UsageCharge; currency: Currency } => ({
    currency: c.currency,
    charge: {
      metric: 'm',
      model: c.model as UsageCharge['model'],
      freeUnits: c.freeUnits,
      ...(c.model === 'package' ? { packageSize: c.packageSize } : {}),
      prices: [
        {
          currency: c.currency,
          ...(c.model === 'perUnit' ? { unitAmount: c.unitAmount } : {}),
          ...(c.model === 'package' ? { packageAmount: c.packageAmount } : {}),
          ...(c.model === 'graduated' || c.model === 'volume' ? { tiers: c.tiers } : {}),
        },
      ],
    },
  }));

const quantityArb = (charge: UsageCharge) => {
  const bounds = (charge.prices[0]!.tiers ?? []).flatMap((t) =>
    t.upTo === null ? [] : [t.upTo + charge.freeUnits, t.upTo + charge.freeUnits + 1],
  );
  return fc.oneof(
    fc.constant('0'),
    fc.integer({ min: 0, max: 200_000 }).map(String),
    decimal(200_000, 3),
    fc.integer({ min: 0, max: 2_000_000_000 }).map(String),
    ...(bounds.length > 0 ? [fc.constantFrom(...bounds.map(String))] : []),
  );
};

describe('usage pricing against an independent model', () => {
  it(`agrees on the line amount over ${RUNS} random charges and quantities in USD, JPY and BHD`, () => {
    const seen: Record<string, number> = {};
    fc.assert(
      fc.property(
        chargeArb.chain((c) => fc.tuple(fc.constant(c), quantityArb(c.charge))),
        ([{ charge, currency }, quantity]) => {
          seen[charge.model] = (seen[charge.model] ?? 0) + 1;
          const priced = priceUsage(charge, money(quantity), currency);
          const expected = modelAmount(charge, quantity, currency);
          expect(priced.amount.times(10 ** DIGITS[currency]).toFixed(0)).toBe(expected.toString());
        },
      ),
      { numRuns: RUNS },
    );
    for (const model of ['perUnit', 'package', 'graduated', 'volume']) expect(seen[model]).toBeGreaterThan(RUNS / 8);
  });

  // The demo's METERED plan: the first 1,000 calls free (a 0-priced tier), then 0.002 USD a call.
  const metered: UsageCharge = {
    metric: 'api_calls',
    model: 'graduated',
    freeUnits: 0,
    prices: [
      {
        currency: 'USD',
        tiers: [
          { upTo: 1000, unitAmount: '0', flatAmount: '0' },
          { upTo: null, unitAmount: '0.002', flatAmount: '0' },
        ],
      },
    ],
  };
  it('worked examples: graduated, volume, package and free units, rounded once', () => {
    expect(priceUsage(metered, money(1000), 'USD').amount.toString()).toBe('0');
    expect(priceUsage(metered, money(1001), 'USD').amount.toString()).toBe('0'); // 0.002 rounds to 0.00
    expect(priceUsage(metered, money(1003), 'USD').amount.toString()).toBe('0.01'); // 0.006 → 0.01
    expect(priceUsage(metered, money(25_000), 'USD')).toMatchObject({ amount: money('48') });
    expect(priceUsage(metered, money(25_000), 'USD').tiers.map((t) => [t.units.toString(), t.amount.toString()])).toEqual([
      ['1000', '0'],
      ['24000', '48'],
    ]);
    const volume: UsageCharge = {
      metric: 'seats',
      model: 'volume',
      freeUnits: 0,
      prices: [
        {
          currency: 'JPY',
          tiers: [
            { upTo: 10, unitAmount: '500', flatAmount: '1000' },
            { upTo: null, unitAmount: '400', flatAmount: '0' },
          ],
        },
      ],
    };
    expect(priceUsage(volume, money(10), 'JPY').amount.toString()).toBe('6000');
    expect(priceUsage(volume, money(11), 'JPY').amount.toString()).toBe('4400');
    expect(priceUsage(volume, money(0), 'JPY').amount.toString()).toBe('0');
    const packaged: UsageCharge = {
      metric: 'sms',
      model: 'package',
      freeUnits: 100,
      packageSize: 1000,
      prices: [{ currency: 'BHD', packageAmount: '1.250' }],
    };
    expect(priceUsage(packaged, money(100), 'BHD').amount.toString()).toBe('0');
    expect(priceUsage(packaged, money(101), 'BHD').amount.toString()).toBe('1.25');
    expect(priceUsage(packaged, money(2101), 'BHD').amount.toString()).toBe('3.75');
    expect(() => priceUsage(packaged, money(1), 'USD')).toThrow(/no price in USD/);
  });
});
