/**
 * Child process of the benchmark (started by server-process.ts): serves either
 * the billing API, built with buildApp exactly as src/main.ts does but with the
 * logger off, or the bare Fastify baseline. With `capture` it also runs the
 * card-capture host on the same database handle, started with
 * startCaptureService as `npm start` (scripts/start.ts) does. Reports its ports
 * over IPC and closes when told to stop.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { startCaptureService } from '@renew/capture-service/start';
import { loadCaptureConfig } from '@renew/capture-service/config';
import type { Catalog } from '../src/catalog/schema.js';
import { buildApp } from '../src/app.js';
import { loadCatalog } from '../src/catalog/load-catalog.js';
import { DEMO_CATALOG_PATH } from '../src/config.js';
import { openDatabase, type DatabaseHandle } from '../src/db/database.js';
import { MemoryRateLimitStore, PostgresRateLimitStore } from '../src/http/rate-limit.js';
import type { PaymentGateway } from '../src/gateway/payment-gateway.js';
import { SandboxGateway } from '../src/gateway/sandbox-gateway.js';
import { BENCH_RATE_LIMIT, SAMPLE_CUSTOMER } from './fixtures.js';
import type { CaptureSpec, ServerMessage, ServerSpec } from './server-process.js';

const send = (message: ServerMessage) => process.send?.(message);

/**
 * The capture host's configuration from the variables an operator would set:
 * CAPTCHA mode and siteverify URL and secret, and the per-client-address
 * limits raised out of the way (all load comes from 127.0.0.1).
 */
async function startCapture(spec: CaptureSpec, database: DatabaseHandle, catalog: Catalog, gateway: PaymentGateway) {
  const env: NodeJS.ProcessEnv = {
    RENEW_HOST: '127.0.0.1',
    RENEW_CAPTURE_PORT: '0',
    RENEW_LOG_LEVEL: 'silent',
    RENEW_CAPTURE_IP_PER_MINUTE: String(BENCH_RATE_LIMIT),
    RENEW_CAPTURE_IP_PER_DAY: String(BENCH_RATE_LIMIT),
    ...(spec.captcha === 'siteverify'
      ? { RENEW_CAPTCHA: 'google', RENEW_RECAPTCHA_VERIFY_URL: spec.verifyUrl, RENEW_RECAPTCHA_SECRET: spec.secret }
      : { RENEW_CAPTCHA: 'dev' }),
  };
  // the rate-limit store is startCaptureService's default: PostgreSQL-backed on PostgreSQL, in memory on PGlite
  return startCaptureService({
    database,
    catalog,
    config: loadCaptureConfig(env, catalog),
    gateway,
    publicBaseUrl: 'http://127.0.0.1',
    logger: false,
  });
}

async function start(spec: ServerSpec): Promise<{ app: FastifyInstance; capture?: FastifyInstance; close(): Promise<void> }> {
  if (spec.kind === 'bare-pg') {
    const pool = new pg.Pool({ connectionString: spec.databaseUrl, max: 10 });
    const app = Fastify();
    app.get<{ Params: { id: string } }>('/x/:id', async (request) => {
      const result = await pool.query({
        name: 'point_select',
        text: 'select * from customers where id = $1',
        values: [Number(request.params.id)],
      });
      return result.rows[0];
    });
    return {
      app,
      async close() {
        await app.close();
        await pool.end();
      },
    };
  }
  if (spec.kind === 'bare') {
    const app = Fastify();
    app.get('/x', async () => SAMPLE_CUSTOMER);
    app.post('/x', async () => SAMPLE_CUSTOMER);
    return { app, close: () => app.close() };
  }
  const catalog = loadCatalog(spec.catalogFile ?? DEMO_CATALOG_PATH);
  const database = await openDatabase(spec.database);
  // the sandbox gateway (the default), one instance shared by the billing API and the capture host as scripts/start.ts does
  const gateway = new SandboxGateway(database.db);
  const app = await buildApp({
    gateway,
    db: database.db,
    catalog,
    rateLimitStore: spec.rateLimitStore === 'postgres' ? new PostgresRateLimitStore(database.countersDb) : new MemoryRateLimitStore(),
    publicBaseUrl: 'http://127.0.0.1',
    logger: false,
    testClocks: spec.testClocks ?? false,
  });
  // The figures are of the spec's own capture, without a capture token: the bench opts in to draftOnly (the default is never).
  const captureCatalog: Catalog = { ...catalog, capture: { ...catalog.capture, tokenlessCapture: 'draftOnly' } };
  const capture = spec.capture ? (await startCapture(spec.capture, database, captureCatalog, gateway)).app : undefined;
  return {
    app,
    ...(capture ? { capture } : {}),
    async close() {
      await capture?.close();
      await app.close();
      await database.close();
    },
  };
}

async function main() {
  const started = performance.now();
  const spec = JSON.parse(process.argv[2] ?? '') as ServerSpec;
  const server = await start(spec);
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  const portOf = (app: FastifyInstance) => {
    const address = app.server.address();
    return typeof address === 'object' && address ? address.port : 0;
  };
  const port = portOf(server.app);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.close().catch(() => undefined);
    process.exit(0);
  };
  process.on('message', (message: { type?: string }) => {
    if (message?.type === 'stop') void stop();
  });
  // the benchmark died: do not linger
  process.on('disconnect', () => void stop());
  send({
    type: 'listening',
    port,
    ...(server.capture ? { capturePort: portOf(server.capture) } : {}),
    startMs: performance.now() - started,
  });
}

main().catch((error: unknown) => {
  const message: ServerMessage = { type: 'failed', message: error instanceof Error ? error.message : String(error) };
  if (process.send) process.send(message, () => process.exit(1));
  else process.exit(1);
});
