import net from 'node:net';
import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/service.js';
import { buildApp } from '../../src/app.js';
import { PeriodicTask } from '../../src/tasks/periodic-task.js';
import { isDatabaseUnavailable } from '../../src/db/connection-errors.js';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { PostgresRateLimitStore } from '../../src/http/rate-limit.js';
import { activate, newCustomer, newSubscription } from '../helpers/api-fixtures.js';
import { BASE_URL, basicAuth, errorsOf, startTestApp, testCatalog, type TestApp } from '../helpers/test-app.js';
import { createTestDatabase } from '../helpers/test-database.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';

const POSTGRES_URL = process.env.RENEW_TEST_POSTGRES_URL;

/** Uncaught exceptions while a test runs: a pg client's unhandled 'error' event lands here (and would end a real process). */
function watchUncaught() {
  const seen: Error[] = [];
  const listener = (error: Error) => seen.push(error);
  process.on('uncaughtException', listener);
  return { seen, stop: () => process.off('uncaughtException', listener) };
}

/** Polls `check` until it is true; fails after `attempts` tries (no timing is asserted, only an upper bound). */
async function eventually(check: () => Promise<boolean> | boolean, what: string, attempts = 200, pauseMs = 100) {
  for (let i = 0; i < attempts; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  throw new Error(`never happened: ${what}`);
}

/** A closed local port: nothing listens on it. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Log lines (pino JSON) written by an app or a task. */
class LogLines extends Writable {
  readonly lines: Array<{ level: number; msg: string }> = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void) {
    for (const line of chunk.toString().split('\n')) if (line.trim()) this.lines.push(JSON.parse(line));
    done();
  }
  at(level: number, containing: string) {
    return this.lines.filter((l) => l.level === level && l.msg.includes(containing));
  }
}
const WARN = 40;
const ERROR = 50;

