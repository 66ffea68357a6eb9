import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Response as LightMyRequestResponse } from 'light-my-request';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { BulkPaymentWorker } from '../../src/bulk/bulk-worker.js';
import { loadConfig } from '../../src/config.js';
import { KNOWN_MIGRATIONS } from '../../src/db/migrate.js';
import { defaultLogStream, loggerOptions, prettyLogStream } from '../../src/http/logging.js';
import { MemoryRateLimitStore } from '../../src/http/rate-limit.js';
import { isLoopback } from '../../src/observability/observe.js';
import { BASE_URL, basicAuth, errorsOf, startTestApp, testCatalog, type TestApp } from '../helpers/test-app.js';
import { createTestDatabase } from '../helpers/test-database.js';
import { metricSample as sample, rateLimitHeaders } from '../helpers/api-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const TOKEN = 'metrics-token-0123456789';

async function scrape(app: FastifyInstance): Promise<string> {
  const res = await app.inject({ method: 'GET', url: '/metrics' });
  expect(res.statusCode, res.body).toBe(200);
  return res.body;
}

/** Polls /readyz until it answers `status` (and `also` holds); fails after 10 s. */
async function readyzUntil(app: FastifyInstance, status: number, also: (res: LightMyRequestResponse) => boolean = () => true) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    if (res.statusCode === status && also(res)) return res;
    if (Date.now() > deadline) throw new Error(`/readyz still answers ${res.statusCode}: ${res.body}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('GET /healthz and GET /readyz', () => {
  it('answer 200 JSON without an API key', async () => {
    const health = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
    expect(health.headers['content-type']).toMatch(/^application\/json/);
    expect(health.json()).toMatchObject({ status: 'ok', uptimeSeconds: expect.any(Number) });

    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode, ready.body).toBe(200);
    expect(ready.headers['content-type']).toMatch(/^application\/json/);
    expect(ready.json()).toEqual({
      status: 'ready',
      checks: {
        database: 'ok',
        migrations: 'ok',
        backgroundTasks: {
          'bulk payment worker': 'running',
          'webhook deliveries': 'running',
          'refund settlement': 'running',
          'credit note refunds': 'running',
          'gateway events': 'running',
        },
      },
    });
    // Operator endpoints, not part of the API reference.
    const paths = Object.keys((await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json().paths);
    expect(paths).toContain('/v1/customers');
    expect(paths.filter((path) => ['/healthz', '/readyz', '/metrics'].includes(path))).toEqual([]);
  });

  it('are never rate limited, with or without a key, while the same client is limited elsewhere', async () => {
    // One request a minute per key, and for failed authentication per client address.
    const tiny = testCatalog({ rateLimits: { perMinute: 1, perDay: 1 } });
    const app = await t.buildAnotherApp(tiny, new MemoryRateLimitStore());
    const account = await t.newAccount();
    await t.database.db
      .updateTable('accounts')
      .set({ rateLimitPerMinute: 1, rateLimitPerDay: 1 })
      .where('id', '=', account.accountId)
      .execute();
    const remoteAddress = '198.51.100.77';
    for (let i = 0; i < 15; i++) {
      for (const url of ['/healthz', '/readyz']) {
        const headers = i % 2 === 0 ? {} : { authorization: basicAuth(account.apiKey) };
        const res = await app.inject({ method: 'GET', url, headers, remoteAddress });
        expect(res.statusCode, `${url} #${i}: ${res.body}`).toBe(200);
        expect(rateLimitHeaders(res)).toEqual([]);
      }
    }
    // The limits are in force for this client and this key: a second try of an API route is refused.
    const first = await app.inject({ method: 'GET', url: '/v1/customers', remoteAddress });
    const second = await app.inject({ method: 'GET', url: '/v1/customers', remoteAddress });
    expect([first.statusCode, second.statusCode]).toEqual([401, 429]);
    const keyed = [];
    for (let i = 0; i < 2; i++)
      keyed.push(
        (await app.inject({ method: 'GET', url: '/v1/customers', headers: { authorization: basicAuth(account.apiKey) } })).statusCode,
      );
    expect(keyed).toEqual([200, 429]);
    // …and the probes still answer.
    expect((await app.inject({ method: 'GET', url: '/readyz', remoteAddress })).statusCode).toBe(200);
  });

  it('readyz answers from its last database check at once, while the database is busy, without waiting for it', async () => {
    const app = await t.buildAnotherApp();
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    // The check reads the migrations table: an exclusive lock on it holds any new check back.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = t.database.db.transaction().execute(async (trx) => {
      await sql`lock table kysely_migration in access exclusive mode`.execute(trx);
      locked();
      await released;
    });
    await isLocked;
    try {
      const answered = await Promise.race([
        app.inject({ method: 'GET', url: '/readyz' }).then((res) => res.statusCode),
        new Promise<string>((resolve) => setTimeout(() => resolve('still waiting'), 20_000)),
      ]);
      expect(answered).toBe(200);
    } finally {
      release();
      await holder;
    }
  });

  it('readyz answers 503 in the error shape, naming the task, when a background task is stopped', async () => {
    const app = await t.buildAnotherApp();
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    await (app.ctx.bulkWorker as BulkPaymentWorker).stop();
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(errorsOf(res)).toEqual([{ Key: 'backgroundTasks', Value: 'bulk payment worker is stopped', Code: 'internal_error' }]);
    // The process itself is fine.
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const metrics = await scrape(app);
    expect(sample(metrics, 'renew_background_task_running{task="bulk payment worker"}')).toBe(0);
  });

  it('lists every task it watches: the billing clock and the e-mail outbox too', async () => {
    const app = await buildApp({
      db: t.database.db,
      catalog: t.catalog,
      rateLimitStore: new MemoryRateLimitStore(),
      publicBaseUrl: BASE_URL,
      billingClockMs: 3_600_000,
      email: { smtpUrl: 'smtp://127.0.0.1:9', from: 'billing@test', pollMs: 3_600_000 },
    });
    try {
      const res = await app.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().checks.backgroundTasks).toEqual({
        'bulk payment worker': 'running',
        'e-mail outbox': 'running',
        'webhook deliveries': 'running',
        'refund settlement': 'running',
        'credit note refunds': 'running',
        'gateway events': 'running',
        'billing clock': 'running',
      });
    } finally {
      await app.close();
    }
  });

  it('readyz answers 503 when migrations are missing and when the database is closed', { timeout: 120_000 }, async () => {
    const database = await createTestDatabase();
    const app = await buildApp({
      db: database.db,
      catalog: t.catalog,
      rateLimitStore: new MemoryRateLimitStore(),
      publicBaseUrl: BASE_URL,
      bulkWorker: false,
    });
    try {
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);

      const last = KNOWN_MIGRATIONS[KNOWN_MIGRATIONS.length - 1]!;
      await sql`delete from kysely_migration where name = ${last}`.execute(database.db);
      // /readyz answers its last check (one a second): it turns within a check or two.
      const unmigrated = await readyzUntil(app, 503);
      expect(errorsOf(unmigrated)).toEqual([{ Key: 'migrations', Value: `not applied: ${last}`, Code: 'internal_error' }]);

      await database.close();
      const closed = await readyzUntil(app, 503, (res) => errorsOf(res)[0]?.Key === 'database');
      expect(closed.headers['content-type']).toMatch(/^application\/json/);
      expect(errorsOf(closed)).toEqual([{ Key: 'database', Value: 'the database did not answer', Code: 'database_unavailable' }]);
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      // The queue gauges read NaN (unknown) rather than failing the scrape.
      const metrics = await scrape(app);
      expect(metrics).toContain('renew_http_requests_total');
      expect(sample(metrics, 'renew_email_outbox_pending')).toBeNaN();
      expect(sample(metrics, 'renew_bulk_queue_records{status="pending"}')).toBeNaN();
    } finally {
      await app.close();
      await database.close().catch(() => undefined);
    }
  });

  it('answer over plain HTTP where HTTPS is required; the API and /metrics do not', async () => {
    const app = await buildApp({
      db: t.database.db,
      catalog: t.catalog,
      rateLimitStore: new MemoryRateLimitStore(),
      publicBaseUrl: BASE_URL,
      requireTls: true,
      bulkWorker: false,
    });
    try {
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      const metrics = await app.inject({ method: 'GET', url: '/metrics' });
      expect(metrics.statusCode).toBe(403);
      expect(errorsOf(metrics)[0]!.Value).toMatch(/HTTPS is required/);
      expect(
        (await app.inject({ method: 'GET', url: '/v1/customers', headers: { authorization: basicAuth(t.account.apiKey) } })).statusCode,
      ).toBe(403);
    } finally {
      await app.close();
    }
  });
});

