/**
 * One tree of `npm run bench:compare` (compare-trees.ts): its app on its own database, and the operation
 * the scenario repeats. Every module is imported by path from the tree, so two versions of the code run
 * side by side; the modules named here must exist in both (the gateway moved between
 * `src/payments/gateway` and `src/gateway`: both are tried).
 */
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type CompareScenario = 'get' | 'post' | 'payment' | 'activation' | 'bulk' | 'capture';
export type Tree = { name: 'before' | 'after'; root: string };
export interface TreeRun {
  tree: Tree;
  operation: () => Promise<unknown>;
  close(): Promise<void>;
}
interface SetupOptions {
  databaseUrl: string | undefined;
  /** Operations the run will make, warm-up included (the activation scenario makes one Draft customer for each). */
  operations: number;
  bulkJob: number;
  /** Statements sent per tree, counted here. */
  statements: Record<string, number>;
}

// two versions of the code, typed by neither
type Any = any;
type Call = (method: string, url: string, body?: unknown) => Promise<Any>;
interface TreeApp {
  tree: Tree;
  call: Call;
  createCustomer: () => Promise<number>;
  customers: (n: number) => Promise<number[]>;
  load: (file: string) => Promise<Any>;
  fixtures: Any;
  account: Any;
  database: Any;
  catalog: Any;
  gateway: Any;
}

const load = (t: Tree, file: string): Promise<Any> => import(path.join(t.root, file));

/** Counts the statements a tree sends: its own copy of pg. */
async function countStatements(t: Tree, statements: Record<string, number>) {
  const pg = (await load(t, '../node_modules/pg/lib/index.js')).default;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    statements[t.name] = (statements[t.name] ?? 0) + 1;
    return query.apply(this, args);
  };
}

