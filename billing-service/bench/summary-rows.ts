/**
 * The rows of the two summary tables of the report: each figure of this run
 * beside its baseline and target (one builder per target), and the CPU per
 * request beside the targets of issue 17.
 */
import type { DatabaseFigures, LifecycleFigures, PgliteFigures, PostgresFigures } from './databases.js';
import { CAPTURE_COLLECTION_AMOUNT, LIST_QUERIES, SEEDED_CUSTOMERS } from './fixtures.js';
import { integer, metText, ms, percent, rate, wholeMs, type SummaryRow } from './report.js';
import type { BareFigures } from './scenarios/bare.js';
import { BULK_RECORDS } from './scenarios/bulk.js';

const GET_TARGET = 0.3;
const PGLITE_GET_TARGET = 0.6;
const LIST_P50_TARGET_MS = 30;
const PREVIEW_P50_TARGET_MS = 10;
const CAPTURE_TARGET_RPS = 300;

type DatabaseName = 'PostgreSQL' | 'PGlite';
/** Figures of one database, or why they are missing, with the letter its targets carry (3a, 3b, …). */
type PerDatabase<T> = ReadonlyArray<readonly [suffix: string, db: DatabaseName, figures: T | string]>;
/** The figures of both databases, each with its letter. */
function byDatabase<T>(postgres: T | string, pglite: T | string): PerDatabase<T> {
  return [
    ['a', 'PostgreSQL', postgres],
    ['b', 'PGlite', pglite],
  ];
}
/** What a builder fills in of a row whose figures are there. */
type Measured = Pick<SummaryRow, 'result' | 'baseline' | 'ratio' | 'met'>;

const skipped = (target: string, measurement: string, reason: string, goal: string): SummaryRow => ({
  target,
  measurement,
  result: 'skipped',
  baseline: reason,
  ratio: '—',
  goal,
  met: '—',
});

/** One row per database for target `number`: skipped with the reason when its figures are missing. */
function perDatabase<T>(
  databases: PerDatabase<T>,
  number: string,
  measurementOf: (db: DatabaseName) => string,
  goalOf: (db: DatabaseName) => string,
  measured: (figures: T, db: DatabaseName) => Measured,
): SummaryRow[] {
  return databases.map(([suffix, db, figures]) => {
    const target = `${number}${suffix}`;
    const measurement = measurementOf(db);
    const goal = goalOf(db);
    if (typeof figures === 'string') return skipped(target, measurement, figures, goal);
    return { target, measurement, ...measured(figures, db), goal };
  });
}

/** 1: GET on PostgreSQL, as a share of bare Fastify's GET. */
function getPostgresRow(bare: BareFigures, postgres: PostgresFigures | string): SummaryRow {
  const measurement = 'GET /v1/customers/{id}, PostgreSQL';
  if (typeof postgres === 'string') return skipped('1', measurement, postgres, `≥ ${percent(GET_TARGET)} of bare`);
  const ratio = postgres.get.requestsPerSecond / bare.get.requestsPerSecond;
  return {
    target: '1',
    measurement,
    result: rate(postgres.get.requestsPerSecond),
    baseline: `bare Fastify GET ${rate(bare.get.requestsPerSecond)}`,
    ratio: percent(ratio),
    goal: `≥ ${percent(GET_TARGET)}`,
    met: metText(ratio >= GET_TARGET),
  };
}

/** 2: GET on PGlite, as a share of PGlite's own point selects. */
function getPgliteRow(pglite: PgliteFigures | string): SummaryRow {
  const measurement = 'GET /v1/customers/{id}, PGlite';
  if (typeof pglite === 'string') return skipped('2', measurement, pglite, `≥ ${percent(PGLITE_GET_TARGET)} of point selects`);
  const ratio = pglite.get.requestsPerSecond / pglite.pointSelect.perSecond;
  return {
    target: '2',
    measurement,
    result: rate(pglite.get.requestsPerSecond),
    baseline: `pglite.query point select ${rate(pglite.pointSelect.perSecond, 'q/s')}`,
    ratio: percent(ratio),
    goal: `≥ ${percent(PGLITE_GET_TARGET)}`,
    met: metText(ratio >= PGLITE_GET_TARGET),
  };
}

/** 3a, 3b: POST, reported beside bare Fastify's GET. */
function postRows(bare: BareFigures, databases: PerDatabase<DatabaseFigures>): SummaryRow[] {
  return perDatabase(
    databases,
    '3',
    (db) => `POST /v1/customers, ${db}`,
    () => 'report',
    (figures) => ({
      result: rate(figures.post.requestsPerSecond),
      baseline: `bare Fastify GET ${rate(bare.get.requestsPerSecond)}`,
      ratio: percent(figures.post.requestsPerSecond / bare.get.requestsPerSecond),
      met: '—',
    }),
  );
}

