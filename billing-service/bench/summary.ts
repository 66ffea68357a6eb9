/**
 * The printed report of the benchmark: the settings, the summary table (each
 * figure beside its baseline and target), the detail of every run, the
 * observations and the notes.
 */
import { BENCH_RATE_LIMIT, CAPTURE_COLLECTION_AMOUNT, LIST_QUERIES, SEEDED_CUSTOMERS } from './fixtures.js';
import type { LifecycleFigures, PgliteFigures, PostgresFigures } from './databases.js';
import { OTHER_CPU_WARNING, SETTINGS, detail, runState } from './harness.js';
import { DRAFT_FREQUENCIES } from './pools.js';
import type { WaitSample } from './postgres.js';
import { integer, percent, rate, seconds, summaryTable, table, wholeMs } from './report.js';
import type { BareFigures } from './scenarios/bare.js';
import { cpuTargetRows, summaryRows } from './summary-rows.js';

function backendText(sample: WaitSample): string {
  if (sample.samples === 0) return 'no samples';
  return sample.shares
    .slice(0, 5)
    .map((s) => `${s.state} ${percent(s.share)}`)
    .join(', ');
}

/** The latency runs (one request or query at a time), and the notes gathered so far when asked. */
export function printLatencyDetail(withNotes = false) {
  console.log('');
  console.log('Latency runs (one at a time; "other CPU" = busy time of processes outside the benchmark, 100% = one core)');
  console.log(
    table(['Run', 'samples', 'p50', 'p95', 'p99', 'rate', 'other CPU', 'notes'], detail.latencyRows, new Set([1, 2, 3, 4, 5, 6])),
  );
  if (!withNotes || detail.notes.length === 0) return;
  console.log('');
  console.log('Notes');
  for (const note of detail.notes) console.log(`  - ${note}`);
}

/** Prints everything after the runs. */
export function printReport(bare: BareFigures, postgres: PostgresFigures | string, pglite: PgliteFigures | string) {
  printSettings(postgres, pglite);
  printLifecycleSettings(postgres, pglite);
  printSummaryTables(bare, postgres, pglite);
  printThroughputDetail();
  printLatencyDetail();
  printObservations(bare, postgres, pglite);
  printNotes();
}

/** The settings of the run: load, accounts, data and each database. */
function printSettings(postgres: PostgresFigures | string, pglite: PgliteFigures | string) {
  console.log('');
  console.log('Settings');
  console.log(
    `  Throughput: autocannon, ${SETTINGS.connections} connections, pipelining 1, ${SETTINGS.warmupSeconds} s warm-up then ${SETTINGS.seconds} s measured per run;`,
  );
  console.log('              Authorization: Basic <private key>; no Accept-Encoding, so responses are not compressed.');
  console.log(
    `  Latency:    list pages one request at a time over one keep-alive connection, ${SETTINGS.loopWarmupSeconds} s warm-up then ${SETTINGS.listSeconds} s; p50/p95 from every sample.`,
  );
  console.log(
    `  Accounts:   limits raised to ${integer(BENCH_RATE_LIMIT)} per minute and per day; POSTs use a second account so lists keep exactly ${integer(SEEDED_CUSTOMERS)} customers; ` +
      'previews and activations a third, captures a fourth.',
  );
  console.log(
    `  Data:       ${integer(SEEDED_CUSTOMERS)} customers inserted with one insert … select from generate_series, then vacuum analyze; GETs pick a random one.`,
  );
  console.log(
    `  PostgreSQL: ${typeof postgres === 'string' ? postgres : `${postgres.description}; app pool 10 (openDatabase default); PostgresRateLimitStore on the counters pool (4 connections, synchronous_commit off) like src/main.ts; seeded in ${seconds(postgres.seedMs)}`}`,
  );
  console.log(
    `  PGlite:     ${typeof pglite === 'string' ? pglite : `${pglite.description}; MemoryRateLimitStore like src/main.ts; created+migrated in ${seconds(pglite.initMs)}, seeded in ${seconds(pglite.seedMs)}`}`,
  );
}

