/**
 * Benchmark of the billing service (npm run bench). One run measures every
 * figure next to a baseline taken in the same run, prints a table, and exits 0
 * even when a target is missed. See bench/README.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'kysely';
import { loadCatalog } from '../src/catalog/load-catalog.js';
import type { Catalog } from '../src/catalog/schema.js';
import { DEMO_CATALOG_PATH } from '../src/config.js';
import { customerListFields } from '../src/customers/list-fields.js';
import { findCustomerRecord, selectCustomerRecords } from '../src/customers/repository.js';
import { openDatabase, type Db } from '../src/db/database.js';
import { listInputFromUrl, parseListRequest, runList } from '../src/http/lists/index.js';
import {
  BENCH_RATE_LIMIT,
  CAPTURE_COLLECTION_AMOUNT,
  LIST_QUERIES,
  NEW_CUSTOMER_BODY,
  SEEDED_CUSTOMERS,
  activationBody,
  captureBody,
  createBenchAccount,
  customerIdRange,
  randomIdIn,
  seedCustomers,
  type BenchAccount,
} from './fixtures.js';
import {
  httpRequest,
  measureLoop,
  measureSequentialHttp,
  measureThroughput,
  type LoopResult,
  type SequentialHttpResult,
  type ThroughputResult,
  type ThroughputSpec,
} from './load.js';
import { loadAverage, machineDescription, packageVersion } from './machine.js';
import { createFreshDatabase, providePostgres, sampleBackendStates, type PostgresServer, type WaitSample } from './postgres.js';
import { cpuText, integer, metText, ms, percent, perRequest, rate, seconds, statusText, summaryTable, table, wholeMs, type SummaryRow } from './report.js';
import { DRAFT_FREQUENCIES, poolMaker } from './pools.js';
import { startServer, type RunningServer, type ServerSpec } from './server-process.js';
import { startSiteverifyStandIn, type SiteverifyStandIn } from './siteverify.js';
import type { CpuShares } from './cpu.js';

function envNumber(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

const THROUGHPUT_SECONDS = envNumber('BENCH_SECONDS', 10);
const SETTINGS = {
  connections: envNumber('BENCH_CONNECTIONS', 32),
  seconds: THROUGHPUT_SECONDS,
  warmupSeconds: Math.min(2, THROUGHPUT_SECONDS),
  /** Sequential list latency, per list query. */
  listSeconds: Math.max(2, Math.round(THROUGHPUT_SECONDS * 0.6)),
  /** In-process loops (point selects, runList). */
  loopSeconds: Math.max(2, Math.round(THROUGHPUT_SECONDS * 0.4)),
  loopWarmupSeconds: 1,
  /** PGlite list figures only when seeding 100,000 customers on PGlite takes less than this. */
  pgliteSeedLimitMs: 30_000,
  /** Activation preview and its GET baseline, one at a time. */
  previewSeconds: Math.max(2, Math.round(THROUGHPUT_SECONDS * 0.5)),
  /** Customers with 3 Draft subscriptions the previews rotate over (a preview changes nothing). */
  previewCustomers: 8,
  /**
   * Activations: a fixed number of requests, each on a fresh Draft customer made
   * beforehand, so the pool is exactly as large as the run (plus one for the check).
   */
  activationRequests: { warmup: 2 * envNumber('BENCH_CONNECTIONS', 32), measured: 40 * THROUGHPUT_SECONDS },
  /** Customers the card captures rotate over (each request adds a card to one). */
  captureCustomers: 200,
};
const GET_TARGET = 0.3;
const PGLITE_GET_TARGET = 0.6;
const LIST_P50_TARGET_MS = 30;
const PREVIEW_P50_TARGET_MS = 10;
const CAPTURE_TARGET_RPS = 300;
const DEFAULT_SORT = { field: 'Id', order: 'Ascending' } as const;

const startedAt = performance.now();
/** Set by Ctrl-C / SIGTERM: clean-up has started, nothing new may begin. */
let interrupted = false;
function log(line: string) {
  if (interrupted) return;
  const elapsed = ((performance.now() - startedAt) / 1000).toFixed(0).padStart(3);
  console.log(`[${elapsed} s] ${line}`);
}

/** Undo steps (servers, databases, clusters, folders), run in reverse on exit, error or Ctrl-C. */
class Cleanup {
  private readonly steps: Array<{ label: string; run: () => Promise<void> | void }> = [];
  add(label: string, run: () => Promise<void> | void) {
    this.steps.push({ label, run });
  }
  async runAll() {
    while (this.steps.length > 0) {
      const step = this.steps.pop()!;
      try {
        await step.run();
      } catch (error) {
        console.error(`cleanup (${step.label}) failed: ${(error as Error).message}`);
      }
    }
  }
}
const cleanup = new Cleanup();

/** Detail rows, filled as runs complete. */
const throughputRows: string[][] = [];
const latencyRows: string[][] = [];
const notes: string[] = [];
/** Runs during which other processes kept at least OTHER_CPU_WARNING of a core busy. */
const disturbedRuns: string[] = [];
const OTHER_CPU_WARNING = 0.25;
let failed = false;
/** Whether any response was not 2xx, or any connection failed. */
let httpProblems = false;

function noteDisturbance(label: string, cpu: CpuShares | undefined) {
  if (cpu && cpu.other >= OTHER_CPU_WARNING) disturbedRuns.push(`${label} (${Math.round(cpu.other * 100)}%)`);
}

async function withServer<T>(spec: ServerSpec, body: (server: RunningServer) => Promise<T>): Promise<T> {
  if (interrupted) throw new Error('interrupted');
  const server = await startServer(spec);
  // stop() is idempotent: the cleanup entry only matters if the run is interrupted
  cleanup.add('server process', () => server.stop());
  try {
    return await body(server);
  } finally {
    await server.stop();
  }
}

async function expectOk(server: RunningServer, method: string, pathName: string, headers: Record<string, string>, body?: string) {
  const agent = new http.Agent({ keepAlive: false });
  const response = await httpRequest(agent, server.url, method, pathName, headers, body);
  agent.destroy();
  if (response.status < 200 || response.status > 299) {
    throw new Error(`${method} ${pathName} answered ${response.status} before the load started: ${response.body.slice(0, 300)}`);
  }
  return response;
}

