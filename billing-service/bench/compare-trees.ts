/**
 * `npm run bench:compare`: one scenario on two checkouts of billing-service in ONE process, in alternating
 * short rounds, so that whatever else the machine runs weighs on both alike. Prints, per tree, the CPU per
 * operation of this process (app, Kysely, pg or PGlite: user + system time), on PostgreSQL also the CPU of
 * the database backends serving that tree's database (from /proc), and the statements each operation sends
 * (calls of pg's Client.query, counted per tree).
 *
 * A full `npm run bench` of each tree, one after the other, compares two separate runs; on a machine that
 * is not quiet the load differs between them by more than the difference looked for (issue 25: the same
 * pair of trees came out 40% apart in either direction). Interleaving is the cure.
 *
 *   BENCH_COMPARE_BEFORE  path of the other checkout's billing-service folder (with its node_modules), required
 *   BENCH_COMPARE_SCENARIO  get | post | payment | activation | bulk | capture (default post)
 *   BENCH_COMPARE_DATABASE_URL  a PostgreSQL server URL prefix: databases <prefix>_before and <prefix>_after
 *                               (with pg_stat_statements loaded, each tree's costliest statements are listed too)
 *                               must exist (empty); without it, each tree gets a PGlite directory of its own
 *   BENCH_COMPARE_ROUNDS (12), BENCH_COMPARE_OPS (operations per round; 100, bulk: jobs of 400 payments)
 *
 * Both trees are imported by path, so only the modules named in compare-setup.ts must exist in both.
 */
import path from 'node:path';
import { postgresBackendTicks, postgresDelta } from './cpu.js';
import { type CompareScenario, setupTree, type Tree, type TreeRun } from './compare-setup.js';
import { StatementCosts } from './statement-costs.js';

const before = process.env.BENCH_COMPARE_BEFORE;
if (!before) throw new Error('BENCH_COMPARE_BEFORE: the path of the other billing-service folder');
const trees: Tree[] = [
  { name: 'before', root: path.resolve(before) },
  { name: 'after', root: path.resolve(import.meta.dirname, '..') },
];
const scenario = (process.env.BENCH_COMPARE_SCENARIO ?? 'post') as CompareScenario;
const ROUNDS = Number(process.env.BENCH_COMPARE_ROUNDS ?? 12);
const OPS = Number(process.env.BENCH_COMPARE_OPS ?? (scenario === 'bulk' ? 1 : 100));
const WARMUP = scenario === 'bulk' ? 1 : 50;
const BULK_JOB = 400;
const databaseUrl = process.env.BENCH_COMPARE_DATABASE_URL;
/** The database each tree uses on PostgreSQL: its backends' CPU is that tree's database cost. */
const databaseName = (t: Tree) => (databaseUrl ? `${new URL(databaseUrl).pathname.slice(1)}_${t.name}` : undefined);

interface Samples {
  cpu: number[];
  postgresTicks: number;
  statements: number[];
}

const statements: Record<string, number> = {};
const runs: TreeRun[] = [];
for (const tree of trees) {
  const operations = WARMUP + ROUNDS * OPS;
  runs.push(await setupTree(tree, scenario, { databaseUrl, operations, bulkJob: BULK_JOB, statements }));
}
for (const run of runs) for (let i = 0; i < WARMUP; i++) await run.operation();
const statementCosts = databaseUrl ? await StatementCosts.open(databaseUrl) : undefined;

const samples: Record<string, Samples> = {
  before: { cpu: [], postgresTicks: 0, statements: [] },
  after: { cpu: [], postgresTicks: 0, statements: [] },
};
const perOperation = scenario === 'bulk' ? OPS * BULK_JOB : OPS;
for (let round = 0; round < ROUNDS; round++) {
  for (const run of round % 2 === 0 ? runs : [...runs].reverse()) {
    const name = run.tree.name;
    const own = samples[name] as Samples;
    const database = databaseName(run.tree);
    const statementsBefore = statements[name] ?? 0;
    const backendsBefore = database ? postgresBackendTicks(database) : undefined;
    const start = process.cpuUsage();
    for (let i = 0; i < OPS; i++) await run.operation();
    const used = process.cpuUsage(start);
    if (database && backendsBefore) own.postgresTicks += postgresDelta(backendsBefore, postgresBackendTicks(database));
    own.cpu.push((used.user + used.system) / perOperation);
    own.statements.push(((statements[name] ?? 0) - statementsBefore) / perOperation);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const minimum = (xs: number[]) => Math.min(...xs);
const unit = scenario === 'bulk' ? 'payment' : 'operation';
console.log(`${scenario}: ${ROUNDS} alternating rounds of ${OPS} ${scenario === 'bulk' ? `jobs of ${BULK_JOB}` : 'operations'} per tree`);
for (const name of ['before', 'after'] as const) {
  const own = samples[name] as Samples;
  // /proc counts in ticks of 10 ms: summed over every round, then divided, not a median of rounds
  const postgres = databaseUrl
    ? `; PostgreSQL CPU per ${unit}: ${((own.postgresTicks * 10_000) / (ROUNDS * perOperation)).toFixed(0)} µs`
    : '';
  console.log(
    `  ${name.padEnd(6)} CPU per ${unit}: min ${minimum(own.cpu).toFixed(0)} µs, median ${median(own.cpu).toFixed(0)} µs${postgres}; ` +
      `statements per ${unit}: median ${median(own.statements).toFixed(2)}`,
  );
  const database = databaseName({ name, root: '' });
  if (statementCosts && database) for (const line of await statementCosts.report(database, ROUNDS * perOperation)) console.log(line);
}
await statementCosts?.close();
for (const run of runs) await run.close();
process.exit(0);
