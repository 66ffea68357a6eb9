/**
 * Benchmark of the billing service (npm run bench). One run measures every
 * figure next to a baseline taken in the same run, prints a table, and exits 0
 * even when a target is missed. See bench/README.md.
 *
 * This file runs the parts in order: the bare baselines, then every scenario
 * on PostgreSQL (with the usage-billing ones, issue 41) and on PGlite (databases.ts, one file per scenario in
 * scenarios/), then the report (summary.ts). The shared machinery (settings,
 * server processes, autocannon runs, clean-up) is in harness.ts.
 */
import { loadCatalog } from '../src/catalog/load-catalog.js';
import { DEMO_CATALOG_PATH } from '../src/config.js';
import { benchPglite, benchPostgres, type PgliteFigures, type PostgresFigures } from './databases.js';
import { cleanup, detail, log, orFailure, runState } from './harness.js';
import { loadAverage, machineDescription, packageVersion } from './machine.js';
import { createFreshDatabase, providePostgres } from './postgres.js';
import { benchBare, type BareFigures } from './scenarios/bare.js';
import { benchStartTime, startTimeLines, type StartFigures } from './scenarios/start-time.js';
import { startSiteverifyStandIn, type SiteverifyStandIn } from './siteverify.js';
import type { Catalog } from '../src/catalog/schema.js';
import { integer } from './report.js';
import { benchGrowth, growthSizes, growthTable, type GrowthRow } from './scenarios/growth.js';
import { printLatencyDetail, printReport } from './summary.js';
import { benchUsageIngest } from './scenarios/usage-ingest.js';
import { benchUsageRenewal } from './scenarios/usage-renewal.js';

async function main() {
  console.log('Renew billing-service benchmark');
  console.log(`Machine: ${machineDescription()}`);
  console.log(
    `Load average before the run: ${loadAverage()} (other processes on the machine share its cores and skew the figures; see "other" below)`,
  );
  console.log(
    `Server under test: buildApp() in a child Node process (tsx), logger off, on 127.0.0.1 at a random port, next to the card-capture host ` +
      `(startCaptureService on the same database handle, as npm start runs it); ` +
      `load from autocannon ${packageVersion('autocannon')} in this process (so server and load generator each have a core).`,
  );
  console.log('');

  const stopOnSignal = (signal: NodeJS.Signals) => {
    runState.interrupted = true;
    console.error(`\n${signal}: cleaning up`);
    void cleanup.runAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);

  const catalog = loadCatalog(DEMO_CATALOG_PATH);
  // the capture host's CAPTCHA check talks the siteverify protocol over HTTP to this stand-in
  const siteverify = await startSiteverifyStandIn();
  cleanup.add('stop the siteverify stand-in', () => siteverify.stop());
  if (process.env.BENCH_SCALE === '1') {
    await runGrowth(catalog);
    return;
  }
  let bare: BareFigures | undefined;
  let postgres: PostgresPart | string = 'not run';
  let pglite: PgliteFigures | string = 'not run';
  let startPglite: StartFigures | string = 'not run';
  try {
    bare = await benchBare();
    postgres = await orFailure('PostgreSQL figures', 'PostgreSQL', () => postgresPart(catalog, siteverify));
    pglite = await orFailure('PGlite figures', 'PGlite', async () => {
      if (runState.interrupted) throw new Error('interrupted');
      return benchPglite(catalog, siteverify);
    });
    startPglite = await orFailure('restart time (PGlite)', 'PGlite restart', () => benchStartTime());
  } finally {
    await cleanup.runAll();
  }
  log(`done; load average now ${loadAverage()}`);

  const {
    figures,
    start: startPostgres,
    usage,
  } = typeof postgres === 'string' ? { figures: postgres, start: postgres, usage: [] } : postgres;
  printReport(bare, figures, pglite);
  console.log('');
  console.log('Restart time (compiled api role, spawn to the first 200 on /readyz, median of 3; npm run bench:start runs only this)');
  for (const line of [...startTimeLines('PostgreSQL', startPostgres), ...startTimeLines('PGlite', startPglite)]) console.log(line);
  for (const section of usage) console.log(`\n${section}`);
  if (runState.failed) process.exitCode = 1;
}

interface PostgresPart {
  figures: PostgresFigures | string;
  /** Restart time of the compiled api role (scenarios/start-time.ts). */
  start: StartFigures | string;
  /** Usage-based billing (issue 41): events/s beside a bare INSERT and the 1,000,000-event read; 1,000 metered renewals. */
  usage: string[];
}

/** Every PostgreSQL figure, on one throwaway cluster. */
async function postgresPart(catalog: Catalog, siteverify: SiteverifyStandIn): Promise<PostgresPart | string> {
  if (runState.interrupted) throw new Error('interrupted');
  const provision = await providePostgres(log);
  if ('skipped' in provision) {
    detail.notes.push(`PostgreSQL figures skipped: ${provision.skipped}`);
    log(`PostgreSQL skipped: ${provision.skipped}`);
    return 'no PostgreSQL';
  }
  cleanup.add('stop PostgreSQL', () => provision.server.stop());
  log(`PostgreSQL: ${provision.server.description}`);
  const figures = await benchPostgres(provision.server, catalog, siteverify);
  const start = await orFailure('restart time (PostgreSQL)', 'PostgreSQL restart', async () => {
    const database = await createFreshDatabase(provision.server.url);
    cleanup.add('drop the restart-time database', () => database.drop());
    return benchStartTime(database.url);
  });
  const usage: string[] = [];
  for (const [what, scenario] of [
    ['usage events', benchUsageIngest],
    ['metered renewals', benchUsageRenewal],
  ] as const) {
    usage.push(await orFailure(`${what} figures`, what, () => scenario(provision.server)));
  }
  await provision.server.stop();
  return { figures, start, usage };
}

/** BENCH_SCALE=1: only the growth section (scenarios/growth.ts), on PostgreSQL. */
async function runGrowth(catalog: Catalog) {
  let rows: GrowthRow[] | string = 'not run';
  try {
    const provision = await providePostgres(log);
    if ('skipped' in provision) {
      rows = `skipped: ${provision.skipped}`;
    } else {
      cleanup.add('stop PostgreSQL', () => provision.server.stop());
      log(`PostgreSQL: ${provision.server.description}`);
      rows = await orFailure('growth figures', 'growth', () => benchGrowth(provision.server, catalog));
    }
  } finally {
    await cleanup.runAll();
  }
  log(`done; load average now ${loadAverage()}`);
  console.log('');
  console.log(`Growth (PostgreSQL, one request at a time, ${growthSizes().map(integer).join(' / ')} customers; ms)`);
  console.log(typeof rows === 'string' ? `  ${rows}` : growthTable(rows));
  printLatencyDetail(true);
  if (runState.failed) process.exitCode = 1;
}

main().catch(async (error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  await cleanup.runAll();
  process.exit(1);
});