async function throughput(
  label: string,
  server: RunningServer,
  spec: Omit<ThroughputSpec, 'baseUrl' | 'connections' | 'seconds' | 'warmupSeconds' | 'serverPid'> & { baseUrl?: string },
): Promise<ThroughputResult> {
  const withPostgres = spec.postgresDatabase !== undefined;
  log(
    spec.requests
      ? `${label}: ${SETTINGS.connections} connections, ${integer(spec.requests.warmup)} requests warm-up + ${integer(spec.requests.measured)} measured`
      : `${label}: ${SETTINGS.connections} connections, ${SETTINGS.warmupSeconds} s warm-up + ${SETTINGS.seconds} s`,
  );
  const result = await measureThroughput({
    ...spec,
    baseUrl: spec.baseUrl ?? server.url,
    connections: SETTINGS.connections,
    seconds: SETTINGS.seconds,
    warmupSeconds: SETTINGS.warmupSeconds,
    serverPid: server.pid,
  });
  throughputRows.push([
    label,
    integer(result.requestsPerSecond),
    wholeMs(result.latencyMs.p50),
    wholeMs(result.latencyMs.p99),
    integer(result.ok),
    integer(result.non2xx),
    integer(result.errors),
    perRequest(result.cpu?.server, result.requestsPerSecond),
    withPostgres ? perRequest(result.cpu?.postgres, result.requestsPerSecond) : '—',
    cpuText(result.cpu, withPostgres),
  ]);
  noteDisturbance(label, result.cpu);
  if (result.non2xx > 0 || result.errors > 0) {
    httpProblems = true;
    notes.push(`${label}: ${integer(result.non2xx)} non-2xx responses (${statusText(result.statusCodes)}), ${integer(result.errors)} errors, ${integer(result.timeouts)} timeouts`);
  }
  return result;
}

function latencyRow(label: string, result: LoopResult, extra: string) {
  noteDisturbance(label, result.cpu);
  const other = result.cpu ? `${Math.round(result.cpu.other * 100)}%` : 'n/a';
  latencyRows.push([label, integer(result.count), ms(result.latencyMs.p50), ms(result.latencyMs.p95), ms(result.latencyMs.p99), `${integer(result.perSecond)}/s`, other, extra]);
}

async function sequentialList(
  label: string,
  server: RunningServer,
  account: BenchAccount,
  query: (typeof LIST_QUERIES)[number],
  postgresDatabase?: string,
) {
  await expectOk(server, 'GET', query.path, { authorization: account.authorization });
  log(`${label}: one request at a time, ${SETTINGS.loopWarmupSeconds} s warm-up + ${SETTINGS.listSeconds} s`);
  const result = await measureSequentialHttp({
    baseUrl: server.url,
    path: query.path,
    headers: { authorization: account.authorization },
    seconds: SETTINGS.listSeconds,
    warmupSeconds: SETTINGS.loopWarmupSeconds,
    serverPid: server.pid,
    postgresDatabase,
  });
  const matched = `X-Count ${integer(Number(result.lastHeaders['x-count']))} of ${integer(Number(result.lastHeaders['x-maxcount']))}`;
  latencyRow(label, result, `${matched}; non-2xx ${integer(result.non2xx)}`);
  if (result.non2xx > 0) httpProblems = true;
  if (result.non2xx > 0) notes.push(`${label}: ${integer(result.non2xx)} non-2xx responses (${statusText(result.statusCodes)})`);
  return result;
}

/** The list endpoint's own database work (runList: filtered count, total count, page), without HTTP. */
async function directList(
  label: string,
  db: Db,
  catalog: Catalog,
  accountId: number,
  query: (typeof LIST_QUERIES)[number],
  postgresDatabase?: string,
) {
  const fields = customerListFields(catalog);
  const request = parseListRequest(listInputFromUrl(query.path), fields, DEFAULT_SORT);
  log(`${label}: in-process runList(), ${SETTINGS.listSeconds} s`);
  const result = await measureLoop(
    () => runList(db, selectCustomerRecords(db, accountId), request, fields, 'customers.id'),
    SETTINGS.listSeconds,
    SETTINGS.loopWarmupSeconds,
    { postgresDatabase },
  );
  latencyRow(label, result, 'same SQL as the endpoint, no HTTP');
  return result;
}

function getPath(ids: { min: number; max: number }) {
  return () => `/v1/customers/${randomIdIn(ids)}`;
}

/** The customers made for the lifecycle and capture figures, in the benchmark process before the server starts. */
interface Pools {
  /** Preview and activation customers (a third account, so the lists keep their 100,000). */
  lifecycleAccount: BenchAccount;
  captureAccount: BenchAccount;
  preview: number[];
  /** One for the check before the run, then one per request. */
  activation: number[];
  capture: number[];
  ms: number;
}

async function makePools(db: Db, catalog: Catalog, label: string, concurrency: number): Promise<Pools> {
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

/** Customers in rotation: each call gives the next one. */
function rotation(ids: readonly number[]): () => number {
  let i = 0;
  return () => ids[i++ % ids.length];
}

const captureSpec = (siteverify: SiteverifyStandIn) => ({ captcha: 'siteverify' as const, verifyUrl: siteverify.url, secret: siteverify.secret });

interface LifecycleFigures {
  preview: SequentialHttpResult;
  /** The baseline: GET /v1/customers/{id} of the same customers, one at a time. */
  previewGet: SequentialHttpResult;
  /** What the first preview computed (invoices, first total). */
  previewShape: string;
  activation: ThroughputResult;
  /** Whether the last activated customer is Active afterwards. */
  activationCheck: string;
  capture: ThroughputResult;
  /** siteverify calls answered during the capture run (warm-up and check included) and capture requests sent. */
  captcha: { verified: number; refused: number; sent: number };
  bulk: BulkFigures;
}

interface BulkFigures {
  records: number;
  submitMs: number;
  /** Records paid per second by the server's background worker, from Process to Completed. */
  perSecond: number;
  /** The baseline: the same kind of payment through POST /v1/payments, one request at a time. */
  sequentialPerSecond: number;
  status: string;
}

const BULK_RECORDS = 2_000;
const BULK_BASELINE_REQUESTS = 300;

/** A bulk job of Cash payments (no gateway), processed by the server's worker; beside the same payments one at a time over HTTP. */
async function benchBulk(app: RunningServer, customers: number[], headers: Record<string, string>): Promise<BulkFigures> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const call = async (method: string, pathName: string, body?: unknown) => {
    const response = await httpRequest(agent, app.url, method, pathName, headers, body === undefined ? undefined : JSON.stringify(body));
    if (response.status !== 200) throw new Error(`${method} ${pathName} answered ${response.status}: ${response.body.slice(0, 300)}`);
    return JSON.parse(response.body) as { id: number; status: string; processedRecords: number };
  };
  const next = rotation(customers);
  try {
    log(`bulk payments: ${BULK_BASELINE_REQUESTS} POST /v1/payments one at a time (baseline)`);
    const sequentialStart = performance.now();
    for (let i = 0; i < BULK_BASELINE_REQUESTS; i++) await call('POST', '/v1/payments', { customerId: next(), amount: '1.00', paymentMethod: 'Cash' });
    const sequentialPerSecond = BULK_BASELINE_REQUESTS / ((performance.now() - sequentialStart) / 1000);

    log(`bulk payments: a job of ${integer(BULK_RECORDS)} Cash payments, submitted then processed`);
    const items = Array.from({ length: BULK_RECORDS }, (_, i) => ({ customerId: next(), amount: '1.00', paymentMethod: 'Cash', reference: `bench-${i}` }));
    const submitStart = performance.now();
    const job = await call('POST', '/v1/bulkPaymentSubmit', { accountUploadType: 'bulkPayment', data: items });
    const submitMs = performance.now() - submitStart;
    const processStart = performance.now();
    await call('POST', '/v1/BulkApi/Process', { id: job.id });
    let current = job;
    while (current.status !== 'Completed' && performance.now() - processStart < 300_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      current = await call('GET', `/v1/BulkApi/${job.id}`);
    }
    const perSecond = current.processedRecords / ((performance.now() - processStart) / 1000);
    return { records: current.processedRecords, submitMs, perSecond, sequentialPerSecond, status: current.status };
  } finally {
    agent.destroy();
  }
}