/** How the customers of the previews, activations and card captures are made and used. */
function printLifecycleSettings(postgres: PostgresFigures | string, pglite: PgliteFigures | string) {
  const poolTimes = (
    [
      ['PostgreSQL', postgres],
      ['PGlite', pglite],
    ] as const
  )
    .map(([db, figures]) => `${db} ${typeof figures === 'string' || typeof figures.pools === 'string' ? 'n/a' : seconds(figures.pools.ms)}`)
    .join(', ');
  const activationPool = 1 + SETTINGS.activationRequests.warmup + SETTINGS.activationRequests.measured;
  console.log(
    `  Lifecycle:  a third account; its customers are made before the server starts, in this process, with createCustomer (the POST body above) and`,
  );
  console.log(
    `              createSubscription for frequencies ${DRAFT_FREQUENCIES.join(', ')} (BASIC monthly, BASIC yearly, PRO monthly: 3 Draft subscriptions each), then analyze (${poolTimes}).`,
  );
  console.log(
    `              Preview: POST /v1/customeractivation?preview=true {customerId}, ${SETTINGS.previewCustomers} customers in rotation, one request at a time,`,
  );
  console.log(
    `              ${SETTINGS.loopWarmupSeconds} s warm-up then ${SETTINGS.previewSeconds} s; baseline GET /v1/customers/{id} of the same customers, measured the same way.`,
  );
  console.log(
    `              Activation: {customerId, activateAllSubscriptions:true, activateAllDraftPurchases:false, temporarilyDisableAutoPost:false}, a fresh Draft customer per request`,
  );
  console.log(
    `              from a pool of ${integer(activationPool)} (1 checked before the run, ${integer(SETTINGS.activationRequests.warmup)} warm-up, ${integer(SETTINGS.activationRequests.measured)} measured): a fixed number of requests, not a duration.`,
  );
  console.log(
    `  Capture:    POST /api/paymentsv2 (JSON) on the capture host of the server process, sandbox gateway, Visa 4242…4242 12/30 cvv 123 with riskToken/clientIp/email,`,
  );
  console.log(
    `              PaymentCollectOptions.collectionAmount ${CAPTURE_COLLECTION_AMOUNT}; ${integer(SETTINGS.captureCustomers)} customers of a fourth account in rotation (cards pile up on them);`,
  );
  console.log(
    `              a new recaptcha token per request, checked by the real SiteverifyCaptcha (RENEW_CAPTCHA=google) against a local siteverify stand-in`,
  );
  console.log(
    `              (node:http in this process, so its CPU counts under "autocannon"; answers {"success":true,"hostname":"localhost"} for any token with the secret);`,
  );
  console.log(
    `              account limits and RENEW_CAPTURE_IP_PER_MINUTE/DAY raised to ${integer(BENCH_RATE_LIMIT)}; rate-limit store as startCaptureService picks it.`,
  );
}

/** The summary table and the CPU-per-request table, each figure beside its baseline and target. */
function printSummaryTables(bare: BareFigures, postgres: PostgresFigures | string, pglite: PgliteFigures | string) {
  console.log('');
  console.log('Summary (each figure beside a baseline measured in this run; a missed target does not fail the run)');
  console.log(summaryTable(summaryRows(bare, postgres, pglite)));
  console.log(
    '  Ratio = result ÷ baseline; for the lists, HTTP p50 ÷ SQL-only p50 (the same runList() queries run in this process, no HTTP);',
  );
  console.log(
    '  for the previews, preview p50 ÷ GET p50 of the same customers, both one request at a time; for the captures, 2xx responses per second ÷ bare POST.',
  );
  for (const query of LIST_QUERIES) console.log(`  ${query.label}: GET ${query.path}`);
  console.log('');
  console.log(
    'CPU per request beside the targets of issue 17 (server process and PostgreSQL backends; the floor is bare Fastify + one prepared pg point select, same run)',
  );
  console.log(summaryTable(cpuTargetRows(postgres, pglite)));
  console.log('  The list page at 1,000,000 customers is measured by the growth section: BENCH_SCALE=1 npm run bench.');
}

/** The throughput runs (autocannon), with the CPU each used. */
function printThroughputDetail() {
  console.log('');
  console.log(
    `Throughput runs (CPU from /proc over the measured ${SETTINGS.seconds} s, for the activations over their ${integer(SETTINGS.activationRequests.measured)} measured requests: ` +
      'the server process, the PostgreSQL backends of the bench database, autocannon, and everything else)',
  );
  console.log(
    table(
      ['Run', 'req/s', 'p50', 'p99', '2xx', 'non-2xx', 'errors', 'server CPU/req', 'pg CPU/req', 'CPU used (100% = one core)'],
      detail.throughputRows,
      new Set([1, 2, 3, 4, 5, 6, 7, 8]),
    ),
  );
}