/** 4a, 4b: the list pages on PostgreSQL (with the target); 4c, 4d: on PGlite (reported). */
function listRows(firstLetter: string, db: string, lists: DatabaseFigures['lists'] | string, hasTarget: boolean): SummaryRow[] {
  return LIST_QUERIES.map((_query, i) => {
    const target = `4${String.fromCharCode(firstLetter.charCodeAt(0) + i)}`;
    const figures = typeof lists === 'string' ? undefined : lists?.[i];
    const measurement = `List ${i + 1} (page of 100 of ${integer(SEEDED_CUSTOMERS)}), ${db}`;
    const goal = hasTarget ? `p50 ≤ ${LIST_P50_TARGET_MS} ms` : 'report';
    if (!figures) return skipped(target, measurement, typeof lists === 'string' ? lists : 'see notes', goal);
    const p50 = figures.http.latencyMs.p50;
    return {
      target,
      measurement,
      result: `p50 ${ms(p50)}, p95 ${ms(figures.http.latencyMs.p95)}`,
      baseline: `SQL only p50 ${ms(figures.direct.latencyMs.p50)}`,
      ratio: `${(p50 / figures.direct.latencyMs.p50).toFixed(2)}×`,
      goal,
      met: hasTarget ? metText(p50 <= LIST_P50_TARGET_MS) : '—',
    };
  });
}

/** 5: activation preview, one at a time (the 10 ms target is the embedded database's). */
function previewRows(lifecycles: PerDatabase<LifecycleFigures>): SummaryRow[] {
  return perDatabase(
    lifecycles,
    '5',
    (db) => `Activation preview (3 Draft subscriptions), ${db}`,
    (db) => (db === 'PGlite' ? `p50 ≤ ${PREVIEW_P50_TARGET_MS} ms` : 'report'),
    (lifecycle, db) => {
      const p50 = lifecycle.preview.latencyMs.p50;
      return {
        result: `p50 ${ms(p50)}, p95 ${ms(lifecycle.preview.latencyMs.p95)}`,
        baseline: `GET /v1/customers/{id} one at a time p50 ${ms(lifecycle.previewGet.latencyMs.p50)}`,
        ratio: `${(p50 / lifecycle.previewGet.latencyMs.p50).toFixed(2)}×`,
        met: db === 'PGlite' ? metText(p50 <= PREVIEW_P50_TARGET_MS) : '—',
      };
    },
  );
}

/** 6: activation throughput, a fresh Draft customer per request. */
function activationRows(bare: BareFigures, lifecycles: PerDatabase<LifecycleFigures>): SummaryRow[] {
  return perDatabase(
    lifecycles,
    '6',
    (db) => `Activation (fresh customer, 3 subscriptions), ${db}`,
    () => 'report',
    ({ activation }) => ({
      result: `${rate(activation.requestsPerSecond)}, p50 ${wholeMs(activation.latencyMs.p50)}`,
      baseline: `bare Fastify POST ${rate(bare.post.requestsPerSecond)}`,
      ratio: percent(activation.requestsPerSecond / bare.post.requestsPerSecond),
      met: '—',
    }),
  );
}

/** 7: card capture with a collection, on the capture host. */
function captureRows(bare: BareFigures, lifecycles: PerDatabase<LifecycleFigures>): SummaryRow[] {
  return perDatabase(
    lifecycles,
    '7',
    (db) => `POST /api/paymentsv2 + ${CAPTURE_COLLECTION_AMOUNT} collection, ${db}`,
    () => `≥ ${CAPTURE_TARGET_RPS} req/s`,
    ({ capture }) => {
      // only successful captures count toward the target
      const okRate = capture.ok / capture.seconds;
      return {
        result: `${rate(okRate)}, ${integer(capture.non2xx)} non-2xx`,
        baseline: `bare Fastify POST ${rate(bare.post.requestsPerSecond)}`,
        ratio: percent(okRate / bare.post.requestsPerSecond),
        met: metText(okRate >= CAPTURE_TARGET_RPS),
      };
    },
  );
}

/** 8: bulk payments, no target named: reported beside the same payments one at a time. */
function bulkRows(lifecycles: PerDatabase<LifecycleFigures>): SummaryRow[] {
  return perDatabase(
    lifecycles,
    '8',
    (db) => `Bulk job of ${integer(BULK_RECORDS)} Cash payments, ${db}`,
    () => 'report',
    ({ bulk: b }) => ({
      result: `${rate(b.perSecond, 'payments/s')} (${integer(b.records)} paid, ${b.status}; submit ${wholeMs(b.submitMs)})`,
      baseline: `POST /v1/payments one at a time ${rate(b.sequentialPerSecond, 'payments/s')}`,
      ratio: percent(b.perSecond / b.sequentialPerSecond),
      met: '—',
    }),
  );
}