const RUN_ID = Math.random().toString(36).slice(2, 10);
let captureTokens = 0;
/** A reCAPTCHA response token never used before in this run (nor, with the random part, in any other). */
function freshToken(): string {
  captureTokens += 1;
  return `bench-${RUN_ID}-${captureTokens}`;
}

/** Preview latency and its GET baseline, activation and card-capture throughput, on a running server with the capture host. */
async function benchLifecycle(db: string, app: RunningServer, pools: Pools, siteverify: SiteverifyStandIn, postgresDatabase?: string): Promise<LifecycleFigures> {
  const headers = { authorization: pools.lifecycleAccount.authorization, 'content-type': 'application/json' };
  const previewPath = '/v1/customeractivation?preview=true';

  // 5: preview, one at a time, and the GET of the same customers the same way
  const first = await expectOk(app, 'POST', previewPath, headers, JSON.stringify({ customerId: pools.preview[0] }));
  type Preview = { total?: number; draftCharges?: unknown[] };
  const shape = JSON.parse(first.body) as { status?: string; invoicePreview?: Preview | null; additionalInvoicesForPreview?: Preview[] };
  const invoices = [...(shape.invoicePreview ? [shape.invoicePreview] : []), ...(shape.additionalInvoicesForPreview ?? [])];
  const charges = invoices.reduce((n, invoice) => n + (invoice.draftCharges?.length ?? 0), 0);
  const previewShape = `${invoices.length} invoice${invoices.length === 1 ? '' : 's'} (${charges} charges) previewed, first total ${shape.invoicePreview?.total ?? 'n/a'}; customer still ${shape.status ?? '?'}`;
  const sequential = async (label: string, spec: { method: 'GET' | 'POST'; path: string | (() => string); body?: () => string; headers: Record<string, string> }) => {
    log(`${label}: one request at a time, ${SETTINGS.loopWarmupSeconds} s warm-up + ${SETTINGS.previewSeconds} s`);
    const result = await measureSequentialHttp({ baseUrl: app.url, ...spec, seconds: SETTINGS.previewSeconds, warmupSeconds: SETTINGS.loopWarmupSeconds, serverPid: app.pid, postgresDatabase });
    if (result.non2xx > 0) {
      httpProblems = true;
      notes.push(`${label}: ${integer(result.non2xx)} non-2xx responses (${statusText(result.statusCodes)})`);
    }
    return result;
  };
  const nextPreview = rotation(pools.preview);
  const preview = await sequential(`${db} activation preview (3 Draft subscriptions)`, {
    method: 'POST',
    path: previewPath,
    body: () => JSON.stringify({ customerId: nextPreview() }),
    headers,
  });
  latencyRow(`${db} activation preview (3 Draft subscriptions), HTTP`, preview, `${pools.preview.length} customers in rotation; ${previewShape}; non-2xx ${integer(preview.non2xx)}`);
  const nextGet = rotation(pools.preview);
  const previewGet = await sequential(`${db} GET /v1/customers/{id}, one at a time`, {
    method: 'GET',
    path: () => `/v1/customers/${nextGet()}`,
    headers: { authorization: pools.lifecycleAccount.authorization },
  });
  latencyRow(`${db} GET /v1/customers/{id}, one at a time (preview baseline)`, previewGet, `the same ${pools.preview.length} customers; non-2xx ${integer(previewGet.non2xx)}`);

  // 6: activation, each request on a fresh Draft customer; the pool holds exactly the run's requests
  await expectOk(app, 'POST', '/v1/customeractivation', headers, activationBody(pools.activation[0]));
  let taken = 1;
  // past the end of the pool (never, by construction) customer 0 would be a visible 400
  const nextActivation = () => activationBody(pools.activation[taken++] ?? 0);
  const activation = await throughput(`${db} POST /v1/customeractivation (fresh Draft customer, 3 subscriptions)`, app, {
    method: 'POST',
    path: '/v1/customeractivation',
    headers,
    body: nextActivation,
    requests: SETTINGS.activationRequests,
    postgresDatabase,
  });
  const lastId = pools.activation[Math.min(taken, pools.activation.length) - 1];
  const after = await expectOk(app, 'GET', `/v1/customers/${lastId}`, { authorization: pools.lifecycleAccount.authorization });
  const activationCheck = `${integer(taken)} of ${integer(pools.activation.length)} pooled customers used; the last one (${lastId}) is now ${(JSON.parse(after.body) as { status?: string }).status ?? '?'}`;

  // 7: card capture with a collection, on the capture host of the same process
  if (!app.captureUrl) throw new Error('the server process did not start the card-capture host');
  const captureHost: RunningServer = { ...app, url: app.captureUrl };
  const captureHeaders = { 'content-type': 'application/json' };
  const publicKey = pools.captureAccount.publicApiKey;
  const verifiedBefore = siteverify.verified;
  const refusedBefore = siteverify.refused;
  let sent = 1;
  await expectOk(captureHost, 'POST', '/api/paymentsv2', captureHeaders, captureBody(publicKey, pools.capture[0], freshToken()));
  const nextCaptureCustomer = rotation(pools.capture);
  const capture = await throughput(`${db} POST /api/paymentsv2 (card + ${CAPTURE_COLLECTION_AMOUNT} collection)`, app, {
    baseUrl: app.captureUrl,
    method: 'POST',
    path: '/api/paymentsv2',
    headers: captureHeaders,
    body: () => {
      sent += 1;
      return captureBody(publicKey, nextCaptureCustomer(), freshToken());
    },
    postgresDatabase,
  });
  // requests cut off when autocannon stopped are still being handled by the server: let them reach their CAPTCHA check
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const captcha = { verified: siteverify.verified - verifiedBefore, refused: siteverify.refused - refusedBefore, sent };

  // 8: a bulk payment job, processed in the background by the server's worker
  const bulk = await benchBulk(app, pools.preview, headers);
  return { preview, previewGet, previewShape, activation, activationCheck, capture, captcha, bulk };
}

