import { describe, expect, it } from 'vitest';
import { parseCatalog } from '../../src/catalog/load-catalog.js';

/** A catalogue with one metered plan whose monthly frequency bills `usageCharges`, and the metrics given. */
function metered(usageCharges: unknown[], billableMetrics: unknown[] = [{ code: 'api_calls', name: 'API calls', aggregation: 'count' }]) {
  return {
    currencies: { default: 'USD', allowed: ['USD', 'JPY'] },
    billableMetrics,
    plans: [
      {
        id: 1,
        code: 'METERED',
        name: 'Metered',
        products: [{ code: 'BASE', name: 'Base' }],
        frequencies: [
          { id: 1, interval: 'Monthly', prices: [{ product: 'BASE', charges: [{ currency: 'USD', amount: '0' }] }], usageCharges },
        ],
      },
    ],
  };
}

const graduated = {
  metric: 'api_calls',
  model: 'graduated',
  prices: [
    {
      currency: 'USD',
      tiers: [
        { upTo: 1000, unitAmount: '0' },
        { upTo: null, unitAmount: '0.002' },
      ],
    },
  ],
};

describe('usage in the catalogue (issue 41)', () => {
  it('takes metrics and graduated charges, amounts as exact strings finer than the minor unit', () => {
    const catalog = parseCatalog(metered([graduated]));
    expect(catalog.billableMetrics[0]).toEqual({
      code: 'api_calls',
      name: 'API calls',
      aggregation: 'count',
      filters: {},
      reset: 'period',
    });
    const charge = catalog.plans[0]!.frequencies[0]!.usageCharges[0]!;
    expect(charge.freeUnits).toBe(0);
    expect(charge.prices[0]!.tiers![1]).toEqual({ upTo: null, unitAmount: '0.002', flatAmount: '0' });
  });

  it('a frequency without usage charges has none', () => {
    expect(parseCatalog(metered([])).plans[0]!.frequencies[0]!.usageCharges).toEqual([]);
  });

  it('refuses a charge on an unknown metric, a metric defined twice and a metric charged twice', () => {
    expect(() => parseCatalog(metered([{ ...graduated, metric: 'gigabytes' }]))).toThrow(
      /usageCharges\.0\.metric: no billable metric gigabytes/,
    );
    const twice = { code: 'api_calls', name: 'Again', aggregation: 'count' };
    expect(() => parseCatalog(metered([graduated], [twice, twice]))).toThrow(/billableMetrics\.1\.code: api_calls is defined twice/);
    expect(() => parseCatalog(metered([graduated, graduated]))).toThrow(/usageCharges\.1\.metric: api_calls is charged twice/);
  });

  it('refuses what a model cannot price: no tiers, falling tiers, an open tier before the last, no package size', () => {
    const tiers = (t: unknown[]) => metered([{ ...graduated, prices: [{ currency: 'USD', tiers: t }] }]);
    expect(() => parseCatalog(metered([{ metric: 'api_calls', model: 'volume', prices: [{ currency: 'USD', unitAmount: '1' }] }]))).toThrow(
      /prices\.0\.tiers: a volume charge needs tiers/,
    );
    expect(() =>
      parseCatalog(
        tiers([
          { upTo: 10, unitAmount: '1' },
          { upTo: 5, unitAmount: '1' },
          { upTo: null, unitAmount: '1' },
        ]),
      ),
    ).toThrow(/tiers\.1\.upTo: tiers must rise/);
    expect(() =>
      parseCatalog(
        tiers([
          { upTo: null, unitAmount: '1' },
          { upTo: null, unitAmount: '1' },
        ]),
      ),
    ).toThrow(/tiers\.0\.upTo: only the last tier/);
    expect(() =>
      parseCatalog(metered([{ metric: 'api_calls', model: 'package', prices: [{ currency: 'USD', packageAmount: '5' }] }])),
    ).toThrow(/packageSize: a package charge needs packageSize/);
    expect(() => parseCatalog(tiers([{ upTo: null, unitAmount: '-1' }]))).toThrow(/unitAmount/);
  });

  it('refuses a sum metric without its property and a carried count', () => {
    expect(() => parseCatalog(metered([], [{ code: 'gb', name: 'GB', aggregation: 'sum' }]))).toThrow(/billableMetrics\.0\.property/);
    expect(() => parseCatalog(metered([], [{ code: 'calls', name: 'Calls', aggregation: 'count', reset: 'carried' }]))).toThrow(
      /billableMetrics\.0\.reset: only a max or latest metric/,
    );
  });
});
