/**
 * Child process of the benchmark (started by server-process.ts): serves either
 * the billing API, built with buildApp exactly as src/main.ts does but with the
 * logger off, or the bare Fastify baseline. Reports its port over IPC and
 * closes when told to stop.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadCatalog } from '../src/catalog/load-catalog.js';
import { DEMO_CATALOG_PATH } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { MemoryRateLimitStore, PostgresRateLimitStore } from '../src/http/rate-limit.js';
import { SAMPLE_CUSTOMER } from './fixtures.js';
import type { ServerMessage, ServerSpec } from './server-process.js';

const send = (message: ServerMessage) => process.send?.(message);

async function start(spec: ServerSpec): Promise<{ app: FastifyInstance; close(): Promise<void> }> {
  if (spec.kind === 'bare') {
    const app = Fastify();
    app.get('/x', async () => SAMPLE_CUSTOMER);
    app.post('/x', async () => SAMPLE_CUSTOMER);
    return { app, close: () => app.close() };
  }
  const catalog = loadCatalog(DEMO_CATALOG_PATH);
  const database = await openDatabase(spec.database);
  const app = await buildApp({
    db: database.db,
    catalog,
    rateLimitStore: spec.rateLimitStore === 'postgres' ? new PostgresRateLimitStore(database.db) : new MemoryRateLimitStore(),
    publicBaseUrl: 'http://127.0.0.1',
    logger: false,
  });
  return {
    app,
    async close() {
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
  const address = server.app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

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
  send({ type: 'listening', port, startMs: performance.now() - started });
}

main().catch((error: unknown) => {
  const message: ServerMessage = { type: 'failed', message: error instanceof Error ? error.message : String(error) };
  if (process.send) process.send(message, () => process.exit(1));
  else process.exit(1);
});