/** The lifecycle and capture figures, or why they are missing; a failure there leaves the other figures of the database alone. */
async function lifecycleOrFailure(db: string, run: () => Promise<LifecycleFigures>): Promise<LifecycleFigures | string> {
  try {
    return await run();
  } catch (error) {
    failed = true;
    notes.push(`${db} preview/activation/capture figures failed: ${(error as Error).stack ?? error}`);
    log(`${db} preview/activation/capture failed: ${(error as Error).message}`);
    return 'failed (see notes)';
  }
}

async function poolsOrFailure(db: string, make: () => Promise<Pools>): Promise<Pools | string> {
  try {
    return await make();
  } catch (error) {
    failed = true;
    notes.push(`${db}: making the customers for the preview/activation/capture figures failed: ${(error as Error).stack ?? error}`);
    log(`${db}: making the customers failed: ${(error as Error).message}`);
    return 'failed (see notes)';
  }
}

interface DatabaseFigures {
  get: ThroughputResult;
  post: ThroughputResult;
  lists: Array<{ http: SequentialHttpResult; direct: LoopResult }> | undefined;
  lifecycle: LifecycleFigures | string;
  pools: Pools | string;
}

interface PostgresFigures extends DatabaseFigures {
  description: string;
  seedMs: number;
  getWithMemoryStore: ThroughputResult;
  /** Bare Fastify + pg: one prepared `select * from customers where id = $1` per request, no auth, no limits. */
  pointSelectFloor: ThroughputResult;
  getBackends: WaitSample;
  postBackends: WaitSample;
}

async function benchPostgres(server: PostgresServer, catalog: Catalog, siteverify: SiteverifyStandIn): Promise<PostgresFigures> {
  const database = await createFreshDatabase(server.url);
  cleanup.add('drop the bench database', () => database.drop());
  log(`PostgreSQL: database ${database.name} created; migrating, seeding ${integer(SEEDED_CUSTOMERS)} customers`);

  // Set-up and the in-process baselines here, then the handle is closed before the server starts.
  const handle = await openDatabase({ databaseUrl: database.url, poolSize: 2 });
  let account: BenchAccount;
  let postAccount: BenchAccount;
  let seedMs: number;
  let ids: { min: number; max: number; count: number };
  let pools: Pools | string;
  const direct: LoopResult[] = [];
  try {
    account = await createBenchAccount(handle.db, catalog);
    // POSTs go to a second account, so the list pages keep counting exactly 100,000 customers
    postAccount = await createBenchAccount(handle.db, catalog);
    seedMs = await seedCustomers(handle.db, account.accountId);
    ids = await customerIdRange(handle.db, account.accountId);
    log(`PostgreSQL: seeded ${integer(ids.count)} customers, vacuumed and analyzed in ${seconds(seedMs)}`);
    for (const [i, query] of LIST_QUERIES.entries()) {
      direct.push(await directList(`PostgreSQL list ${i + 1}, SQL only (runList)`, handle.db, catalog, account.accountId, query, database.name));
    }
    pools = await poolsOrFailure('PostgreSQL', () => makePools(handle.db, catalog, 'PostgreSQL', 2));
  } finally {
    await handle.close();
  }

  const appSpec = (rateLimitStore: 'postgres' | 'memory', withCapture = false): ServerSpec => ({
    kind: 'app',
    database: { databaseUrl: database.url },
    rateLimitStore,
    ...(withCapture ? { capture: captureSpec(siteverify) } : {}),
  });
  const probe = () => {
    const sampler = sampleBackendStates(database.url, database.name);
    let sample: WaitSample = { shares: [], samples: 0 };
    return {
      probe: { start: () => sampler.start(), stop: async () => void (sample = await sampler.stop()) },
      result: () => sample,
    };
  };

  const main = await withServer(appSpec('postgres', true), async (app) => {
    log(`PostgreSQL: server process ${app.pid} listening on ${app.url} (started in ${seconds(app.startMs)})`);
    const auth = { authorization: account.authorization };
    await expectOk(app, 'GET', `/v1/customers/${ids.min}`, auth);
    const getProbe = probe();
    const get = await throughput('PostgreSQL GET /v1/customers/{id}', app, { method: 'GET', path: getPath(ids), headers: auth, probe: getProbe.probe, postgresDatabase: database.name });
    const lists: SequentialHttpResult[] = [];
    for (const [i, query] of LIST_QUERIES.entries()) lists.push(await sequentialList(`PostgreSQL list ${i + 1}, HTTP`, app, account, query, database.name));
    const postHeaders = { authorization: postAccount.authorization, 'content-type': 'application/json' };
    const body = JSON.stringify(NEW_CUSTOMER_BODY);
    await expectOk(app, 'POST', '/v1/customers', postHeaders, body);
    const postProbe = probe();
    const post = await throughput('PostgreSQL POST /v1/customers', app, { method: 'POST', path: '/v1/customers', headers: postHeaders, body, probe: postProbe.probe, postgresDatabase: database.name });
    const made = pools;
    const lifecycle = typeof made === 'string' ? made : await lifecycleOrFailure('PostgreSQL', () => benchLifecycle('PostgreSQL', app, made, siteverify, database.name));
    return { get, lists, post, lifecycle, getBackends: getProbe.result(), postBackends: postProbe.result() };
  });

  // Diagnostic: the same GET with the per-process rate-limit store, to show what the shared PostgreSQL counter costs.
  const getWithMemoryStore = await withServer(appSpec('memory'), (app) =>
    throughput('PostgreSQL GET, MemoryRateLimitStore (diagnostic)', app, { method: 'GET', path: getPath(ids), headers: { authorization: account.authorization }, postgresDatabase: database.name }),
  );

  // Diagnostic: the floor of any database-backed GET on this machine (HTTP + one pg round trip, nothing else).
  const pointSelectFloor = await withServer({ kind: 'bare-pg', databaseUrl: database.url }, (app) =>
    throughput('bare Fastify + pg, GET /x/:id = one prepared point select (diagnostic)', app, {
      method: 'GET',
      path: () => `/x/${randomIdIn(ids)}`,
      postgresDatabase: database.name,
    }),
  );

  await database.drop();
  return {
    description: server.description,
    seedMs,
    pointSelectFloor,
    get: main.get,
    post: main.post,
    lists: main.lists.map((h, i) => ({ http: h, direct: direct[i] })),
    lifecycle: main.lifecycle,
    pools,
    getWithMemoryStore,
    getBackends: main.getBackends,
    postBackends: main.postBackends,
  };
}

