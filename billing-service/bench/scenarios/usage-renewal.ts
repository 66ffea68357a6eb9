/**
 * `npm run bench:renewal` (issue 41): the renewal of 1,000 metered subscriptions by the billing clock, beside its floor
 * measured in the same run: the renewal of 1,000 subscriptions of a plan with the same base price and no usage charge.
 * - Setup, per plan: an account on a test clock, 1,000 customers each with one subscription, activated; for the
 *   metered plan 50 usage events per customer (two metrics: a count, graduated; a sum, per unit) through
 *   POST /v1/usageEvents; the clock moved to an hour before the period ends.
 * - Measured: one POST /v1/testclock/advance to 61 minutes after the period end (past the metered plan's grace
 *   window), one tick of the account's billing clock, which renews all 1,000 (invoices with their usage lines). Checked: 2,000 invoices, and for 50 customers the
 *   usage lines' quantities equal the events sent.
 * Budget: a tick of the billing clock every RENEW_BILLING_CLOCK_MS (60 s by default): the 1,000 renewals must fit in it.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEMO_CATALOG_PATH } from '../../src/config.js';
import { loadCatalog } from '../../src/catalog/load-catalog.js';
import { openDatabase } from '../../src/db/database.js';
import { callApi } from '../api-call.js';
import { createBenchAccount } from '../fixtures.js';
import { createFreshDatabase, type PostgresServer } from '../postgres.js';
import { table } from '../report.js';
import { startServer } from '../server-process.js';

const METERED = 9301;
const FLAT = 9302;
const CUSTOMERS = 1000;
const EVENTS_PER_CUSTOMER = 50;
const DAY = 86_400_000;
const CLOCK_START = new Date(Math.ceil(Date.now() / DAY) * DAY + 10 * 3_600_000);

function frequency(id: number, usageCharges: unknown[]) {
  return { id, interval: 'Monthly', prices: [{ product: 'BASE', charges: [{ currency: 'USD', amount: '5' }] }], usageCharges };
}

function benchCatalogFile(): string {
  const demo = JSON.parse(readFileSync(DEMO_CATALOG_PATH, 'utf8'));
  const tiers = [
    { upTo: 20, unitAmount: '0' },
    { upTo: null, unitAmount: '0.002' },
  ];
  const catalog = {
    ...demo,
    // customers pay nothing in this bench: no suspension may stop a renewal
    defaults: { ...demo.defaults, customerGracePeriod: 365, autoCollect: false },
    billableMetrics: [
      ...demo.billableMetrics,
      { code: 'calls', name: 'Calls', aggregation: 'count' },
      { code: 'gigabytes', name: 'Data', aggregation: 'sum', property: 'gb' },
    ],
    plans: [
      ...demo.plans,
      {
        id: 93,
        code: 'RENEWAL_BENCH',
        name: 'Renewal (bench)',
        products: [{ code: 'BASE', name: 'Base' }],
        frequencies: [
          frequency(METERED, [
            { metric: 'calls', model: 'graduated', prices: [{ currency: 'USD', tiers }] },
            { metric: 'gigabytes', model: 'perUnit', prices: [{ currency: 'USD', unitAmount: '0.5' }] },
          ]),
          { ...frequency(FLAT, []), interval: 'Monthly', numberOfIntervals: 1 },
        ],
      },
    ],
  };
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'renew-renewal-bench-')), 'catalog.json');
  writeFileSync(file, JSON.stringify(catalog));
  return file;
}

type Caller = (method: string, pathname: string, body?: unknown) => Promise<any>;

function caller(url: string, authorization: string): Caller {
  return (method, pathname, body) => callApi(url, authorization, method, pathname, body);
}

const advance = (call: Caller, to: Date) => call('POST', '/v1/testclock/advance', { to: to.toISOString() });

/** CUSTOMERS customers of the account, each with one subscription of `planFrequencyId`, activated; 4 at a time. */
async function customersOn(call: Caller, planFrequencyId: number): Promise<number[]> {
  const ids: number[] = [];
  const one = async (i: number) => {
    const customer = await call('POST', '/v1/customers', { firstName: 'Renew', lastName: `No${i}`, currency: 'USD' });
    await call('POST', '/v1/subscriptions', { customerId: customer.id, planFrequencyId });
    await call('POST', '/v1/customeractivation', {
      customerId: customer.id,
      activateAllSubscriptions: true,
      activateAllDraftPurchases: false,
      temporarilyDisableAutoPost: false,
    });
    ids.push(customer.id);
  };
  for (let i = 0; i < CUSTOMERS; i += 4) await Promise.all([0, 1, 2, 3].filter((k) => i + k < CUSTOMERS).map((k) => one(i + k)));
  return ids.sort((a, b) => a - b);
}

