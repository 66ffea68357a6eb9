import type { FastifyInstance } from 'fastify';
import { CamelCasePlugin, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/database.js';
import { lsnOf, StaleReads } from '../../src/db/read-database.js';
import type { Database } from '../../src/db/schema.js';
import { MemoryRateLimitStore } from '../../src/http/rate-limit.js';
import { startConsoleReadsApp, type ConsoleReadsApp } from '../console/console-reads-app.js';
import { newCustomer } from '../helpers/api-fixtures.js';
import { BASE_URL } from '../helpers/test-app.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';

/*
 * Stale-tolerant console reads on a streaming standby (db/read-database.ts). The PostgreSQL pass of .ci/run starts
 * a standby of its cluster (pg_basebackup -R) and names it in TEST_DATABASE_STANDBY_URL (scripts/test-both-databases.sh
 * passes it on as RENEW_TEST_POSTGRES_STANDBY_URL); without it the second group is not run, and its name says so.
 */
const STANDBY_URL = process.env.RENEW_TEST_POSTGRES_STANDBY_URL;

async function eventually(check: () => Promise<boolean> | boolean, what: string, attempts = 300, pauseMs = 100) {
  for (let i = 0; i < attempts; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  throw new Error(`never happened: ${what}`);
}

/** Measures now, then tells whether reads go to `source`. */
async function sourceAfterCheck(reads: StaleReads, source: 'standby' | 'primary') {
  await reads.check();
  return reads.source() === source;
}

describe('stale-tolerant reads without a standby (both databases)', () => {
  it('positions compare as WAL positions, and without a standby every read goes to the primary', async () => {
    expect(lsnOf('16/B374D848') > lsnOf('16/B374D847')).toBe(true);
    expect(lsnOf('1/0') > lsnOf('0/FFFFFFFF')).toBe(true);
    const primary = {} as Kysely<Database>;
    const reads = new StaleReads(primary, undefined, { maxLagMs: 5_000 });
    await reads.start();
    expect(reads.source()).toBe('primary');
    expect(reads.db()).toBe(primary);
    await reads.close();
  });
});

describe.skipIf(!STANDBY_URL)(
  `console reads from a streaming standby (PostgreSQL with RENEW_TEST_POSTGRES_STANDBY_URL only${STANDBY_URL ? '' : ': not set on this pass, not run'})`,
  () => {
    let t: ConsoleReadsApp;
    let standbyDbUrl: string;
    let admin: pg.Client;
    const opened: Array<{ app: FastifyInstance; reads: StaleReads }> = [];

    const standbyDb = (url = standbyDbUrl) => {
      const pool = new pg.Pool({ connectionString: url, max: 2 });
      // As openDatabase does: an idle connection the standby (or the cut) drops is replaced, not a crash.
      pool.on('error', () => undefined);
      return new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins: [new CamelCasePlugin()] });
    };

    /** An app whose console reads go through a StaleReads on `url` (the standby, or a proxy in front of it). */
    async function appReadingFrom(maxLagMs: number, url = standbyDbUrl) {
      const reads = new StaleReads(t.database.db, standbyDb(url), { maxLagMs });
      await reads.start();
      const app = await buildApp({
        db: t.database.db,
        reads,
        catalog: t.catalog,
        rateLimitStore: new MemoryRateLimitStore(),
        publicBaseUrl: BASE_URL,
        backgroundTasks: false,
      });
      opened.push({ app, reads });
      t.app = app;
      return reads;
    }

    /** Console calls go to the app reading through `reads`. */
    const use = (reads: StaleReads) => {
      const found = opened.find((o) => o.reads === reads);
      if (found) t.app = found.app;
    };

    const searchIds = async (q: string) => {
      const body = await t.consoleRead<{ customers: Array<{ id: number }> }>(`/console/api/customers/search?q=${encodeURIComponent(q)}`);
      return body.customers.map((c) => c.id);
    };

    beforeAll(async () => {
      t = await startConsoleReadsApp({ app: { backgroundTasks: false } });
      const { rows } = await sql<{ name: string }>`select current_database() as name`.execute(t.database.db);
      const url = new URL(STANDBY_URL as string);
      url.pathname = `/${rows[0]?.name}`;
      standbyDbUrl = url.toString();
      admin = new pg.Client({ connectionString: STANDBY_URL });
      await admin.connect();
      // The new database reaches the standby once its creation is replayed.
      await eventually(async () => {
        const found = await admin.query('select 1 from pg_database where datname = $1', [rows[0]?.name]);
        return found.rowCount === 1;
      }, 'the test database on the standby');
      // The console's operators are signed in on the first app (their sessions are rows, good for every app).
      await t.consoleRead('/console/api/payments');
    });

    afterAll(async () => {
      await admin?.query('select pg_wal_replay_resume()').catch(() => undefined);
      await admin?.end();
      for (const { app, reads } of opened) {
        await app.close();
        await reads.close();
      }
      await t?.close();
    });

    it('a current standby serves the console list, which shows a row written on the primary once replicated', async () => {
      const reads = await appReadingFrom(60_000);
      await eventually(() => sourceAfterCheck(reads, 'standby'), 'the standby judged current');
      const sam = await newCustomer(t, { firstName: 'Standby', lastName: 'Sam' });
      await eventually(async () => (await searchIds('standby sam')).includes(sam), 'the new customer replicated and listed');
      expect(reads.source()).toBe('standby');
    });

    it('a paused standby within the bound is read (stale); past the bound the primary is, with fresh data', async () => {
      const strict = await appReadingFrom(500);
      const patient = await appReadingFrom(3_600_000);
      await eventually(() => sourceAfterCheck(patient, 'standby'), 'the standby judged current');
      await eventually(() => sourceAfterCheck(strict, 'standby'), 'the standby judged current by the strict one too');
      await admin.query('select pg_wal_replay_pause()');
      const pat = await newCustomer(t, { firstName: 'Paused', lastName: 'Pat' });
      await patient.check();
      expect(patient.source()).toBe('standby');
      // Served by the paused standby: the row written since is not there yet (so the read did go to the standby).
      expect(await searchIds('paused pat')).not.toContain(pat);

      // The primary has moved on (Pat's row) and the standby has not: once that is older than 0.5 s, reads leave it.
      await eventually(() => sourceAfterCheck(strict, 'primary'), 'the paused standby judged behind');
      use(strict);
      expect(await searchIds('paused pat')).toContain(pat);

      await admin.query('select pg_wal_replay_resume()');
      await eventually(() => sourceAfterCheck(strict, 'standby'), 'the resumed standby judged current again');
    });

    it('openDatabase with a read standby opens its pool and routes through it (RENEW_READ_DATABASE_URL)', async () => {
      const primaryUrl = new URL(standbyDbUrl);
      primaryUrl.port = new URL(process.env.RENEW_TEST_POSTGRES_URL as string).port;
      const handle = await openDatabase({
        databaseUrl: primaryUrl.toString(),
        poolSize: 2,
        readStandby: { url: standbyDbUrl, maxLagMs: 60_000 },
      });
      try {
        expect(Object.keys(handle.pools ?? {})).toContain('read');
        await eventually(() => sourceAfterCheck(handle.reads, 'standby'), 'the standby judged current');
        const { rows } = await sql<{ standby: boolean }>`select pg_is_in_recovery() as standby`.execute(handle.reads.db());
        expect(rows[0]?.standby).toBe(true);
      } finally {
        await handle.close();
      }
    });

    it('a standby that goes away sends the console list to the primary, never a 500', async () => {
      const standby = new URL(standbyDbUrl);
      const proxy = new TcpProxy(standby.hostname, Number(standby.port));
      await proxy.start();
      standby.port = String(proxy.port);
      const reads = await appReadingFrom(60_000, standby.toString());
      await eventually(() => sourceAfterCheck(reads, 'standby'), 'the standby judged current');
      await proxy.cut();
      const drew = await newCustomer(t, { firstName: 'Cut', lastName: 'Drew' });
      // Before the next check a read may still try the standby: a 503 with Retry-After then, not a 500.
      const first = await t.consoleCall('GET', `/console/api/customers/search?q=${encodeURIComponent('cut drew')}`);
      expect([200, 503]).toContain(first.statusCode);
      await reads.check();
      expect(reads.source()).toBe('primary');
      expect(await searchIds('cut drew')).toContain(drew);
      await proxy.close();
    });
  },
);