interface PgliteFigures extends DatabaseFigures {
  description: string;
  seedMs: number;
  initMs: number;
  pointSelect: LoopResult;
  kyselyPointSelect: LoopResult;
  appQuery: LoopResult;
}

async function benchPglite(catalog: Catalog, siteverify: SiteverifyStandIn): Promise<PgliteFigures> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'renew-bench-pglite-'));
  cleanup.add('remove the PGlite data directory', () => rmSync(dataDir, { recursive: true, force: true }));
  log(`PGlite: creating the data directory ${dataDir} and migrating`);
  let started = performance.now();
  const handle = await openDatabase({ dataDir });
  const initMs = performance.now() - started;
  let account: BenchAccount;
  let postAccount: BenchAccount;
  let seedMs: number;
  let ids: { min: number; max: number; count: number };
  let kyselyPointSelect: LoopResult;
  let appQuery: LoopResult;
  let version: string;
  let pools: Pools | string;
  const direct: LoopResult[] = [];
  try {
    version = (await sql<{ v: string }>`select current_setting('server_version') as v`.execute(handle.db)).rows[0].v;
    account = await createBenchAccount(handle.db, catalog);
    postAccount = await createBenchAccount(handle.db, catalog);
    log(`PGlite: seeding ${integer(SEEDED_CUSTOMERS)} customers`);
    seedMs = await seedCustomers(handle.db, account.accountId);
    ids = await customerIdRange(handle.db, account.accountId);
    log(`PGlite: seeded ${integer(ids.count)} customers, vacuumed and analyzed in ${seconds(seedMs)}`);
    log(`PGlite: Kysely point select, ${SETTINGS.loopSeconds} s`);
    kyselyPointSelect = await measureLoop(
      () => handle.db.selectFrom('customers').selectAll().where('id', '=', randomIdIn(ids)).executeTakeFirst(),
      SETTINGS.loopSeconds,
      SETTINGS.loopWarmupSeconds,
    );
    latencyRow('PGlite point select, Kysely selectFrom(customers)', kyselyPointSelect, 'in-process, sequential');
    log(`PGlite: findCustomerRecord (the GET's query), ${SETTINGS.loopSeconds} s`);
    appQuery = await measureLoop(() => findCustomerRecord(handle.db, account.accountId, randomIdIn(ids)), SETTINGS.loopSeconds, SETTINGS.loopWarmupSeconds);
    latencyRow("PGlite findCustomerRecord (the GET's query)", appQuery, 'in-process, sequential');
    if (seedMs < SETTINGS.pgliteSeedLimitMs) {
      for (const [i, query] of LIST_QUERIES.entries()) {
        direct.push(await directList(`PGlite list ${i + 1}, SQL only (runList)`, handle.db, catalog, account.accountId, query));
      }
    } else {
      notes.push(`PGlite list latency skipped: seeding ${integer(SEEDED_CUSTOMERS)} customers took ${seconds(seedMs)} (limit ${seconds(SETTINGS.pgliteSeedLimitMs)})`);
    }
    pools = await poolsOrFailure('PGlite', () => makePools(handle.db, catalog, 'PGlite', 1));
  } finally {
    await handle.close();
  }

  // The baseline of target 2: PGlite itself, no Kysely, on the same data directory.
  started = performance.now();
  const pglite = await PGlite.create({ dataDir });
  let pointSelect: LoopResult;
  try {
    log(`PGlite: pglite.query point select (opened in ${seconds(performance.now() - started)}), ${SETTINGS.loopSeconds} s`);
    pointSelect = await measureLoop(
      () => pglite.query('select * from customers where id = $1', [randomIdIn(ids)]),
      SETTINGS.loopSeconds,
      SETTINGS.loopWarmupSeconds,
    );
    latencyRow('PGlite point select, pglite.query (baseline)', pointSelect, 'in-process, sequential');
  } finally {
    await pglite.close();
  }

  const figures = await withServer({ kind: 'app', database: { dataDir }, rateLimitStore: 'memory', capture: captureSpec(siteverify) }, async (app) => {
    log(`PGlite: server process ${app.pid} listening on ${app.url} (started in ${seconds(app.startMs)})`);
    const auth = { authorization: account.authorization };
    await expectOk(app, 'GET', `/v1/customers/${ids.min}`, auth);
    const get = await throughput('PGlite GET /v1/customers/{id}', app, { method: 'GET', path: getPath(ids), headers: auth });
    let lists: SequentialHttpResult[] | undefined;
    if (direct.length > 0) {
      lists = [];
      for (const [i, query] of LIST_QUERIES.entries()) lists.push(await sequentialList(`PGlite list ${i + 1}, HTTP`, app, account, query));
    }
    const postHeaders = { authorization: postAccount.authorization, 'content-type': 'application/json' };
    const body = JSON.stringify(NEW_CUSTOMER_BODY);
    await expectOk(app, 'POST', '/v1/customers', postHeaders, body);
    const post = await throughput('PGlite POST /v1/customers', app, { method: 'POST', path: '/v1/customers', headers: postHeaders, body });
    const made = pools;
    const lifecycle = typeof made === 'string' ? made : await lifecycleOrFailure('PGlite', () => benchLifecycle('PGlite', app, made, siteverify));
    return { get, post, lists, lifecycle };
  });

  return {
    description: `PGlite ${packageVersion('@electric-sql/pglite')} (PostgreSQL ${version}), data directory on disk in ${os.tmpdir()} like RENEW_DATA_DIR, one connection`,
    seedMs,
    initMs,
    pointSelect,
    kyselyPointSelect,
    appQuery,
    get: figures.get,
    post: figures.post,
    lists: figures.lists?.map((h, i) => ({ http: h, direct: direct[i] })),
    lifecycle: figures.lifecycle,
    pools,
  };
}