describe('GET /metrics', () => {
  it('is Prometheus text; a request counts under its route pattern, method and status', async () => {
    const series = 'renew_http_requests_total{method="GET",route="/v1/customers/:customerId",status_code="404"}';
    const before = sample(await scrape(t.app), series) ?? 0;
    const res = await t.call('GET', '/v1/customers/987654');
    expect(res.statusCode).toBe(404);
    const after = await scrape(t.app);
    expect(sample(after, series)).toBe(before + 1);
    expect(after).not.toContain('987654');
    expect(
      sample(after, 'renew_http_request_duration_seconds_count{method="GET",route="/v1/customers/:customerId",status_code="404"}'),
    ).toBe(before + 1);

    const res2 = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(res2.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res2.body).toMatch(/^# HELP renew_http_requests_total /m);
    expect(res2.body).toMatch(/^# TYPE renew_http_request_duration_seconds histogram$/m);
  });

  it('counts a path no route serves as "unmatched", not by its URL', async () => {
    const before = sample(await scrape(t.app), 'renew_http_requests_total{method="GET",route="unmatched",status_code="404"}') ?? 0;
    await t.app.inject({ method: 'GET', url: '/no/such/path/55501' });
    const after = await scrape(t.app);
    expect(sample(after, 'renew_http_requests_total{method="GET",route="unmatched",status_code="404"}')).toBe(before + 1);
    expect(after).not.toContain('55501');
  });

  it('counts payments by outcome where they are recorded', async () => {
    const customer = (await t.call('POST', '/v1/customers', { firstName: 'Ada' })).json();
    const before = await scrape(t.app);
    const succeeded = sample(before, 'renew_payments_total{status="succeeded"}');
    const failed = sample(before, 'renew_payments_total{status="failed"}');
    expect(succeeded).toBeTypeOf('number');
    expect(failed).toBeTypeOf('number');

    expect((await t.call('POST', '/v1/payments', { customerId: customer.id, amount: 10, paymentMethod: 'Cash' })).statusCode).toBe(200);
    const card = await t.call('POST', '/v1/paymentmethods/creditcard', {
      customerId: customer.id,
      cardNumber: '4000000000000341',
      firstName: 'Ada',
      lastName: 'Lovelace',
      expirationMonth: 12,
      expirationYear: 30,
      cvv: '123',
    });
    expect(card.statusCode, card.body).toBe(200);
    const declined = await t.call('POST', '/v1/payments', { customerId: customer.id, amount: 5, paymentMethodId: card.json().id });
    expect(declined.statusCode).toBe(402);

    const after = await scrape(t.app);
    expect(sample(after, 'renew_payments_total{status="succeeded"}')).toBe(succeeded! + 1);
    expect(sample(after, 'renew_payments_total{status="failed"}')).toBe(failed! + 1);
  });

  it('shows the queues and the background tasks: state, runs', async () => {
    const app = await t.buildAnotherApp();
    const first = await scrape(app);
    expect(sample(first, 'renew_email_outbox_pending')).toBe(0);
    expect(sample(first, 'renew_bulk_queue_records{status="pending"}')).toBe(0);
    expect(sample(first, 'renew_bulk_queue_records{status="processing"}')).toBe(0);
    expect(sample(first, 'renew_background_task_running{task="bulk payment worker"}')).toBe(1);
    // The outbox gauge counts pending e-mails.
    const customer = (await t.call('POST', '/v1/customers', { firstName: 'Ada' })).json();
    await t.database.db
      .insertInto('emailOutbox')
      .values({
        accountId: t.account.accountId,
        customerId: customer.id,
        emailType: 'Test',
        toAddress: 'ada@example.com',
        subject: 's',
        body: 'b',
      })
      .execute();
    try {
      expect(sample(await scrape(app), 'renew_email_outbox_pending')).toBe(1);
    } finally {
      await t.database.db.deleteFrom('emailOutbox').where('customerId', '=', customer.id).execute();
    }
    (app.ctx.bulkWorker as BulkPaymentWorker).wake();
    await vi.waitFor(
      async () => {
        expect(sample(await scrape(app), 'renew_background_task_runs_total{task="bulk payment worker"}')).toBeGreaterThanOrEqual(1);
      },
      { timeout: 5_000 },
    );
    expect(sample(await scrape(app), 'renew_background_task_failures_total{task="bulk payment worker"}') ?? 0).toBe(0);
  });

  it('shows PostgreSQL pool usage when there are pools, and none on the embedded database', async () => {
    expect(await scrape(t.app)).not.toContain('renew_db_pool_connections');
    const app = await buildApp({
      db: t.database.db,
      catalog: t.catalog,
      rateLimitStore: new MemoryRateLimitStore(),
      publicBaseUrl: BASE_URL,
      bulkWorker: false,
      observability: {
        pools: { main: { totalCount: 7, idleCount: 3, waitingCount: 2 }, counters: { totalCount: 1, idleCount: 1, waitingCount: 0 } },
      },
    });
    try {
      const text = await scrape(app);
      expect(sample(text, 'renew_db_pool_connections{pool="main"}')).toBe(7);
      expect(sample(text, 'renew_db_pool_idle_connections{pool="main"}')).toBe(3);
      expect(sample(text, 'renew_db_pool_waiting_requests{pool="main"}')).toBe(2);
      expect(sample(text, 'renew_db_pool_connections{pool="counters"}')).toBe(1);
    } finally {
      await app.close();
    }
  });

  it('without a token, answers loopback clients only (403 in the error shape otherwise)', async () => {
    for (const remoteAddress of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) {
      expect((await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress })).statusCode, remoteAddress).toBe(200);
    }
    for (const remoteAddress of ['203.0.113.9', '10.0.0.5', '::ffff:10.0.0.5', '2001:db8::1']) {
      const res = await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress });
      expect(res.statusCode, remoteAddress).toBe(403);
      expect(errorsOf(res)[0]!.Value).toMatch(/loopback clients only.*RENEW_METRICS_TOKEN/);
      expect(res.body).not.toContain('renew_http_requests_total');
    }
    // Through a reverse proxy on the same host, the client it names is what counts.
    const proxied = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      remoteAddress: '127.0.0.1',
      headers: { 'x-forwarded-for': '203.0.113.9' },
    });
    expect(proxied.statusCode).toBe(403);
    // An API key is no substitute.
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: '/metrics',
          remoteAddress: '203.0.113.9',
          headers: { authorization: basicAuth(t.account.apiKey) },
        })
      ).statusCode,
    ).toBe(403);
  });

  it('with RENEW_METRICS_TOKEN, needs Authorization: Bearer <token> (401 without), from anywhere', async () => {
    const app = await buildApp({
      db: t.database.db,
      catalog: t.catalog,
      rateLimitStore: new MemoryRateLimitStore(),
      publicBaseUrl: BASE_URL,
      bulkWorker: false,
      observability: { metricsToken: TOKEN },
    });
    try {
      for (const authorization of [undefined, 'Bearer wrong-token-0123456789', `Basic ${TOKEN}`, basicAuth(t.account.apiKey)]) {
        const res = await app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
        expect(res.statusCode, String(authorization)).toBe(401);
        expect(errorsOf(res)[0]!.Value).toContain('Bearer');
        expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      }
      const ok = await app.inject({
        method: 'GET',
        url: '/metrics',
        remoteAddress: '203.0.113.9',
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(ok.statusCode).toBe(200);
      expect(ok.body).toContain('renew_http_requests_total');
      // The probes stay open.
      expect((await app.inject({ method: 'GET', url: '/readyz', remoteAddress: '203.0.113.9' })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it("keeps each app's counts in its own registry", async () => {
    const a = await t.buildAnotherApp();
    const b = await t.buildAnotherApp();
    await a.inject({ method: 'GET', url: '/healthz' });
    await a.inject({ method: 'GET', url: '/healthz' });
    const series = 'renew_http_requests_total{method="GET",route="/healthz",status_code="200"}';
    expect(sample(await scrape(a), series)).toBe(2);
    expect(sample(await scrape(b), series)).toBeUndefined();
  });
});

describe('configuration and logs', () => {
  it('reads RENEW_METRICS_TOKEN (at least 16 characters)', () => {
    expect(loadConfig({ RENEW_METRICS_TOKEN: TOKEN }).metricsToken).toBe(TOKEN);
    expect(loadConfig({}).metricsToken).toBeUndefined();
    expect(() => loadConfig({ RENEW_METRICS_TOKEN: 'short' })).toThrow(/RENEW_METRICS_TOKEN/);
  });

  it('loopback addresses', () => {
    expect(['127.0.0.1', '127.255.0.1', '::1', '::FFFF:127.0.0.1'].map(isLoopback)).toEqual([true, true, true, true]);
    expect(['128.0.0.1', '::2', '1127.0.0.1', '::ffff:10.0.0.1', undefined, ''].map(isLoopback)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('logs JSON lines when stdout is not a terminal, one readable line per entry when it is, redacted either way', async () => {
    expect(defaultLogStream(false)).toBeUndefined();
    expect(defaultLogStream(true)).toBeDefined();

    let output = '';
    const sink = new Writable({
      write(chunk, _enc, done) {
        output += String(chunk);
        done();
      },
    });
    const app = Fastify({ logger: loggerOptions('info', prettyLogStream(sink)) });
    app.log.info({ body: { cardNumber: '4242424242424242' } }, 'card received');
    await app.close();
    await vi.waitFor(() => expect(output).toContain('card received'));
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the ESC of terminal colour codes, removed on purpose
    output = output.replace(/\x1b\[[0-9;]*m/g, ''); // colours, when the terminal has them
    expect(output).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO/);
    expect(output.trim().split('\n')).toHaveLength(1);
    expect(output).toContain('[redacted]');
    expect(output).not.toContain('4242424242424242');

    let json = '';
    const jsonSink = new Writable({
      write(chunk, _enc, done) {
        json += String(chunk);
        done();
      },
    });
    const plain = Fastify({ logger: loggerOptions('info', jsonSink) });
    plain.log.info('hello');
    await plain.close();
    expect(JSON.parse(json.trim())).toMatchObject({ level: 30, msg: 'hello' });
  });
});
