/**
 * `npm run bench:compare`: one scenario on two checkouts of billing-service in ONE process, in alternating
 * short rounds, so that whatever else the machine runs weighs on both alike. Prints the minimum and the
 * median CPU per operation of each tree (the process's user + system time: app, Kysely, pg or PGlite) and
 * the statements each operation sends on PostgreSQL (calls of pg's Client.query, counted per tree).
 *
 * A full `npm run bench` of each tree, one after the other, compares two separate runs; on a machine that
 * is not quiet the load differs between them by more than the difference looked for (issue 25: the same
 * pair of trees came out 40% apart in either direction). Interleaving is the cure.
 *
 *   BENCH_COMPARE_BEFORE  path of the other checkout's billing-service folder (with its node_modules), required
 *   BENCH_COMPARE_SCENARIO  get | post | payment | bulk | capture (default post)
 *   BENCH_COMPARE_DATABASE_URL  a PostgreSQL server URL prefix: databases <prefix>_before and <prefix>_after
 *                               must exist (empty); without it, each tree gets a PGlite directory of its own
 *   BENCH_COMPARE_ROUNDS (12), BENCH_COMPARE_OPS (operations per round; 100, bulk: jobs of 400 payments)
 *
 * Both trees are imported by path, so only the modules named below must exist in both (the gateway moved
 * between `src/payments/gateway` and `src/gateway`: both are tried).
 */
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

type Tree = { name: 'before' | 'after'; root: string };
type Scenario = 'get' | 'post' | 'payment' | 'bulk' | 'capture';

const before = process.env.BENCH_COMPARE_BEFORE;
if (!before) throw new Error('BENCH_COMPARE_BEFORE: the path of the other billing-service folder');
const trees: Tree[] = [
  { name: 'before', root: path.resolve(before) },
  { name: 'after', root: path.resolve(import.meta.dirname, '..') },
];
const scenario = (process.env.BENCH_COMPARE_SCENARIO ?? 'post') as Scenario;
const ROUNDS = Number(process.env.BENCH_COMPARE_ROUNDS ?? 12);
const OPS = Number(process.env.BENCH_COMPARE_OPS ?? (scenario === 'bulk' ? 1 : 100));
const BULK_JOB = 400;
const statements: Record<string, number> = {};

// two versions of the code, typed by neither
type Any = any;
const load = (t: Tree, file: string): Promise<Any> => import(path.join(t.root, file));