async function startTreeApp(t: Tree, options: SetupOptions): Promise<TreeApp & { app: Any }> {
  await countStatements(t, options.statements);
  const { buildApp } = await load(t, 'src/app.ts');
  const { loadCatalog } = await load(t, 'src/catalog/load-catalog.ts');
  const { DEMO_CATALOG_PATH } = await load(t, 'src/config.ts');
  const { openDatabase } = await load(t, 'src/db/database.ts');
  const { MemoryRateLimitStore } = await load(t, 'src/http/rate-limit.ts');
  const gatewayFile = ['src/gateway/sandbox-gateway.ts', 'src/payments/gateway/sandbox-gateway.ts'].find((f) =>
    existsSync(path.join(t.root, f)),
  );
  if (!gatewayFile) throw new Error(`${t.root}: no sandbox gateway`);
  const { SandboxGateway } = await load(t, gatewayFile);
  const fixtures = await load(t, 'bench/fixtures.ts');
  const catalog = loadCatalog(DEMO_CATALOG_PATH);
  const database = await openDatabase(
    options.databaseUrl
      ? { databaseUrl: `${options.databaseUrl}_${t.name}` }
      : { dataDir: mkdtempSync(path.join(os.tmpdir(), `renew-compare-${t.name}-`)) },
  );
  const gateway = new SandboxGateway(database.db);
  const app = await buildApp({
    gateway,
    db: database.db,
    catalog,
    rateLimitStore: new MemoryRateLimitStore(),
    publicBaseUrl: 'http://127.0.0.1',
    logger: false,
  });
  const account = await fixtures.createBenchAccount(database.db, catalog);
  const headers = { authorization: account.authorization, 'content-type': 'application/json' };
  const call: Call = async (method, url, body) => {
    const res = await app.inject({ method, url, headers, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });
    if (res.statusCode !== 200) throw new Error(`${t.name} ${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return JSON.parse(res.body);
  };
  const createCustomer = async () => (await call('POST', '/v1/customers', fixtures.NEW_CUSTOMER_BODY)).id as number;
  const customers = async (n: number) => {
    const ids: number[] = [];
    for (let i = 0; i < n; i++) ids.push(await createCustomer());
    return ids;
  };
  return { tree: t, app, call, createCustomer, customers, load: (file) => load(t, file), fixtures, account, database, catalog, gateway };
}

/** The operation each scenario repeats, and anything it must close. */
type ScenarioBuilder = (
  tree: TreeApp,
  options: SetupOptions,
) => Promise<{ operation: () => Promise<unknown>; close?: () => Promise<void> }>;

const SCENARIOS: Record<CompareScenario, ScenarioBuilder> = {
  post: async (tree) => ({ operation: tree.createCustomer }),
  get: async (tree) => {
    const id = await tree.createCustomer();
    return { operation: () => tree.call('GET', `/v1/customers/${id}`) };
  },
  payment: async (tree) => {
    const id = await tree.createCustomer();
    return { operation: () => tree.call('POST', '/v1/payments', { customerId: id, amount: '1.00', paymentMethod: 'Cash' }) };
  },
  activation: async (tree, options) => {
    // as the full bench: a fresh Draft customer with Draft subscriptions to BASIC monthly, BASIC yearly and PRO monthly
    const drafts: number[] = [];
    for (let i = 0; i < options.operations; i++) {
      const customerId = await tree.createCustomer();
      for (const planFrequencyId of [11, 12, 21]) await tree.call('POST', '/v1/subscriptions', { customerId, planFrequencyId });
      drafts.push(customerId);
    }
    let next = 0;
    return { operation: () => tree.call('POST', '/v1/customeractivation', JSON.parse(tree.fixtures.activationBody(drafts[next++]))) };
  },
  bulk: async (tree, options) => {
    const ids = await tree.customers(200);
    let job = 0;
    const operation = async () => {
      job += 1;
      const data = Array.from({ length: options.bulkJob }, (_, i) => ({
        customerId: ids[i % ids.length],
        amount: '1.00',
        paymentMethod: 'Cash',
        reference: `compare-${job}-${i}`,
      }));
      const created = await tree.call('POST', '/v1/bulkPaymentSubmit', { accountUploadType: 'bulkPayment', data });
      await tree.call('POST', '/v1/BulkApi/Process', { id: created.id });
      for (let current = created; current.status !== 'Completed'; current = await tree.call('GET', `/v1/BulkApi/${created.id}`))
        await new Promise((resolve) => setTimeout(resolve, 20));
    };
    return { operation };
  },
  capture: captureScenario,
};

/** The spec's own card capture (POST /api/paymentsv2 on the capture host), without a capture token, as the full bench. */
async function captureScenario(tree: TreeApp) {
  const { startCaptureService } = await tree.load('../capture-service/src/start-capture.ts');
  const { loadCaptureConfig } = await tree.load('../capture-service/src/config.ts');
  const env = {
    RENEW_HOST: '127.0.0.1',
    RENEW_CAPTURE_PORT: '0',
    RENEW_LOG_LEVEL: 'silent',
    RENEW_CAPTURE_IP_PER_MINUTE: String(tree.fixtures.BENCH_RATE_LIMIT),
    RENEW_CAPTURE_IP_PER_DAY: String(tree.fixtures.BENCH_RATE_LIMIT),
    RENEW_CAPTCHA: 'dev',
  };
  const captureCatalog = { ...tree.catalog, capture: { ...tree.catalog.capture, tokenlessCapture: 'draftOnly' } };
  const config = loadCaptureConfig(env, captureCatalog);
  const capture = (
    await startCaptureService({
      database: tree.database,
      catalog: captureCatalog,
      config,
      gateway: tree.gateway,
      publicBaseUrl: 'http://127.0.0.1',
      logger: false,
    })
  ).app;
  const ids = await tree.customers(200);
  let sent = 0;
  const operation = async () => {
    sent += 1;
    const payload = tree.fixtures.captureBody(tree.account.publicApiKey, ids[sent % ids.length], `compare-${tree.tree.name}-${sent}`);
    const res = await capture.inject({ method: 'POST', url: '/api/paymentsv2', headers: { 'content-type': 'application/json' }, payload });
    if (res.statusCode !== 200) throw new Error(`${tree.tree.name} capture: ${res.statusCode} ${res.body.slice(0, 300)}`);
  };
  return { operation, close: () => capture.close() };
}

export async function setupTree(t: Tree, scenario: CompareScenario, options: SetupOptions): Promise<TreeRun> {
  const started = await startTreeApp(t, options);
  const built = await SCENARIOS[scenario](started, options);
  return {
    tree: t,
    operation: built.operation,
    async close() {
      await built.close?.();
      await started.app.close();
      await started.database.close();
    },
  };
}
