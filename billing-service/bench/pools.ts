import { InstanceLiveness } from '../src/db/instance-liveness.js';
import { hashApiKey } from '../src/accounts/api-keys.js';
import type { Catalog } from '../src/catalog/schema.js';
import { CreateCustomerBody } from '../src/customers/schemas.js';
import { createCustomer } from '../src/customers/service.js';
import type { Db } from '../src/db/database.js';
import type { Caller } from '../src/http/auth.js';
import type { AppContext } from '../src/app-context.js';
import { UriBuilder } from '../src/uri-builder.js';
import { SandboxGateway } from '../src/gateway/sandbox-gateway.js';
import { syncCatalog } from '../src/plans/catalog-sync.js';
import { realTimeClock } from '../src/clock/account-clock.js';
import { CreateSubscriptionBody } from '../src/subscriptions/schemas.js';
import { createSubscription } from '../src/subscriptions/service.js';
import { sql } from 'kysely';
import { BENCH_RATE_LIMIT, NEW_CUSTOMER_BODY, createBenchAccount, type BenchAccount } from './fixtures.js';
import { SETTINGS, log, orFailure } from './harness.js';
import { integer, seconds } from './report.js';

/**
 * Pools of customers made before a server starts, in the benchmark process,
 * with the service functions the routes call (createCustomer,
 * createSubscription), so the rows are exactly what POST /v1/customers and
 * POST /v1/subscriptions would write; only HTTP and the rate limit are skipped.
 */

/** The three Draft subscriptions of every lifecycle customer: BASIC monthly, BASIC yearly, PRO monthly. */
export const DRAFT_FREQUENCIES = [11, 12, 21] as const;

export interface PoolMaker {
  /** `count` Draft customers (the POST body of the customer figures), each with one Draft subscription per frequency. */
  draftCustomers(account: BenchAccount, count: number, frequencies?: readonly number[]): Promise<number[]>;
}

/** Makes pools on `db` with `concurrency` creations in flight (PostgreSQL: parallel transactions; PGlite: one connection anyway). */
export async function poolMaker(db: Db, catalog: Catalog, concurrency: number): Promise<PoolMaker> {
  // the plan frequencies the subscriptions refer to are copied from the catalogue when an app is built; do it here too
  await syncCatalog(db, catalog);
  const ctx: AppContext = {
    db,
    instance: new InstanceLiveness(db, 'bench'),
    catalog,
    clock: realTimeClock,
    uris: new UriBuilder('http://127.0.0.1'),
    portal: { baseUrl: 'http://127.0.0.1' },
    payments: { gateway: new SandboxGateway(db), gatewayTimeoutMs: 15_000 },
  };
  const customerInput = CreateCustomerBody.parse(NEW_CUSTOMER_BODY);
  const callerOf = (account: BenchAccount): Caller => ({
    accountId: account.accountId,
    keyKind: 'private',
    auditSource: 'bench',
    rateLimits: { perMinute: BENCH_RATE_LIMIT, perDay: BENCH_RATE_LIMIT },
    keyHash: hashApiKey(account.apiKey),
  });
  return {
    async draftCustomers(account, count, frequencies = DRAFT_FREQUENCIES) {
      const caller = callerOf(account);
      const ids: number[] = [];
      let next = 0;
      const worker = async () => {
        while (next < count) {
          next += 1;
          const customer = await createCustomer(ctx, caller, customerInput);
          for (const planFrequencyId of frequencies) {
            await createSubscription(ctx, caller, CreateSubscriptionBody.parse({ customerId: customer.id, planFrequencyId }));
          }
          ids.push(customer.id);
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
      return ids.sort((a, b) => a - b);
    },
  };
}

/** The customers made for the lifecycle and capture figures, in the benchmark process before the server starts. */
export interface Pools {
  /** Preview and activation customers (a third account, so the lists keep their 100,000). */
  lifecycleAccount: BenchAccount;
  captureAccount: BenchAccount;
  preview: number[];
  /** One for the check before the run, then one per request. */
  activation: number[];
  capture: number[];
  ms: number;
}

export async function makePools(db: Db, catalog: Catalog, label: string, concurrency: number): Promise<Pools> {
  const started = performance.now();
  const lifecycleAccount = await createBenchAccount(db, catalog);
  const captureAccount = await createBenchAccount(db, catalog);
  const activationCount = 1 + SETTINGS.activationRequests.warmup + SETTINGS.activationRequests.measured;
  log(
    `${label}: making ${integer(SETTINGS.previewCustomers)} + ${integer(activationCount)} Draft customers with Draft subscriptions to frequencies ` +
      `${DRAFT_FREQUENCIES.join(', ')} (previews, activations), and ${integer(SETTINGS.captureCustomers)} customers for the card captures`,
  );
  const maker = await poolMaker(db, catalog, concurrency);
  const preview = await maker.draftCustomers(lifecycleAccount, SETTINGS.previewCustomers);
  const activation = await maker.draftCustomers(lifecycleAccount, activationCount);
  const capture = await maker.draftCustomers(captureAccount, SETTINGS.captureCustomers, []);
  await sql`analyze`.execute(db);
  const ms = performance.now() - started;
  log(`${label}: customers made and analyzed in ${seconds(ms)}`);
  return { lifecycleAccount, captureAccount, preview, activation, capture, ms };
}

export function poolsOrFailure(db: string, make: () => Promise<Pools>): Promise<Pools | string> {
  return orFailure(`${db}: making the customers for the preview/activation/capture figures`, `${db}: making the customers`, make);
}
