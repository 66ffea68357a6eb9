import { describe, expect, it } from 'vitest';
import { loadCatalog, parseCatalog } from '../../src/catalog/load-catalog.js';
import { planChangeAllowed } from '../../src/catalog/schema.js';
import { DEMO_CATALOG_PATH, loadConfig } from '../../src/config.js';

describe('catalogue file', () => {
  it('loads the demo catalogue with its defaults filled in', () => {
    const catalog = loadCatalog(DEMO_CATALOG_PATH);
    expect(catalog.currencies.default).toBe('USD');
    expect(catalog.plans.map((p) => p.code)).toEqual(['BASIC', 'PRO', 'METERED']);
    expect(catalog.plans[0]!.frequencies[0]!.prices[0]!.charges[0]).toEqual({ currency: 'USD', amount: '19.99' });
    expect(catalog.defaults.term).toBe('Net0');
    expect(catalog.rateLimits).toEqual({ perMinute: 1000, perDay: 180000, usageEvents: { perMinute: 6000, perDay: 8_640_000 } });
  });

  it("is the Inkwell demo store's: card customers collected automatically, Basic and Pro switchable both ways", () => {
    const catalog = loadCatalog(DEMO_CATALOG_PATH);
    expect(catalog.account.name).toBe('Inkwell');
    expect(catalog.emails.brandName ?? catalog.account.name).toBe('Inkwell');
    // The clock collects only from a default card: customers without one (checks, transfers) are left alone.
    expect(catalog.defaults.autoCollect).toBe(true);
    expect([planChangeAllowed(catalog, 'BASIC', 'PRO'), planChangeAllowed(catalog, 'PRO', 'BASIC')]).toEqual([true, true]);
  });

  it('has the METERED plan a newcomer can try: API calls, the first 1,000 a month free, then 0.002 USD each (issue 41)', () => {
    const catalog = loadCatalog(DEMO_CATALOG_PATH);
    const frequency = catalog.plans.find((p) => p.code === 'METERED')?.frequencies[0];
    expect(frequency?.interval).toBe('Monthly');
    expect(catalog.billableMetrics.find((m) => m.code === 'api_calls')?.aggregation).toBe('count');
    const [charge] = frequency?.usageCharges ?? [];
    expect([charge?.metric, charge?.model, charge?.prices.find((p) => p.currency === 'USD')?.tiers]).toEqual([
      'api_calls',
      'graduated',
      [
        { upTo: 1000, unitAmount: '0', flatAmount: '0' },
        { upTo: null, unitAmount: '0.002', flatAmount: '0' },
      ],
    ]);
  });

  it('keeps amounts as exact decimal strings, never floats', () => {
    const catalog = parseCatalog({ currencies: { default: 'USD', allowed: ['USD'] }, taxRates: [{ name: 'T', country: 'US', rate: 0.1 }] });
    expect(catalog.taxRates[0]!.rate).toBe('0.1');
  });

  it('lists every problem of a bad file with its path', () => {
    expect(() => parseCatalog({ currencies: { default: 'EUR', allowed: ['USD', 'XXQ'] }, defaults: { term: 'Net3' } })).toThrow(
      /currencies\.allowed\.1: not an ISO 4217 currency code.*defaults\.term/,
    );
    expect(() => parseCatalog({ currencies: { default: 'EUR', allowed: ['USD'] } })).toThrow(
      /currencies\.default: the default currency must be among the allowed ones/,
    );
  });

  it('takes the quantity bounds shoppers choose seats within, and refuses bounds that do not hold the default quantity', () => {
    const plan = (seat: Record<string, unknown>) => ({
      currencies: { default: 'USD', allowed: ['USD'] },
      plans: [
        {
          id: 1,
          code: 'TEAM',
          name: 'Team',
          products: [{ code: 'SEAT', name: 'Seat', ...seat }],
          frequencies: [{ id: 1, interval: 'Monthly', prices: [{ product: 'SEAT', charges: [{ currency: 'USD', amount: '8' }] }] }],
        },
      ],
    });
    expect(parseCatalog(plan({ quantity: 5, minQuantity: 2, maxQuantity: 50 })).plans[0]!.products[0]).toMatchObject({
      quantity: 5,
      minQuantity: 2,
      maxQuantity: 50,
    });
    expect(() => parseCatalog(plan({ quantity: 5, minQuantity: 6, maxQuantity: 50 }))).toThrow(
      /plans\.0\.products\.0\.quantity: must lie within minQuantity \(6\) and maxQuantity \(50\)/,
    );
    expect(() => parseCatalog(plan({ quantity: 1, minQuantity: 1 }))).toThrow(/products\.0\.maxQuantity: set maxQuantity too/);
    expect(() => parseCatalog(plan({ quantity: 1, maxQuantity: 2.5 }))).toThrow(/products\.0\.maxQuantity/);
  });

  it('plan changes: allows no switch between plans and downgrades at period end unless the file says', () => {
    const plans = ['BASIC', 'PRO', 'TEAM'].map((code, i) => ({
      id: i + 1,
      code,
      name: code,
      products: [{ code: 'SEAT', name: 'Seat' }],
      frequencies: [{ id: i + 1, interval: 'Monthly', prices: [{ product: 'SEAT', charges: [{ currency: 'USD', amount: '8' }] }] }],
    }));
    const catalog = (planChanges?: unknown) => parseCatalog({ currencies: { default: 'USD', allowed: ['USD'] }, plans, planChanges });
    const defaults = catalog();
    expect(defaults.planChanges).toEqual({ allowed: [], downgradeTiming: 'periodEnd' });
    expect(planChangeAllowed(defaults, 'BASIC', 'BASIC')).toBe(true);
    expect(planChangeAllowed(defaults, 'BASIC', 'PRO')).toBe(false);

    const configured = catalog({ allowed: [{ from: 'BASIC', to: 'PRO' }, { family: ['PRO', 'TEAM'] }], downgradeTiming: 'now' });
    expect(configured.planChanges.downgradeTiming).toBe('now');
    expect(planChangeAllowed(configured, 'BASIC', 'PRO')).toBe(true);
    expect(planChangeAllowed(configured, 'PRO', 'BASIC')).toBe(false);
    expect(planChangeAllowed(configured, 'PRO', 'TEAM')).toBe(true);
    expect(planChangeAllowed(configured, 'TEAM', 'PRO')).toBe(true);
    expect(planChangeAllowed(configured, 'BASIC', 'TEAM')).toBe(false);

    expect(() => catalog({ allowed: [{ from: 'BASIC', to: 'GOLD' }, { family: ['PRO', 'SILVER'] }] })).toThrow(
      /planChanges\.allowed\.0\.to: no plan GOLD.*planChanges\.allowed\.1\.family\.1: no plan SILVER/s,
    );
    expect(() => catalog({ downgradeTiming: 'never' })).toThrow(/planChanges\.downgradeTiming/);
    expect(() => catalog({ allowed: [{ from: 'BASIC', to: 'PRO', family: ['PRO'] }] })).toThrow(/planChanges\.allowed\.0/);
  });

  it('names the file it could not read', () => {
    expect(() => loadCatalog('/nonexistent/catalog.json')).toThrow(/\/nonexistent\/catalog\.json/);
  });
});

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ host: '127.0.0.1', port: 8080, requireTls: false, catalogPath: DEMO_CATALOG_PATH });
    expect(config.dataDir.endsWith('.data')).toBe(true);
    expect(config.databaseUrl).toBeUndefined();
  });

  it('requires TLS by default in production and lets RENEW_REQUIRE_TLS decide', () => {
    expect(loadConfig({ NODE_ENV: 'production' }).requireTls).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production', RENEW_REQUIRE_TLS: 'false' }).requireTls).toBe(false);
    expect(loadConfig({ RENEW_REQUIRE_TLS: 'true' }).requireTls).toBe(true);
  });

  it('refuses a certificate without its key', () => {
    expect(() => loadConfig({ RENEW_TLS_CERT: '/tmp/cert.pem' })).toThrow(/RENEW_TLS_CERT and RENEW_TLS_KEY go together/);
  });

  it('strips a trailing slash from the public base URL', () => {
    expect(loadConfig({ RENEW_PUBLIC_BASE_URL: 'https://api.example.com/' }).publicBaseUrl).toBe('https://api.example.com');
  });
});