describe('a lost or refused database connection is recognised (both databases)', () => {
  it('a refused connection, a connect timeout and an ended connection are "unavailable"; a refused statement is not', async () => {
    const refused = await new pg.Client({ host: '127.0.0.1', port: await closedPort() }).connect().catch((e: unknown) => e);
    expect(isDatabaseUnavailable(refused)).toBe(true);

    // A server that accepts but never answers: the pool gives up after its connection timeout.
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
    const pool = new pg.Pool({ host: '127.0.0.1', port: (silent.address() as net.AddressInfo).port, connectionTimeoutMillis: 200 });
    const timedOut = await pool.connect().catch((e: unknown) => e);
    await pool.end();
    // A server that accepts then hangs up mid-handshake.
    const hangUp = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => hangUp.listen(0, '127.0.0.1', () => resolve()));
    const ended = await new pg.Client({ host: '127.0.0.1', port: (hangUp.address() as net.AddressInfo).port })
      .connect()
      .catch((e: unknown) => e);
    silent.close();
    hangUp.close();
    expect(isDatabaseUnavailable(timedOut)).toBe(true);
    expect(isDatabaseUnavailable(ended)).toBe(true);

    const database = await createTestDatabase();
    try {
      const syntax = await sql`select from nowhere_at_all`.execute(database.db).catch((e: unknown) => e);
      const shutdown = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
      expect(isDatabaseUnavailable(syntax)).toBe(false);
      expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
      expect(isDatabaseUnavailable(shutdown)).toBe(true);
      // A session ended for idling in a transaction (a frozen holder), a lock wait given up: retry later.
      expect(isDatabaseUnavailable(Object.assign(new Error('idle-in-transaction timeout'), { code: '25P03' }))).toBe(true);
      expect(isDatabaseUnavailable(Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' }))).toBe(true);
    } finally {
      await database.close();
    }
  });

  it.runIf(POSTGRES_URL)(
    'a frozen process holds nothing for long: idle-in-transaction and lock waits are bounded on every session',
    async () => {
      const database = await createTestDatabase();
      try {
        const setting = async (name: string) =>
          (await sql<{ value: string }>`select current_setting(${name}) as value`.execute(database.db)).rows[0]!.value;
        expect(await setting('idle_in_transaction_session_timeout')).toBe('30s');
        expect(await setting('lock_timeout')).toBe('20s');
        // A lock held by a session that stopped: the waiter gives up (503) rather than queue behind it for ever.
        const admin = new pg.Client({
          connectionString: POSTGRES_URL!.replace(
            /\/[^/]*$/,
            `/${(await sql<{ name: string }>`select current_database() as name`.execute(database.db)).rows[0]!.name}`,
          ),
        });
        await admin.connect();
        try {
          await admin.query('create table frozen_lock_probe (id int primary key); insert into frozen_lock_probe values (1)');
          await admin.query('begin');
          await admin.query('select id from frozen_lock_probe where id = 1 for update');
          const waited = await database.db
            .transaction()
            .execute(async (trx) => {
              await sql`set local lock_timeout = '200ms'`.execute(trx);
              await sql`select id from frozen_lock_probe where id = 1 for update`.execute(trx);
            })
            .catch((e: unknown) => e);
          expect(isDatabaseUnavailable(waited)).toBe(true);
          await admin.query('rollback');
        } finally {
          await admin.end();
        }
      } finally {
        await database.close();
      }
    },
  );

  it('a background task whose database is away warns once, backs off, and says when it resumes', async () => {
    const log = new LogLines();
    const logger: FastifyBaseLogger = Fastify({ logger: { level: 'info', stream: log } as never }).log;
    const refusedPort = await closedPort();
    let up = false;
    let runs = 0;
    const task = new PeriodicTask(
      'test task',
      20,
      async () => {
        runs++;
        if (!up) await new pg.Client({ host: '127.0.0.1', port: refusedPort }).connect();
      },
      logger,
    );
    task.start();
    try {
      await eventually(() => runs >= 4, 'four failed runs');
      expect(log.at(ERROR, 'test task')).toEqual([]);
      expect(log.at(WARN, 'test task: the database is unavailable')).toHaveLength(1);
      up = true;
      await eventually(() => log.lines.some((l) => l.msg === 'test task: the database answers again; resumed'), 'the task resumes');
      expect(task.isRunning).toBe(true);
    } finally {
      await task.stop();
    }
  });
});

describe.runIf(POSTGRES_URL)('PostgreSQL terminates the connections in use (pg_terminate_backend, a fast shutdown)', () => {
  let t: TestApp;
  let admin: pg.Client;
  let uncaught: ReturnType<typeof watchUncaught>;

  beforeEach(async () => {
    t = await startTestApp();
    const name = (await sql<{ name: string }>`select current_database() as name`.execute(t.database.db)).rows[0]!.name;
    const url = new URL(POSTGRES_URL!);
    url.pathname = `/${name}`;
    admin = new pg.Client({ connectionString: url.toString() });
    await admin.connect();
    uncaught = watchUncaught();
  });
  afterEach(async () => {
    uncaught.stop();
    await admin.end();
    await t.close();
  });

  it('the request in flight gets 503, the process lives on, and the next request is served', async () => {
    const customerId = await newCustomer(t);
    await newSubscription(t, customerId);
    // The activation waits for the customer's row lock, held here, so its connection is busy when it is cut.
    await admin.query('begin');
    await admin.query('select id from customers where id = $1 for update', [customerId]);
    const inFlight = activate(t, customerId);
    await eventually(async () => {
      const waiting = await admin.query("select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'");
      return waiting.rowCount! > 0;
    }, 'the activation waits for the lock');

    const killed = await admin.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    expect(killed.rowCount).toBeGreaterThan(0);
    const res = await inFlight;
    expect(res.statusCode, res.body).toBe(503);
    expect(errorsOf(res)).toEqual([{ Key: 'Api Error', Value: 'the database is unavailable; retry later', Code: 'database_unavailable' }]);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    await admin.query('rollback');

    const again = await activate(t, customerId);
    expect(again.statusCode, again.body).toBe(200);
    expect((await t.call('GET', `/v1/customers/${customerId}`)).json().status).toBe('Active');
    expect(uncaught.seen).toEqual([]);
  });
});

// Directly connected only: through PgBouncer the sessions that met the read-only server are PgBouncer's, not
// Renew's to drop (in production the router cuts them as the primary changes: README "High availability").
describe.runIf(POSTGRES_URL && !process.env.RENEW_TEST_PGBOUNCER_URL)(
  'a failover: connections still open to a server that became read-only',
  () => {
    let t: TestApp;
    let admin: pg.Client;
    let name: string;

    beforeEach(async () => {
      t = await startTestApp();
      name = (await sql<{ name: string }>`select current_database() as name`.execute(t.database.db)).rows[0]!.name;
      const url = new URL(POSTGRES_URL!);
      url.pathname = `/${name}`;
      admin = new pg.Client({ connectionString: url.toString() });
      await admin.connect();
    });
    afterEach(async () => {
      await admin.query(`alter database "${name}" reset default_transaction_read_only`);
      await admin.end();
      await t.close();
    });

    it('a write refused as read-only is 503, never 500, and the next write after the switch reaches a writable server', async () => {
      const create = () => t.call('POST', '/v1/customers', { firstName: 'Ada', lastName: 'Failover' });
      expect((await create()).statusCode).toBe(200);
      // What a demoted primary looks like to the pool: every session it opens refuses writes (25006).
      await admin.query(`alter database "${name}" set default_transaction_read_only = on`);
      await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
      );
      const during = [];
      for (let i = 0; i < 12; i++) during.push(await create());
      expect(during.map((res) => res.statusCode)).toEqual(during.map(() => 503));
      expect(errorsOf(during.at(-1)!)[0]!.Code).toBe('database_unavailable');

      // The new primary takes writes: a connection that met the read-only server was not kept, so the
      // first write now succeeds (a pool that kept them would answer 503 until they idled out).
      await admin.query(`alter database "${name}" reset default_transaction_read_only`);
      const after = [];
      for (let i = 0; i < 3; i++) after.push((await create()).statusCode);
      expect(after).toEqual([200, 200, 200]);
    });
  },
);