/** EVENTS_PER_CUSTOMER events per customer over the period's first 10 days; answers per customer: calls, gigabytes. */
async function sendUsage(call: Caller, customers: number[]): Promise<Map<number, { calls: number; gb: number }>> {
  const sent = new Map<number, { calls: number; gb: number }>();
  const events = customers.flatMap((customerId, c) =>
    Array.from({ length: EVENTS_PER_CUSTOMER }, (_, i) => {
      const timestamp = new Date(CLOCK_START.getTime() + ((c * EVENTS_PER_CUSTOMER + i) % (10 * 24 * 60)) * 60_000).toISOString();
      const totals = sent.get(customerId) ?? { calls: 0, gb: 0 };
      sent.set(customerId, totals);
      if (i % 5 === 0) {
        totals.gb += 2;
        return { transactionId: `${customerId}-${i}`, customerId, metricCode: 'gigabytes', timestamp, properties: { gb: 2 } };
      }
      totals.calls += 1;
      return { transactionId: `${customerId}-${i}`, customerId, metricCode: 'calls', timestamp };
    }),
  );
  for (let i = 0; i < events.length; i += 1000) {
    const answer = await call('POST', '/v1/usageEvents', events.slice(i, i + 1000));
    if (answer.refused.length > 0) throw new Error(`events refused: ${JSON.stringify(answer.refused[0])}`);
  }
  return sent;
}

interface Measured {
  seconds: number;
  renewed: number;
  invoices: number;
  checked: number;
}

/** One account's renewals: set up, then the timed advance past the grace window, then the checks. */
async function renewals(url: string, authorization: string, planFrequencyId: number): Promise<Measured> {
  const call = caller(url, authorization);
  await advance(call, CLOCK_START);
  const customers = await customersOn(call, planFrequencyId);
  await advance(call, new Date(CLOCK_START.getTime() + 10 * DAY));
  const sent = planFrequencyId === METERED ? await sendUsage(call, customers) : new Map();
  const first = customers[0] ?? 0;
  const invoices = await call('GET', `/v1/customers/${first}/invoices`);
  const periodEnd = Date.parse(`${invoices[0]?.charges[0]?.endServiceDate}T00:00:00Z`);
  // an hour before the period ends: the timed advance is then one tick, in which both plans renew
  await advance(call, new Date(periodEnd - 60 * 60_000));
  const started = performance.now();
  const tick = await advance(call, new Date(periodEnd + 61 * 60_000));
  const seconds = (performance.now() - started) / 1000;
  let count = 0;
  let checked = 0;
  for (const [i, customerId] of customers.entries()) {
    const list = await call('GET', `/v1/customers/${customerId}/invoices?pageSize=100`);
    count += list.length;
    if (planFrequencyId !== METERED || i % (CUSTOMERS / 50) !== 0) continue;
    const lines = list.flatMap((invoice: any) => invoice.charges).filter((c: any) => c.chargeType === 'Usage');
    const expected = sent.get(customerId);
    const quantity = (metric: string) => lines.find((c: any) => c.productCode === metric)?.quantity;
    if (quantity('calls') !== expected?.calls || quantity('gigabytes') !== expected?.gb)
      throw new Error(
        `customer ${customerId}: usage lines ${JSON.stringify(lines)} differ from the events sent ${JSON.stringify(expected)}`,
      );
    checked += 1;
  }
  return { seconds, renewed: tick.customersRenewed, invoices: count, checked };
}

/** The renewal figures on `server` (a fresh database of its own, dropped after): the report as text. */
export async function benchUsageRenewal(server: PostgresServer): Promise<string> {
  const database = await createFreshDatabase(server.url);
  const catalogFile = benchCatalogFile();
  const seed = await openDatabase({ databaseUrl: database.url, poolSize: 2 });
  const metered = await createBenchAccount(seed.db, loadCatalog(catalogFile));
  const flat = await createBenchAccount(seed.db, loadCatalog(catalogFile));
  const app = await startServer({
    kind: 'app',
    database: { databaseUrl: database.url },
    rateLimitStore: 'postgres',
    catalogFile,
    testClocks: true,
  });
  try {
    const floor = await renewals(app.url, flat.authorization, FLAT);
    const measured = await renewals(app.url, metered.authorization, METERED);
    return report(server.description, measured, floor);
  } finally {
    await app.stop();
    await seed.close();
    await database.drop();
  }
}

function report(where: string, measured: Measured, floor: Measured): string {
  const budget = 60;
  const perSecond = (m: Measured) => `${(m.renewed / m.seconds).toFixed(0)} renewals/s`;
  return [
    `Renewal of metered subscriptions by the billing clock (${where})`,
    table(
      ['Figure', 'Measured', 'Baseline (same run)', 'Target', 'Met'],
      [
        [
          `renewal of ${CUSTOMERS} metered subscriptions (2 usage lines each), one clock tick`,
          `${measured.seconds.toFixed(2)} s, ${perSecond(measured)}`,
          `${floor.seconds.toFixed(2)} s, ${perSecond(floor)} (no usage charge)`,
          `≤ ${budget} s (a tick of RENEW_BILLING_CLOCK_MS)`,
          measured.seconds <= budget ? 'yes' : 'NO',
        ],
        ['  cost of usage (metered ÷ floor)', `${(measured.seconds / floor.seconds).toFixed(2)} ×`, '', '', ''],
        [
          '  renewed / invoices / usage lines checked',
          `${measured.renewed} / ${measured.invoices} / ${measured.checked}`,
          `${floor.renewed} / ${floor.invoices}`,
          `${CUSTOMERS} / ${2 * CUSTOMERS} / 50`,
          measured.renewed === CUSTOMERS && measured.invoices === 2 * CUSTOMERS && measured.checked === 50 ? 'yes' : 'NO',
        ],
      ],
      new Set([1]),
    ),
  ].join('\n');
}