function summaryRows(
  bare: { get: ThroughputResult; post: ThroughputResult },
  postgres: PostgresFigures | string,
  pglite: PgliteFigures | string,
): SummaryRow[] {
  const rows: SummaryRow[] = [];
  const bareText = `bare Fastify GET ${rate(bare.get.requestsPerSecond)}`;
  const skipped = (target: string, measurement: string, reason: string, goal: string): SummaryRow => ({
    target, measurement, result: 'skipped', baseline: reason, ratio: '—', goal, met: '—',
  });
  // 4a, 4b: PostgreSQL (with the target); 4c, 4d: PGlite (reported)
  const listRows = (firstLetter: string, db: string, lists: DatabaseFigures['lists'] | string, hasTarget: boolean) =>
    LIST_QUERIES.forEach((query, i) => {
      const target = `4${String.fromCharCode(firstLetter.charCodeAt(0) + i)}`;
      const figures = typeof lists === 'string' ? undefined : lists?.[i];
      const measurement = `List ${i + 1} (page of 100 of ${integer(SEEDED_CUSTOMERS)}), ${db}`;
      const goal = hasTarget ? `p50 ≤ ${LIST_P50_TARGET_MS} ms` : 'report';
      if (!figures) {
        rows.push(skipped(target, measurement, typeof lists === 'string' ? lists : 'see notes', goal));
        return;
      }
      const p50 = figures.http.latencyMs.p50;
      rows.push({
        target,
        measurement,
        result: `p50 ${ms(p50)}, p95 ${ms(figures.http.latencyMs.p95)}`,
        baseline: `SQL only p50 ${ms(figures.direct.latencyMs.p50)}`,
        ratio: `${(p50 / figures.direct.latencyMs.p50).toFixed(2)}×`,
        goal,
        met: hasTarget ? metText(p50 <= LIST_P50_TARGET_MS) : '—',
      });
    });

  if (typeof postgres === 'string') {
    rows.push(skipped('1', 'GET /v1/customers/{id}, PostgreSQL', postgres, `≥ ${percent(GET_TARGET)} of bare`));
  } else {
    const ratio = postgres.get.requestsPerSecond / bare.get.requestsPerSecond;
    rows.push({
      target: '1',
      measurement: 'GET /v1/customers/{id}, PostgreSQL',
      result: rate(postgres.get.requestsPerSecond),
      baseline: bareText,
      ratio: percent(ratio),
      goal: `≥ ${percent(GET_TARGET)}`,
      met: metText(ratio >= GET_TARGET),
    });
  }
  if (typeof pglite === 'string') {
    rows.push(skipped('2', 'GET /v1/customers/{id}, PGlite', pglite, `≥ ${percent(PGLITE_GET_TARGET)} of point selects`));
  } else {
    const ratio = pglite.get.requestsPerSecond / pglite.pointSelect.perSecond;
    rows.push({
      target: '2',
      measurement: 'GET /v1/customers/{id}, PGlite',
      result: rate(pglite.get.requestsPerSecond),
      baseline: `pglite.query point select ${rate(pglite.pointSelect.perSecond, 'q/s')}`,
      ratio: percent(ratio),
      goal: `≥ ${percent(PGLITE_GET_TARGET)}`,
      met: metText(ratio >= PGLITE_GET_TARGET),
    });
  }
  for (const [suffix, db, figures] of [['a', 'PostgreSQL', postgres], ['b', 'PGlite', pglite]] as const) {
    const measurement = `POST /v1/customers, ${db}`;
    if (typeof figures === 'string') {
      rows.push(skipped(`3${suffix}`, measurement, figures, 'report'));
      continue;
    }
    rows.push({
      target: `3${suffix}`,
      measurement,
      result: rate(figures.post.requestsPerSecond),
      baseline: bareText,
      ratio: percent(figures.post.requestsPerSecond / bare.get.requestsPerSecond),
      goal: 'report',
      met: '—',
    });
  }
  listRows('a', 'PostgreSQL', typeof postgres === 'string' ? postgres : postgres.lists, true);
  listRows('c', 'PGlite', typeof pglite === 'string' ? pglite : pglite.lists, false);

  const lifecycles = [['a', 'PostgreSQL', postgres], ['b', 'PGlite', pglite]] as const;
  const lifecycleOf = (figures: PostgresFigures | PgliteFigures | string) => (typeof figures === 'string' ? figures : figures.lifecycle);
  // 5: activation preview, one at a time (the 10 ms target is the embedded database's)
  for (const [suffix, db, figures] of lifecycles) {
    const lifecycle = lifecycleOf(figures);
    const measurement = `Activation preview (3 Draft subscriptions), ${db}`;
    const goal = db === 'PGlite' ? `p50 ≤ ${PREVIEW_P50_TARGET_MS} ms` : 'report';
    if (typeof lifecycle === 'string') {
      rows.push(skipped(`5${suffix}`, measurement, lifecycle, goal));
      continue;
    }
    const p50 = lifecycle.preview.latencyMs.p50;
    rows.push({
      target: `5${suffix}`,
      measurement,
      result: `p50 ${ms(p50)}, p95 ${ms(lifecycle.preview.latencyMs.p95)}`,
      baseline: `GET /v1/customers/{id} one at a time p50 ${ms(lifecycle.previewGet.latencyMs.p50)}`,
      ratio: `${(p50 / lifecycle.previewGet.latencyMs.p50).toFixed(2)}×`,
      goal,
      met: db === 'PGlite' ? metText(p50 <= PREVIEW_P50_TARGET_MS) : '—',
    });
  }
  const bareP = `bare Fastify POST ${rate(bare.post.requestsPerSecond)}`;
  // 6: activation throughput, a fresh Draft customer per request
  for (const [suffix, db, figures] of lifecycles) {
    const lifecycle = lifecycleOf(figures);
    const measurement = `Activation (fresh customer, 3 subscriptions), ${db}`;
    if (typeof lifecycle === 'string') {
      rows.push(skipped(`6${suffix}`, measurement, lifecycle, 'report'));
      continue;
    }
    const result = lifecycle.activation;
    rows.push({
      target: `6${suffix}`,
      measurement,
      result: `${rate(result.requestsPerSecond)}, p50 ${wholeMs(result.latencyMs.p50)}`,
      baseline: bareP,
      ratio: percent(result.requestsPerSecond / bare.post.requestsPerSecond),
      goal: 'report',
      met: '—',
    });
  }
  // 7: card capture with a collection, on the capture host
  for (const [suffix, db, figures] of lifecycles) {
    const lifecycle = lifecycleOf(figures);
    const measurement = `POST /api/paymentsv2 + ${CAPTURE_COLLECTION_AMOUNT} collection, ${db}`;
    const goal = `≥ ${CAPTURE_TARGET_RPS} req/s`;
    if (typeof lifecycle === 'string') {
      rows.push(skipped(`7${suffix}`, measurement, lifecycle, goal));
      continue;
    }
    const result = lifecycle.capture;
    // only successful captures count toward the target
    const okRate = result.ok / result.seconds;
    rows.push({
      target: `7${suffix}`,
      measurement,
      result: `${rate(okRate)}, ${integer(result.non2xx)} non-2xx`,
      baseline: bareP,
      ratio: percent(okRate / bare.post.requestsPerSecond),
      goal,
      met: metText(okRate >= CAPTURE_TARGET_RPS),
    });
  }
  // 8: bulk payments, no target named: reported beside the same payments one at a time
  for (const [suffix, db, figures] of lifecycles) {
    const lifecycle = lifecycleOf(figures);
    const measurement = `Bulk job of ${integer(BULK_RECORDS)} Cash payments, ${db}`;
    if (typeof lifecycle === 'string') {
      rows.push(skipped(`8${suffix}`, measurement, lifecycle, 'report'));
      continue;
    }
    const b = lifecycle.bulk;
    rows.push({
      target: `8${suffix}`,
      measurement,
      result: `${rate(b.perSecond, 'payments/s')} (${integer(b.records)} paid, ${b.status}; submit ${wholeMs(b.submitMs)})`,
      baseline: `POST /v1/payments one at a time ${rate(b.sequentialPerSecond, 'payments/s')}`,
      ratio: percent(b.perSecond / b.sequentialPerSecond),
      goal: 'report',
      met: '—',
    });
  }
  return rows;
}

