/**
 * `npm run bench:pooler`: what PgBouncer's transaction mode costs Renew (README "PgBouncer"). The customer read
 * (GET /v1/customers/{id}, two joins and three subqueries) and a customer create, one at a time through the real
 * app: with named prepared statements on a direct connection (the default), with unnamed statements on the same
 * direct connection (what RENEW_DATABASE_POOLER=pgbouncer changes, without PgBouncer's own hop), and through
 * PgBouncer when BENCH_PGBOUNCER_URL names one in front of BENCH_DATABASE_URL's server. Rounds alternate so a
 * change in the machine's load touches every mode; the median of the rounds is printed.
 */
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadCatalog } from '../src/catalog/load-catalog.js';
import { DEMO_CATALOG_PATH } from '../src/config.js';
import { openDatabase, type DatabaseHandle } from '../src/db/database.js';
import { MemoryRateLimitStore } from '../src/http/rate-limit.js';
import { createBenchAccount, NEW_CUSTOMER_BODY, seedCustomers } from './fixtures.js';
import { createFreshDatabase } from './postgres.js';

const directUrl = process.env.BENCH_DATABASE_URL;
const pgbouncerUrl = process.env.BENCH_PGBOUNCER_URL;
const ROUNDS = 7;
const READS = 400;
const CREATES = 100;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

async function main() {
  if (!directUrl) {
    console.log('BENCH_DATABASE_URL is not set: nothing to measure');
    return;
  }
  const database = await createFreshDatabase(directUrl);
  const catalog = loadCatalog(DEMO_CATALOG_PATH);
  const seed = await openDatabase({ databaseUrl: database.url, poolSize: 2 });
  const account = await createBenchAccount(seed.db, catalog);
  await seedCustomers(seed.db, account.accountId, 2_000);
  await seed.close();
  const through = (base: string) => {
    const url = new URL(base);
    url.pathname = new URL(database.url).pathname;
    return url.toString();
  };
  const opened: Array<{ name: string; handle: DatabaseHandle }> = [
    { name: 'named, direct', handle: await openDatabase({ databaseUrl: database.url, poolSize: 2, pooler: 'none' }) },
    { name: 'unnamed, direct', handle: await openDatabase({ databaseUrl: database.url, poolSize: 2, pooler: 'pgbouncer' }) },
  ];
  if (pgbouncerUrl)
    opened.push({
      name: 'unnamed, PgBouncer',
      handle: await openDatabase({ databaseUrl: through(pgbouncerUrl), poolSize: 2, pooler: 'pgbouncer' }),
    });
  const headers = { authorization: `Basic ${account.apiKey}`, 'content-type': 'application/json' };
  const modes: Array<{ name: string; handle: DatabaseHandle; app: FastifyInstance }> = [];
  for (const mode of opened)
    modes.push({
      ...mode,
      app: await buildApp({
        db: mode.handle.db,
        catalog,
        rateLimitStore: new MemoryRateLimitStore(),
        publicBaseUrl: 'http://bench.test',
        backgroundTasks: false,
      }),
    });
  const reads = new Map<string, number[]>();
  const creates = new Map<string, number[]>();
  for (let round = 0; round <= ROUNDS; round++) {
    for (const mode of modes) {
      const app = mode.app;
      let started = performance.now();
      for (let i = 0; i < READS; i++) {
        const res = await app.inject({ method: 'GET', url: `/v1/customers/${1 + ((i * 37) % 2_000)}`, headers });
        if (res.statusCode !== 200) throw new Error(`GET answered ${res.statusCode}: ${res.body}`);
      }
      const readMicros = ((performance.now() - started) * 1000) / READS;
      started = performance.now();
      for (let i = 0; i < CREATES; i++) {
        const res = await app.inject({ method: 'POST', url: '/v1/customers', headers, payload: NEW_CUSTOMER_BODY });
        if (res.statusCode !== 200) throw new Error(`POST answered ${res.statusCode}: ${res.body}`);
      }
      const createMicros = ((performance.now() - started) * 1000) / CREATES;
      // round 0 warms up (plans, caches, JIT)
      if (round > 0) {
        reads.set(mode.name, [...(reads.get(mode.name) ?? []), readMicros]);
        creates.set(mode.name, [...(creates.get(mode.name) ?? []), createMicros]);
      }
    }
  }
  console.log(`median of ${ROUNDS} rounds, one request at a time (µs per request, wall clock)`);
  for (const mode of modes)
    console.log(
      `${mode.name.padEnd(20)} GET customer ${Math.round(median(reads.get(mode.name) ?? []))} µs   POST customer ${Math.round(median(creates.get(mode.name) ?? []))} µs`,
    );
  for (const mode of modes) {
    await mode.app.close();
    await mode.handle.close();
  }
  await database.drop();
}

await main();