function postgresObservations(bare: BareFigures, postgres: PostgresFigures): string[] {
  return [
    `PostgreSQL GET: ${rate(postgres.get.requestsPerSecond)} with PostgresRateLimitStore vs ${rate(postgres.getWithMemoryStore.requestsPerSecond)} with MemoryRateLimitStore ` +
      `(${percent(postgres.getWithMemoryStore.requestsPerSecond / bare.get.requestsPerSecond)} of bare).`,
    `PostgreSQL GET: ${rate(postgres.get.requestsPerSecond)} vs ${rate(postgres.pointSelectFloor.requestsPerSecond)} for bare Fastify + pg answering one prepared ` +
      `point select (${percent(postgres.pointSelectFloor.requestsPerSecond / bare.get.requestsPerSecond)} of bare Fastify): the GET reaches ` +
      `${percent(postgres.get.requestsPerSecond / postgres.pointSelectFloor.requestsPerSecond)} of that floor.`,
    `PostgreSQL backends during the GET run (pg_stat_activity every 200 ms): ${backendText(postgres.getBackends)}.`,
    `PostgreSQL backends during the POST run: ${backendText(postgres.postBackends)}.`,
  ];
}

function pgliteObservation(pglite: PgliteFigures): string {
  return (
    `PGlite sequential, in-process: pglite.query ${rate(pglite.pointSelect.perSecond, 'q/s')}, Kysely point select ${rate(pglite.kyselyPointSelect.perSecond, 'q/s')}, ` +
    `findCustomerRecord (joins + sales-code subquery) ${rate(pglite.appQuery.perSecond, 'q/s')}; over HTTP the GET reached ${rate(pglite.get.requestsPerSecond)}.`
  );
}

function lifecycleObservations(db: string, l: LifecycleFigures): string[] {
  return [
    `${db} activation: ${integer(l.activation.total)} measured requests in ${l.activation.seconds.toFixed(3)} s (p50 ${wholeMs(l.activation.latencyMs.p50)}, p99 ${wholeMs(l.activation.latencyMs.p99)}); ${l.activationCheck}.`,
    `${db} capture: ${rate(l.capture.ok / l.capture.seconds)} with 2xx (p50 ${wholeMs(l.capture.latencyMs.p50)}, p99 ${wholeMs(l.capture.latencyMs.p99)}); ` +
      `the siteverify stand-in answered ${integer(l.captcha.verified)} verifications (${integer(l.captcha.refused)} refused) for the ${integer(l.captcha.sent)} capture requests sent ` +
      `(check, warm-up and measured run; requests cut off when a run stops may end before their check).`,
  ];
}

function printObservations(bare: BareFigures, postgres: PostgresFigures | string, pglite: PgliteFigures | string) {
  const observations: string[] = [];
  if (typeof postgres !== 'string') observations.push(...postgresObservations(bare, postgres));
  if (typeof pglite !== 'string') observations.push(pgliteObservation(pglite));
  observations.push(`Bare Fastify POST /x with the same JSON body: ${rate(bare.post.requestsPerSecond)}.`);
  for (const [db, figures] of [
    ['PostgreSQL', postgres],
    ['PGlite', pglite],
  ] as const) {
    if (typeof figures !== 'string' && typeof figures.lifecycle !== 'string')
      observations.push(...lifecycleObservations(db, figures.lifecycle));
  }
  console.log('');
  console.log('Observations');
  for (const line of observations) console.log(`  - ${line}`);
}

/** The notes gathered during the run, the disturbed runs among them. */
function printNotes() {
  console.log('');
  console.log('Notes');
  if (detail.disturbedRuns.length > 0) {
    detail.notes.push(
      `other processes kept ≥ ${Math.round(OTHER_CPU_WARNING * 100)}% of a core busy during ${detail.disturbedRuns.length} runs, whose figures are lower and noisier than on a quiet machine: ${detail.disturbedRuns.join(', ')}`,
    );
  }
  if (!runState.httpProblems)
    console.log('  - every response was 2xx, no connection errors (429s would show here: the limits were raised)');
  for (const note of detail.notes) console.log(`  - ${note}`);
}