export function summaryRows(bare: BareFigures, postgres: PostgresFigures | string, pglite: PgliteFigures | string): SummaryRow[] {
  const lifecycleOf = (figures: PostgresFigures | PgliteFigures | string) => (typeof figures === 'string' ? figures : figures.lifecycle);
  const lifecycles = byDatabase(lifecycleOf(postgres), lifecycleOf(pglite));
  return [
    getPostgresRow(bare, postgres),
    getPgliteRow(pglite),
    ...postRows(bare, byDatabase<DatabaseFigures>(postgres, pglite)),
    ...listRows('a', 'PostgreSQL', typeof postgres === 'string' ? postgres : postgres.lists, true),
    ...listRows('c', 'PGlite', typeof pglite === 'string' ? pglite : pglite.lists, false),
    ...previewRows(lifecycles),
    ...activationRows(bare, lifecycles),
    ...captureRows(bare, lifecycles),
    ...bulkRows(lifecycles),
  ];
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

const µs = (n: number) => (Number.isFinite(n) ? `${integer(n)} µs` : '—');

/** C1: the GET's server CPU per request beside the floor's (bare Fastify + one prepared pg point select). */
function cpuGetRow(postgres: PostgresFigures): SummaryRow {
  const floor = postgres.pointSelectFloor;
  const floorServer = microsPerRequest(floor.cpu?.server, floor.requestsPerSecond);
  const getServer = microsPerRequest(postgres.get.cpu?.server, postgres.get.requestsPerSecond);
  const getRate = postgres.get.requestsPerSecond / floor.requestsPerSecond;
  return {
    target: 'C1',
    measurement: 'GET /v1/customers/{id}, server CPU per request',
    result: `${µs(getServer)} + pg ${µs(microsPerRequest(postgres.get.cpu?.postgres, postgres.get.requestsPerSecond))}, ${rate(postgres.get.requestsPerSecond)}`,
    baseline: `floor ${µs(floorServer)} + pg ${µs(microsPerRequest(floor.cpu?.postgres, floor.requestsPerSecond))}, ${rate(floor.requestsPerSecond)}`,
    ratio: `${(getServer / floorServer).toFixed(2)}×, ${percent(getRate)}`,
    goal: `≤ ${CPU_TARGETS.getServerOverFloor}×, ≥ ${percent(CPU_TARGETS.getRateOfFloor)}`,
    met: metText(getServer <= CPU_TARGETS.getServerOverFloor * floorServer && getRate >= CPU_TARGETS.getRateOfFloor),
  };
}

/** C2–C4: server and backend CPU per request of one run beside their targets. */
function cpuRow(
  target: string,
  measurement: string,
  result: { cpu?: { server: number; postgres: number }; requestsPerSecond: number },
  goal: { server: number; postgres: number },
): SummaryRow {
  const server = microsPerRequest(result.cpu?.server, result.requestsPerSecond);
  const backends = microsPerRequest(result.cpu?.postgres, result.requestsPerSecond);
  return {
    target,
    measurement,
    result: `${µs(server)} + pg ${µs(backends)}`,
    baseline: '—',
    ratio: '—',
    goal: `≤ ${integer(goal.server)} + ${integer(goal.postgres)} µs`,
    met: metText(server <= goal.server && backends <= goal.postgres),
  };
}

/** C5a, C5b: bulk payments per second beside their targets; no row for a database without them. */
function cpuBulkRows(databases: PerDatabase<DatabaseFigures>): SummaryRow[] {
  return databases.flatMap(([suffix, db, figures]) => {
    if (typeof figures === 'string' || typeof figures.lifecycle === 'string') return [];
    const goal = CPU_TARGETS.bulkPerSecond[db];
    return {
      target: `C5${suffix}`,
      measurement: `Bulk payments, ${db}`,
      result: rate(figures.lifecycle.bulk.perSecond, 'payments/s'),
      baseline: '—',
      ratio: '—',
      goal: `≥ ${integer(goal)}/s`,
      met: metText(figures.lifecycle.bulk.perSecond >= goal),
    };
  });
}

/** CPU per request beside the targets of issue 17, each from this run (the 1,000,000-customer list is BENCH_SCALE=1's). */
export function cpuTargetRows(postgres: PostgresFigures | string, pglite: PgliteFigures | string): SummaryRow[] {
  const rows: SummaryRow[] = [];
  if (typeof postgres !== 'string') {
    rows.push(cpuGetRow(postgres));
    rows.push(cpuRow('C2', 'POST /v1/customers, server + pg CPU per request', postgres.post, CPU_TARGETS.post));
    if (typeof postgres.lifecycle !== 'string') {
      rows.push(
        cpuRow('C3', 'Activation (3 subscriptions), server + pg CPU per request', postgres.lifecycle.activation, CPU_TARGETS.activation),
        cpuRow('C4', 'Capture with collection, server + pg CPU per request', postgres.lifecycle.capture, CPU_TARGETS.capture),
      );
    }
  }
  return [...rows, ...cpuBulkRows(byDatabase<DatabaseFigures>(postgres, pglite))];
}
