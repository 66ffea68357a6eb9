/**
 * The printed report of the benchmark: the settings, the summary table (each
 * figure beside its baseline and target), the detail of every run, the
 * observations and the notes.
 */
import { BENCH_RATE_LIMIT, CAPTURE_COLLECTION_AMOUNT, LIST_QUERIES, SEEDED_CUSTOMERS } from './fixtures.js';
import type { DatabaseFigures, PgliteFigures, PostgresFigures } from './databases.js';
import { OTHER_CPU_WARNING, SETTINGS, detail, runState } from './harness.js';
import { DRAFT_FREQUENCIES } from './pools.js';
import type { WaitSample } from './postgres.js';
import { integer, metText, ms, percent, rate, seconds, summaryTable, table, wholeMs, type SummaryRow } from './report.js';
import type { BareFigures } from './scenarios/bare.js';
import { BULK_RECORDS } from './scenarios/bulk.js';

const GET_TARGET = 0.3;
const PGLITE_GET_TARGET = 0.6;
const LIST_P50_TARGET_MS = 30;
const PREVIEW_P50_TARGET_MS = 10;
const CAPTURE_TARGET_RPS = 300;

function summaryRows(bare: BareFigures, postgres: PostgresFigures | string, pglite: PgliteFigures | string): SummaryRow[] {
  const rows: SummaryRow[] = [];
  const bareText = `bare Fastify GET ${rate(bare.get.requestsPerSecond)}`;
  const skipped = (target: string, measurement: string, reason: string, goal: string): SummaryRow => ({
    target,
    measurement,
    result: 'skipped',
    baseline: reason,
    ratio: '—',
    goal,
    met: '—',
  });
  // 4a, 4b: PostgreSQL (with the target); 4c, 4d: PGlite (reported)
  const listRows = (firstLetter: string, db: string, lists: DatabaseFigures['lists'] | string, hasTarget: boolean) =>
    LIST_QUERIES.forEach((_query, i) => {
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
  for (const [suffix, db, figures] of [
    ['a', 'PostgreSQL', postgres],
    ['b', 'PGlite', pglite],
  ] as const) {
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

  const lifecycles = [
    ['a', 'PostgreSQL', postgres],
    ['b', 'PGlite', pglite],
  ] as const;
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

/** The CPU targets of issue 17 (PostgreSQL): CPU per request of the server process and of the backends. */
const CPU_TARGETS = {
  /** GET: server CPU per request within this factor of the floor's, at this share of the floor's rate or more. */
  getServerOverFloor: 1.3,
  getRateOfFloor: 0.75,
  post: { server: 350, postgres: 350 },
  activation: { server: 1_200, postgres: 1_000 },
  capture: { server: 600, postgres: 500 },
  bulkPerSecond: { PostgreSQL: 2_000, PGlite: 600 },
} as const;

/** Microseconds of CPU per request, for a share of cores at a rate. */
const microsPerRequest = (coreShare: number | undefined, requestsPerSecond: number) =>
  coreShare === undefined || requestsPerSecond <= 0 ? Number.NaN : (coreShare / requestsPerSecond) * 1e6;

/** CPU per request beside the targets of issue 17, each from this run (the 1,000,000-customer list is BENCH_SCALE=1's). */
function cpuTargetRows(postgres: PostgresFigures | string, pglite: PgliteFigures | string): SummaryRow[] {
  const rows: SummaryRow[] = [];
  const µs = (n: number) => (Number.isFinite(n) ? `${integer(n)} µs` : '—');
  if (typeof postgres !== 'string') {
    const floor = postgres.pointSelectFloor;
    const floorServer = microsPerRequest(floor.cpu?.server, floor.requestsPerSecond);
    const getServer = microsPerRequest(postgres.get.cpu?.server, postgres.get.requestsPerSecond);
    const getRate = postgres.get.requestsPerSecond / floor.requestsPerSecond;
    rows.push({
      target: 'C1',
      measurement: 'GET /v1/customers/{id}, server CPU per request',
      result: `${µs(getServer)} + pg ${µs(microsPerRequest(postgres.get.cpu?.postgres, postgres.get.requestsPerSecond))}, ${rate(postgres.get.requestsPerSecond)}`,
      baseline: `floor ${µs(floorServer)} + pg ${µs(microsPerRequest(floor.cpu?.postgres, floor.requestsPerSecond))}, ${rate(floor.requestsPerSecond)}`,
      ratio: `${(getServer / floorServer).toFixed(2)}×, ${percent(getRate)}`,
      goal: `≤ ${CPU_TARGETS.getServerOverFloor}×, ≥ ${percent(CPU_TARGETS.getRateOfFloor)}`,
      met: metText(getServer <= CPU_TARGETS.getServerOverFloor * floorServer && getRate >= CPU_TARGETS.getRateOfFloor),
    });
    const cpuRow = (
      target: string,
      measurement: string,
      result: { cpu?: { server: number; postgres: number }; requestsPerSecond: number },
      goal: { server: number; postgres: number },
    ) => {
      const server = microsPerRequest(result.cpu?.server, result.requestsPerSecond);
      const backends = microsPerRequest(result.cpu?.postgres, result.requestsPerSecond);
      rows.push({
        target,
        measurement,
        result: `${µs(server)} + pg ${µs(backends)}`,
        baseline: '—',
        ratio: '—',
        goal: `≤ ${integer(goal.server)} + ${integer(goal.postgres)} µs`,
        met: metText(server <= goal.server && backends <= goal.postgres),
      });
    };
    cpuRow('C2', 'POST /v1/customers, server + pg CPU per request', postgres.post, CPU_TARGETS.post);
    if (typeof postgres.lifecycle !== 'string') {
      cpuRow('C3', 'Activation (3 subscriptions), server + pg CPU per request', postgres.lifecycle.activation, CPU_TARGETS.activation);
      cpuRow('C4', 'Capture with collection, server + pg CPU per request', postgres.lifecycle.capture, CPU_TARGETS.capture);
    }
  }
  for (const [db, figures] of [
    ['PostgreSQL', postgres],
    ['PGlite', pglite],
  ] as const) {
    if (typeof figures === 'string' || typeof figures.lifecycle === 'string') continue;
    const goal = CPU_TARGETS.bulkPerSecond[db];
    rows.push({
      target: db === 'PostgreSQL' ? 'C5a' : 'C5b',
      measurement: `Bulk payments, ${db}`,
      result: rate(figures.lifecycle.bulk.perSecond, 'payments/s'),
      baseline: '—',
      ratio: '—',
      goal: `≥ ${integer(goal)}/s`,
      met: metText(figures.lifecycle.bulk.perSecond >= goal),
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

/** Prints everything after the runs; `bare` is missing when the bare baselines failed. */
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

export function printReport(bare: BareFigures | undefined, postgres: PostgresFigures | string, pglite: PgliteFigures | string) {
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

  if (bare) {
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
  printLatencyDetail();

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
  for (const [db, figures] of [
    ['PostgreSQL', postgres],
    ['PGlite', pglite],
  ] as const) {
    if (typeof figures === 'string' || typeof figures.lifecycle === 'string') continue;
    const l = figures.lifecycle;
    observations.push(
      `${db} activation: ${integer(l.activation.total)} measured requests in ${l.activation.seconds.toFixed(3)} s (p50 ${wholeMs(l.activation.latencyMs.p50)}, p99 ${wholeMs(l.activation.latencyMs.p99)}); ${l.activationCheck}.`,
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
  if (detail.disturbedRuns.length > 0) {
    detail.notes.push(
      `other processes kept ≥ ${Math.round(OTHER_CPU_WARNING * 100)}% of a core busy during ${detail.disturbedRuns.length} runs, whose figures are lower and noisier than on a quiet machine: ${detail.disturbedRuns.join(', ')}`,
    );
  }
  if (!runState.httpProblems)
    console.log('  - every response was 2xx, no connection errors (429s would show here: the limits were raised)');
  for (const note of detail.notes) console.log(`  - ${note}`);
}
