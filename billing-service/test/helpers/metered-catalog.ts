/**
 * A metered plan for tests of the usage views (issue 41), added to a catalogue as its changes (`testCatalog(changes)`,
 * or the e2e products' catalogue JSON): plan METERED_VIEWS, monthly, 10 a month, charging two metrics of its own
 * (codes unlike the demo catalogue's, so both can stand in one catalogue):
 * - `views_calls` (count): graduated, the first 3 calls free, then 0.25 a call;
 * - `views_data` (sum of `gb`): 0.5 per gigabyte, so 3.75 GB comes to 1.875, rounded once to 1.88.
 * Priced in every currency given (the catalogue's allowed ones), at the same amounts.
 */
export const METERED_VIEWS_FREQUENCY = 9811;
export const METERED_CALLS = { code: 'views_calls', name: 'API calls' } as const;
export const METERED_DATA = { code: 'views_data', name: 'Data transfer' } as const;

interface CatalogParts {
  plans: unknown[];
  billableMetrics?: unknown[];
}

export function meteredCatalogChanges(base: CatalogParts, currencies: readonly string[] = ['USD']) {
  const each = <T>(price: (currency: string) => T) => currencies.map(price);
  return {
    billableMetrics: [
      ...(base.billableMetrics ?? []),
      { ...METERED_CALLS, aggregation: 'count' },
      { ...METERED_DATA, aggregation: 'sum', property: 'gb' },
    ],
    plans: [
      ...base.plans,
      {
        id: 981,
        code: 'METERED_VIEWS',
        name: 'Metered',
        products: [{ code: 'BASE', name: 'Base' }],
        frequencies: [
          {
            id: METERED_VIEWS_FREQUENCY,
            interval: 'Monthly',
            prices: [{ product: 'BASE', charges: each((currency) => ({ currency, amount: '10' })) }],
            usageCharges: [
              {
                metric: METERED_CALLS.code,
                model: 'graduated',
                prices: each((currency) => ({
                  currency,
                  tiers: [
                    { upTo: 3, unitAmount: '0' },
                    { upTo: null, unitAmount: '0.25' },
                  ],
                })),
              },
              { metric: METERED_DATA.code, model: 'perUnit', prices: each((currency) => ({ currency, unitAmount: '0.5' })) },
            ],
          },
        ],
      },
    ],
  };
}
