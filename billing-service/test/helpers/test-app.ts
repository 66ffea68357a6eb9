import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp, type AppOptions } from '../../src/app.js';
import { createAccount } from '../../src/accounts/service.js';
import { loadCatalog, parseCatalog } from '../../src/catalog/load-catalog.js';
import type { Catalog } from '../../src/catalog/schema.js';
import { DEMO_CATALOG_PATH } from '../../src/config.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import { MemoryRateLimitStore, PostgresRateLimitStore, type RateLimitStore } from '../../src/http/rate-limit.js';
import { ERROR_CODES, type ErrorItem } from '../../src/refusals/error-codes.js';
import { createTestDatabase } from './test-database.js';

export const BASE_URL = 'https://billing.test';

/**
 * The demo catalogue, narrowed to one currency unless a test needs more. The demo store's own choices (card
 * customers collected automatically, Basic ↔ Pro switches) are left out: a test turns auto-collection on per
 * customer and allows the switches it exercises (test/catalog/catalog.test.ts checks the demo's choices).
 */
export function testCatalog(overrides: Record<string, unknown> = {}): Catalog {
  const demo = loadCatalog(DEMO_CATALOG_PATH);
  return parseCatalog({
    ...demo,
    // the tests were written for the demo's two seat plans; the METERED plan (issue 41) is tested with catalogues of its own
    plans: demo.plans.filter((p) => p.code !== 'METERED'),
    currencies: { default: 'USD', allowed: ['USD'] },
    defaults: { ...demo.defaults, autoCollect: false },
    planChanges: { allowed: [] },
    ...overrides,
  });
}

export interface TestAccount {
  accountId: number;
  apiKey: string;
  publicApiKey: string;
}

export interface TestApp {
  app: FastifyInstance;
  database: DatabaseHandle;
  catalog: Catalog;
  /** The account most tests use. */
  account: TestAccount;
  /** Another account, for isolation tests or a clean slate. */
  newAccount(): Promise<TestAccount>;
  /** An authenticated JSON request as the given account (default: `account`). */
  call(
    method: InjectOptions['method'],
    url: string,
    body?: unknown,
    options?: { as?: TestAccount; headers?: Record<string, string> },
  ): Promise<LightMyRequestResponse>;
  /** Another app on the same database (another catalogue, or a second instance). */
  buildAnotherApp(catalog?: Catalog, store?: RateLimitStore): Promise<FastifyInstance>;
  close(): Promise<void>;
}

export function basicAuth(key: string): string {
  return `Basic ${key}`;
}

/** Builds the real app over a fresh database (one per test file: creating one takes seconds). */
export async function startTestApp(
  options: { catalog?: Catalog; rateLimitStore?: RateLimitStore; app?: Partial<AppOptions> } = {},
): Promise<TestApp> {
  const catalog = options.catalog ?? testCatalog();
  const database = await createTestDatabase();
  const storeFor = () => (database.kind === 'postgres' ? new PostgresRateLimitStore(database.countersDb) : new MemoryRateLimitStore());
  const make = (c: Catalog, store: RateLimitStore) =>
    buildApp({ db: database.db, catalog: c, rateLimitStore: store, publicBaseUrl: BASE_URL, ...options.app });
  const app = await make(catalog, options.rateLimitStore ?? storeFor());
  const apps: FastifyInstance[] = [app];
  const newAccount = async (): Promise<TestAccount> => {
    const created = await createAccount(database.db, catalog);
    return { accountId: created.account.id, apiKey: created.apiKey, publicApiKey: created.publicApiKey };
  };
  const account = await newAccount();
  return {
    app,
    database,
    catalog,
    account,
    newAccount,
    call(method, url, body, callOptions = {}) {
      const as = callOptions.as ?? account;
      return app.inject({
        method,
        url,
        headers: {
          authorization: basicAuth(as.apiKey),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...callOptions.headers,
        },
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      });
    },
    async buildAnotherApp(c = catalog, store = storeFor()) {
      const another = await make(c, store);
      apps.push(another);
      return another;
    },
    async close() {
      for (const a of apps) await a.close();
      await database.close();
    },
  };
}

/** The spec's error body, checked for shape (every item with a code of ERROR_CODES: issue 36), with its entries returned. */
export function errorsOf(response: LightMyRequestResponse): ErrorItem[] {
  const body = response.json() as { ErrorId: unknown; HttpStatusCode: unknown; Errors: ErrorItem[] };
  if (typeof body.ErrorId !== 'number' || body.HttpStatusCode !== response.statusCode || !Array.isArray(body.Errors)) {
    throw new Error(`not the spec's error body: ${response.body}`);
  }
  const uncoded = body.Errors.filter((e) => !Object.hasOwn(ERROR_CODES, e.Code));
  if (uncoded.length > 0) throw new Error(`error items without a declared Code: ${JSON.stringify(uncoded)}`);
  return body.Errors;
}