describe.runIf(POSTGRES_URL)('the database vanishes and comes back (a TCP proxy cut)', () => {
  let base: DatabaseHandle;
  let proxy: TcpProxy;
  let database: DatabaseHandle;
  let app: FastifyInstance;
  const log = new LogLines();
  let apiKey: string;

  afterAll(async () => {
    await app?.close();
    await database?.close();
    await proxy?.close();
    await base?.close();
  });

  it('requests answer 503 and /readyz 503 while it is away, workers back off, and all serve again once it is back', async () => {
    base = await createTestDatabase();
    const name = (await sql<{ name: string }>`select current_database() as name`.execute(base.db)).rows[0]!.name;
    const server = new URL(POSTGRES_URL!);
    proxy = new TcpProxy(server.hostname, Number(server.port || 5432));
    await proxy.start();
    const proxied = new URL(POSTGRES_URL!);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    proxied.pathname = `/${name}`;
    database = await openDatabase({ databaseUrl: proxied.toString(), poolSize: 5, connectionTimeoutMs: 1_000 });
    const catalog = testCatalog();
    app = await buildApp({
      db: database.db,
      catalog,
      rateLimitStore: new PostgresRateLimitStore(database.countersDb),
      publicBaseUrl: BASE_URL,
      billingClockMs: 50,
      bulkWorker: { pollMs: 50 },
      webhooks: { pollMs: 50 },
      logger: { level: 'info', stream: log } as never,
    });
    apiKey = (await createAccount(database.db, catalog)).apiKey;
    const uncaught = watchUncaught();
    try {
      const customers = () => app.inject({ method: 'GET', url: '/v1/customers', headers: { authorization: basicAuth(apiKey) } });
      const ready = () => app.inject({ method: 'GET', url: '/readyz' });
      expect((await customers()).statusCode).toBe(200);
      expect((await ready()).statusCode).toBe(200);

      await proxy.cut();
      for (let i = 0; i < 3; i++) {
        const res = await customers();
        expect(res.statusCode, res.body).toBe(503);
        expect(errorsOf(res)).toEqual([
          { Key: 'Api Error', Value: 'the database is unavailable; retry later', Code: 'database_unavailable' },
        ]);
        expect(res.headers['retry-after']).toBeDefined();
      }
      // /readyz answers its last database check (one a second): it turns within a check or two.
      let notReady = await ready();
      await eventually(async () => {
        notReady = await ready();
        return notReady.statusCode === 503;
      }, '/readyz is 503');
      expect(errorsOf(notReady)).toContainEqual({ Key: 'database', Value: 'the database did not answer', Code: 'database_unavailable' });
      const tasks = ['bulk payment worker', 'webhook deliveries', 'billing clock'];
      await eventually(
        () => tasks.every((task) => log.at(WARN, `${task}: the database is unavailable`).length > 0),
        'every worker notices',
      );
      // Several ticks while away: still one warning each, no error per tick.
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (const task of tasks) {
        expect(log.at(WARN, `${task}: the database is unavailable`), task).toHaveLength(1);
        expect(log.at(ERROR, task), task).toEqual([]);
      }

      await proxy.restore();
      await eventually(async () => (await ready()).statusCode === 200, '/readyz is 200 again');
      expect((await customers()).statusCode).toBe(200);
      await eventually(
        () => tasks.every((task) => log.lines.some((l) => l.msg === `${task}: the database answers again; resumed`)),
        'every worker resumes',
      );
      expect(log.at(ERROR, 'internal server error')).toEqual([]);
      expect(uncaught.seen).toEqual([]);
    } finally {
      uncaught.stop();
    }
  }, 60_000);
});