async function setup(t: Tree) {
  // count the statements each tree sends: its own copy of pg
  const pg = (await load(t, '../node_modules/pg/lib/index.js')).default;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    statements[t.name] = (statements[t.name] ?? 0) + 1;
    return query.apply(this, args);
  };
  const { buildApp } = await load(t, 'src/app.ts');
  const { loadCatalog } = await load(t, 'src/catalog/load-catalog.ts');
  const { DEMO_CATALOG_PATH } = await load(t, 'src/config.ts');
  const { openDatabase } = await load(t, 'src/db/database.ts');
  const { MemoryRateLimitStore } = await load(t, 'src/http/rate-limit.ts');
  const gatewayFile = ['src/gateway/sandbox-gateway.ts', 'src/payments/gateway/sandbox-gateway.ts'].find((f) =>
    existsSync(path.join(t.root, f)),
  );
  const { SandboxGateway } = await load(t, gatewayFile!);
  const fixtures = await load(t, 'bench/fixtures.ts');
  const catalog = loadCatalog(DEMO_CATALOG_PATH);
  const url = process.env.BENCH_COMPARE_DATABASE_URL;
  const database = await openDatabase(
    url ? { databaseUrl: `${url}_${t.name}` } : { dataDir: mkdtempSync(path.join(os.tmpdir(), `renew-compare-${t.name}-`)) },
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
  const call = async (method: string, url: string, body?: unknown) => {
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
  let capture: Any;
  let operation: () => Promise<unknown> = createCustomer;
  if (scenario === 'get') {
    const id = await createCustomer();
    operation = () => call('GET', `/v1/customers/${id}`);
  } else if (scenario === 'payment') {
    const id = await createCustomer();
    operation = () => call('POST', '/v1/payments', { customerId: id, amount: '1.00', paymentMethod: 'Cash' });
  } else if (scenario === 'bulk') {
    const ids = await customers(200);
    let job = 0;
    operation = async () => {
      job += 1;
      const data = Array.from({ length: BULK_JOB }, (_, i) => ({
        customerId: ids[i % ids.length],
        amount: '1.00',
        paymentMethod: 'Cash',
        reference: `compare-${job}-${i}`,
      }));
      const created = await call('POST', '/v1/bulkPaymentSubmit', { accountUploadType: 'bulkPayment', data });
      await call('POST', '/v1/BulkApi/Process', { id: created.id });
      for (let current = created; current.status !== 'Completed'; current = await call('GET', `/v1/BulkApi/${created.id}`))
        await new Promise((resolve) => setTimeout(resolve, 20));
    };
  } else if (scenario === 'capture') {
    const { startCaptureService } = await load(t, '../capture-service/src/start-capture.ts');
    const { loadCaptureConfig } = await load(t, '../capture-service/src/config.ts');
    const env = {
      RENEW_HOST: '127.0.0.1',
      RENEW_CAPTURE_PORT: '0',
      RENEW_LOG_LEVEL: 'silent',
      RENEW_CAPTURE_IP_PER_MINUTE: String(fixtures.BENCH_RATE_LIMIT),
      RENEW_CAPTURE_IP_PER_DAY: String(fixtures.BENCH_RATE_LIMIT),
      RENEW_CAPTCHA: 'dev',
    };
    // as the full bench: the spec's own capture, without a capture token
    const captureCatalog = { ...catalog, capture: { ...catalog.capture, tokenlessCapture: 'draftOnly' } };
    const config = loadCaptureConfig(env, captureCatalog);
    capture = (
      await startCaptureService({ database, catalog: captureCatalog, config, gateway, publicBaseUrl: 'http://127.0.0.1', logger: false })
    ).app;
    const ids = await customers(200);
    let sent = 0;
    operation = async () => {
      sent += 1;
      const payload = fixtures.captureBody(account.publicApiKey, ids[sent % ids.length], `compare-${t.name}-${sent}`);
      const res = await capture.inject({
        method: 'POST',
        url: '/api/paymentsv2',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      if (res.statusCode !== 200) throw new Error(`${t.name} capture: ${res.statusCode} ${res.body.slice(0, 300)}`);
    };
  }
  return {
    tree: t,
    operation,
    async close() {
      await capture?.close();
      await app.close();
      await database.close();
    },
  };
}

const runs = [];
for (const tree of trees) runs.push(await setup(tree));
for (const run of runs) for (let i = 0; i < (scenario === 'bulk' ? 1 : 50); i++) await run.operation(); // warm-up
const cpu: Record<string, number[]> = { before: [], after: [] };
const sent: Record<string, number[]> = { before: [], after: [] };
const perOperation = scenario === 'bulk' ? OPS * BULK_JOB : OPS;
for (let round = 0; round < ROUNDS; round++) {
  for (const run of round % 2 === 0 ? runs : [...runs].reverse()) {
    const name = run.tree.name;
    const statementsBefore = statements[name] ?? 0;
    const start = process.cpuUsage();
    for (let i = 0; i < OPS; i++) await run.operation();
    const used = process.cpuUsage(start);
    cpu[name]!.push((used.user + used.system) / perOperation);
    sent[name]!.push(((statements[name] ?? 0) - statementsBefore) / perOperation);
  }
}
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const unit = scenario === 'bulk' ? 'payment' : 'operation';
console.log(`${scenario}: ${ROUNDS} alternating rounds of ${OPS} ${scenario === 'bulk' ? `jobs of ${BULK_JOB}` : 'operations'} per tree`);
for (const name of ['before', 'after'] as const) {
  const c = sorted(cpu[name]!);
  const s = sorted(sent[name]!);
  console.log(
    `  ${name.padEnd(6)} CPU per ${unit}: min ${c[0]!.toFixed(0)} µs, median ${c[Math.floor(c.length / 2)]!.toFixed(0)} µs; statements per ${unit}: median ${s[Math.floor(s.length / 2)]!.toFixed(2)}`,
  );
}
for (const run of runs) await run.close();
process.exit(0);