function backendText(sample: WaitSample): string {
  if (sample.samples === 0) return 'no samples';
  return sample.shares
    .slice(0, 5)
    .map((s) => `${s.state} ${percent(s.share)}`)
    .join(', ');
}

async function main() {
  console.log('Renew billing-service benchmark');
  console.log(`Machine: ${machineDescription()}`);
  console.log(`Load average before the run: ${loadAverage()} (other processes on the machine share its cores and skew the figures; see "other" below)`);
  console.log(
    `Server under test: buildApp() in a child Node process (tsx), logger off, on 127.0.0.1 at a random port, next to the card-capture host ` +
      `(startCaptureService on the same database handle, as npm start runs it); ` +
      `load from autocannon ${packageVersion('autocannon')} in this process (so server and load generator each have a core).`,
  );
  console.log('');

  const stopOnSignal = (signal: NodeJS.Signals) => {
    interrupted = true;
    console.error(`\n${signal}: cleaning up`);
    void cleanup.runAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);

  const catalog = loadCatalog(DEMO_CATALOG_PATH);
  // the capture host's CAPTCHA check talks the siteverify protocol over HTTP to this stand-in
  const siteverify = await startSiteverifyStandIn();
  cleanup.add('stop the siteverify stand-in', () => siteverify.stop());
  let bare: { get: ThroughputResult; post: ThroughputResult } | undefined;
  let postgres: PostgresFigures | string = 'not run';
  let pglite: PgliteFigures | string = 'not run';
  try {
    bare = await withServer({ kind: 'bare' }, async (server) => {
      const body = JSON.stringify(NEW_CUSTOMER_BODY);
      return {
        get: await throughput('bare Fastify GET /x (baseline)', server, { method: 'GET', path: '/x' }),
        post: await throughput('bare Fastify POST /x (same body as the POST)', server, { method: 'POST', path: '/x', headers: { 'content-type': 'application/json' }, body }),
      };
    });

    try {
      if (interrupted) throw new Error('interrupted');
      const provision = await providePostgres(log);
      if ('skipped' in provision) {
        postgres = 'no PostgreSQL';
        notes.push(`PostgreSQL figures skipped: ${provision.skipped}`);
        log(`PostgreSQL skipped: ${provision.skipped}`);
      } else {
        cleanup.add('stop PostgreSQL', () => provision.server.stop());
        log(`PostgreSQL: ${provision.server.description}`);
        postgres = await benchPostgres(provision.server, catalog, siteverify);
        await provision.server.stop();
      }
    } catch (error) {
      failed = true;
      postgres = 'failed (see notes)';
      notes.push(`PostgreSQL figures failed: ${(error as Error).stack ?? error}`);
      log(`PostgreSQL failed: ${(error as Error).message}`);
    }

    try {
      if (interrupted) throw new Error('interrupted');
      pglite = await benchPglite(catalog, siteverify);
    } catch (error) {
      failed = true;
      pglite = 'failed (see notes)';
      notes.push(`PGlite figures failed: ${(error as Error).stack ?? error}`);
      log(`PGlite failed: ${(error as Error).message}`);
    }
  } finally {
    await cleanup.runAll();
  }
  log(`done; load average now ${loadAverage()}`);

  console.log('');
  console.log('Settings');
  console.log(`  Throughput: autocannon, ${SETTINGS.connections} connections, pipelining 1, ${SETTINGS.warmupSeconds} s warm-up then ${SETTINGS.seconds} s measured per run;`);
  console.log('              Authorization: Basic <private key>; no Accept-Encoding, so responses are not compressed.');
  console.log(`  Latency:    list pages one request at a time over one keep-alive connection, ${SETTINGS.loopWarmupSeconds} s warm-up then ${SETTINGS.listSeconds} s; p50/p95 from every sample.`);
  console.log(
    `  Accounts:   limits raised to ${integer(BENCH_RATE_LIMIT)} per minute and per day; POSTs use a second account so lists keep exactly ${integer(SEEDED_CUSTOMERS)} customers; ` +
      'previews and activations a third, captures a fourth.',
  );
  console.log(`  Data:       ${integer(SEEDED_CUSTOMERS)} customers inserted with one insert … select from generate_series, then vacuum analyze; GETs pick a random one.`);
  console.log(`  PostgreSQL: ${typeof postgres === 'string' ? postgres : `${postgres.description}; app pool 10 (openDatabase default); PostgresRateLimitStore on the counters pool (4 connections, synchronous_commit off) like src/main.ts; seeded in ${seconds(postgres.seedMs)}`}`);
  console.log(`  PGlite:     ${typeof pglite === 'string' ? pglite : `${pglite.description}; MemoryRateLimitStore like src/main.ts; created+migrated in ${seconds(pglite.initMs)}, seeded in ${seconds(pglite.seedMs)}`}`);
  const poolTimes = ([['PostgreSQL', postgres], ['PGlite', pglite]] as const)
    .map(([db, figures]) => `${db} ${typeof figures === 'string' || typeof figures.pools === 'string' ? 'n/a' : seconds(figures.pools.ms)}`)
    .join(', ');
  const activationPool = 1 + SETTINGS.activationRequests.warmup + SETTINGS.activationRequests.measured;
  console.log(`  Lifecycle:  a third account; its customers are made before the server starts, in this process, with createCustomer (the POST body above) and`);
  console.log(`              createSubscription for frequencies ${DRAFT_FREQUENCIES.join(', ')} (BASIC monthly, BASIC yearly, PRO monthly: 3 Draft subscriptions each), then analyze (${poolTimes}).`);
  console.log(`              Preview: POST /v1/customeractivation?preview=true {customerId}, ${SETTINGS.previewCustomers} customers in rotation, one request at a time,`);
  console.log(`              ${SETTINGS.loopWarmupSeconds} s warm-up then ${SETTINGS.previewSeconds} s; baseline GET /v1/customers/{id} of the same customers, measured the same way.`);
  console.log(`              Activation: {customerId, activateAllSubscriptions:true, activateAllDraftPurchases:false, temporarilyDisableAutoPost:false}, a fresh Draft customer per request`);
  console.log(`              from a pool of ${integer(activationPool)} (1 checked before the run, ${integer(SETTINGS.activationRequests.warmup)} warm-up, ${integer(SETTINGS.activationRequests.measured)} measured): a fixed number of requests, not a duration.`);
  console.log(`  Capture:    POST /api/paymentsv2 (JSON) on the capture host of the server process, sandbox gateway, Visa 4242…4242 12/30 cvv 123 with riskToken/clientIp/email,`);
  console.log(`              PaymentCollectOptions.collectionAmount ${CAPTURE_COLLECTION_AMOUNT}; ${integer(SETTINGS.captureCustomers)} customers of a fourth account in rotation (cards pile up on them);`);
  console.log(`              a new recaptcha token per request, checked by the real SiteverifyCaptcha (RENEW_CAPTCHA=google) against a local siteverify stand-in`);
  console.log(`              (node:http in this process, so its CPU counts under "autocannon"; answers {"success":true,"hostname":"localhost"} for any token with the secret);`);
  console.log(`              account limits and RENEW_CAPTURE_IP_PER_MINUTE/DAY raised to ${integer(BENCH_RATE_LIMIT)}; rate-limit store as startCaptureService picks it.`);

  if (bare) {
    console.log('');
    console.log('Summary (each figure beside a baseline measured in this run; a missed target does not fail the run)');
    console.log(summaryTable(summaryRows(bare, postgres, pglite)));
    console.log('  Ratio = result ÷ baseline; for the lists, HTTP p50 ÷ SQL-only p50 (the same runList() queries run in this process, no HTTP);');
    console.log('  for the previews, preview p50 ÷ GET p50 of the same customers, both one request at a time; for the captures, 2xx responses per second ÷ bare POST.');
    for (const query of LIST_QUERIES) console.log(`  ${query.label}: GET ${query.path}`);
  }

  console.log('');
  console.log(
    `Throughput runs (CPU from /proc over the measured ${SETTINGS.seconds} s, for the activations over their ${integer(SETTINGS.activationRequests.measured)} measured requests: ` +
      'the server process, the PostgreSQL backends of the bench database, autocannon, and everything else)',
  );
  console.log(
    table(['Run', 'req/s', 'p50', 'p99', '2xx', 'non-2xx', 'errors', 'server CPU/req', 'pg CPU/req', 'CPU used (100% = one core)'], throughputRows, new Set([1, 2, 3, 4, 5, 6, 7, 8])),
  );
  console.log('');
  console.log('Latency runs (one at a time; "other CPU" = busy time of processes outside the benchmark, 100% = one core)');
  console.log(table(['Run', 'samples', 'p50', 'p95', 'p99', 'rate', 'other CPU', 'notes'], latencyRows, new Set([1, 2, 3, 4, 5, 6])));

  const observations: string[] = [];
  if (typeof postgres !== 'string') {
    observations.push(
      `PostgreSQL GET: ${rate(postgres.get.requestsPerSecond)} with PostgresRateLimitStore vs ${rate(postgres.getWithMemoryStore.requestsPerSecond)} with MemoryRateLimitStore ` +
        `(${percent(postgres.getWithMemoryStore.requestsPerSecond / bare!.get.requestsPerSecond)} of bare).`,
      `PostgreSQL GET: ${rate(postgres.get.requestsPerSecond)} vs ${rate(postgres.pointSelectFloor.requestsPerSecond)} for bare Fastify + pg answering one prepared ` +
        `point select (${percent(postgres.pointSelectFloor.requestsPerSecond / bare!.get.requestsPerSecond)} of bare Fastify): the GET reaches ` +
        `${percent(postgres.get.requestsPerSecond / postgres.pointSelectFloor.requestsPerSecond)} of that floor.`,
      `PostgreSQL backends during the GET run (pg_stat_activity every 200 ms): ${backendText(postgres.getBackends)}.`,
      `PostgreSQL backends during the POST run: ${backendText(postgres.postBackends)}.`,
    );
  }
  if (typeof pglite !== 'string') {
    observations.push(
      `PGlite sequential, in-process: pglite.query ${rate(pglite.pointSelect.perSecond, 'q/s')}, Kysely point select ${rate(pglite.kyselyPointSelect.perSecond, 'q/s')}, ` +
        `findCustomerRecord (joins + sales-code subquery) ${rate(pglite.appQuery.perSecond, 'q/s')}; over HTTP the GET reached ${rate(pglite.get.requestsPerSecond)}.`,
    );
  }
  if (bare) observations.push(`Bare Fastify POST /x with the same JSON body: ${rate(bare.post.requestsPerSecond)}.`);
  for (const [db, figures] of [['PostgreSQL', postgres], ['PGlite', pglite]] as const) {
    if (typeof figures === 'string' || typeof figures.lifecycle === 'string') continue;
    const l = figures.lifecycle;
    observations.push(
      `${db} activation: ${integer(l.activation.total)} measured requests in ${l.activation.seconds.toFixed(1)} s (p50 ${wholeMs(l.activation.latencyMs.p50)}, p99 ${wholeMs(l.activation.latencyMs.p99)}); ${l.activationCheck}.`,
      `${db} capture: ${rate(l.capture.ok / l.capture.seconds)} with 2xx (p50 ${wholeMs(l.capture.latencyMs.p50)}, p99 ${wholeMs(l.capture.latencyMs.p99)}); ` +
        `the siteverify stand-in answered ${integer(l.captcha.verified)} verifications (${integer(l.captcha.refused)} refused) for the ${integer(l.captcha.sent)} capture requests sent ` +
        `(check, warm-up and measured run; requests cut off when a run stops may end before their check).`,
    );
  }
  if (observations.length > 0) {
    console.log('');
    console.log('Observations');
    for (const line of observations) console.log(`  - ${line}`);
  }
  console.log('');
  console.log('Notes');
  if (disturbedRuns.length > 0) {
    notes.push(
      `other processes kept ≥ ${Math.round(OTHER_CPU_WARNING * 100)}% of a core busy during ${disturbedRuns.length} runs, whose figures are lower and noisier than on a quiet machine: ${disturbedRuns.join(', ')}`,
    );
  }
  if (!httpProblems) console.log('  - every response was 2xx, no connection errors (429s would show here: the limits were raised)');
  for (const note of notes) console.log(`  - ${note}`);
  if (failed) process.exitCode = 1;
}

main().catch(async (error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  await cleanup.runAll();
  process.exit(1);
});
