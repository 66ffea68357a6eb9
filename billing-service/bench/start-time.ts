/**
 * `npm run bench:start`: only the restart figures of the benchmark (scenarios/start-time.ts), on PGlite and on
 * PostgreSQL (BENCH_DATABASE_URL, else a throwaway cluster when PostgreSQL is installed), as `npm run bench` prints them.
 */
import { cleanup, log } from './harness.js';
import { loadAverage, machineDescription } from './machine.js';
import { createFreshDatabase, providePostgres } from './postgres.js';
import { benchStartTime, startTimeLines, type StartFigures } from './scenarios/start-time.js';

async function main() {
  console.log('Renew: restart time of the compiled api role (median of 3 starts each)');
  console.log(`Machine: ${machineDescription()}; load average before: ${loadAverage()}`);
  let postgres: StartFigures | string;
  try {
    const provision = await providePostgres(log);
    if ('skipped' in provision) postgres = `skipped: ${provision.skipped}`;
    else {
      cleanup.add('stop PostgreSQL', () => provision.server.stop());
      const database = await createFreshDatabase(provision.server.url);
      cleanup.add('drop the bench database', () => database.drop());
      postgres = await benchStartTime(database.url);
    }
    const pglite = await benchStartTime();
    console.log('');
    console.log('Restart time');
    for (const line of [...startTimeLines('PostgreSQL', postgres), ...startTimeLines('PGlite', pglite)]) console.log(line);
    console.log(`Load average after: ${loadAverage()}`);
  } finally {
    await cleanup.runAll();
  }
}

main().catch(async (error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  await cleanup.runAll();
  process.exit(1);
});
