import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { ensureDefaultAccount, type CreatedAccount } from './accounts/service.js';
import { loadCatalog } from './catalog/load-catalog.js';
import type { Catalog } from './catalog/schema.js';
import { loadConfig, SANDBOX_IN_PRODUCTION_WARNING, type Config } from './config.js';
import { openDatabase, type DatabaseHandle } from './db/database.js';
import { loggerOptions } from './http/logging.js';
import { MemoryRateLimitStore, PostgresRateLimitStore } from './http/rate-limit.js';
import { gatewayFromConfig } from './payments/gateway/gateway-from-config.js';
import type { PaymentGateway } from './payments/gateway/payment-gateway.js';

export interface StartedBilling {
  config: Config;
  catalog: Catalog;
  database: DatabaseHandle;
  app: FastifyInstance;
  url: string;
  /** The payment gateway the billing API uses; the capture host shares it. */
  gateway: PaymentGateway;
  /** Set when this start created the default account: its keys, shown once. */
  created?: CreatedAccount;
  /** Stops listening (in-flight requests finish), then closes the database. */
  close(): Promise<void>;
}

export function formatUrl(scheme: string, host: string, port: number): string {
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Reads the configuration, opens the database, creates the first account if needed, listens. */
export async function startBillingService(env: NodeJS.ProcessEnv = process.env): Promise<StartedBilling> {
  const config = loadConfig(env);
  const catalog = loadCatalog(config.catalogPath);
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    onIdleConnectionError: (error) => console.error(`database: an idle connection was closed (${error.message}); it will be replaced`),
  });
  const created = await ensureDefaultAccount(database.db, catalog, { apiKey: config.apiKey, publicApiKey: config.publicApiKey });
  const scheme = config.tls ? 'https' : 'http';
  const gateway = gatewayFromConfig(config.gateway, database.db);
  const app = await buildApp({
    gateway,
    gatewayTimeoutMs: config.gateway.timeoutMs,
    billingClockMs: config.billingClockMs,
    testClocks: config.testClocks,
    webhooks: config.webhooks,
    ...(config.email ? { email: config.email } : {}),
    db: database.db,
    catalog,
    // Several instances on one PostgreSQL share one limit; the embedded database has one process.
    rateLimitStore: database.kind === 'postgres' ? new PostgresRateLimitStore(database.countersDb) : new MemoryRateLimitStore(),
    publicBaseUrl: config.publicBaseUrl ?? formatUrl(scheme, config.host, config.port),
    requireTls: config.requireTls,
    trustProxy: config.trustProxy,
    logger: loggerOptions(config.logLevel),
    observability: { ...(config.metricsToken ? { metricsToken: config.metricsToken } : {}), ...(database.pools ? { pools: database.pools } : {}), processMetrics: true },
    ...(config.tls ? { https: { cert: readFileSync(config.tls.certPath), key: readFileSync(config.tls.keyPath) } } : {}),
  });
  if (config.production && config.gateway.name === 'sandbox') app.log.warn(SANDBOX_IN_PRODUCTION_WARNING);
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const url = formatUrl(scheme, config.host, typeof address === 'object' && address ? address.port : config.port);
  // With port 0 the address is known only now.
  if (!config.publicBaseUrl) app.ctx.uris.setBaseUrl(url);
  return {
    config,
    catalog,
    database,
    app,
    url,
    gateway,
    ...(created ? { created } : {}),
    async close() {
      await app.close();
      await database.close();
    },
  };
}

/** What `npm start` prints: where it listens and, on the first start, the keys. One string, written at once. */
export function billingBanner(started: StartedBilling): string {
  const { url, database, config, created } = started;
  const lines = [
    `Renew billing API listening on ${url} (database: ${database.kind === 'postgres' ? 'PostgreSQL' : `embedded, ${config.dataDir}`})`,
    `API reference: ${url}/docs  OpenAPI: ${url}/v1/openapi.json`,
    `Health: ${url}/healthz  ${url}/readyz  Metrics: ${url}/metrics (${config.metricsToken ? 'Bearer RENEW_METRICS_TOKEN' : 'loopback only; set RENEW_METRICS_TOKEN to scrape from elsewhere'})`,
  ];
  if (created) {
    lines.push(
      `Created the default account "${created.account.name}".`,
      `  private API key: ${created.apiKey}`,
      `  public API key:  ${created.publicApiKey}`,
      '  Keys are stored hashed and not shown again; set RENEW_API_KEY / RENEW_PUBLIC_API_KEY before the first start to choose them.',
    );
  }
  return lines.join('\n');
}

/** Closes on SIGINT/SIGTERM: in-flight requests finish, then the database closes. */
export function stopOnSignals(close: () => Promise<void>) {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing in-flight requests, then closing the database`);
    try {
      await close();
      process.exit(0);
    } catch (error) {
      console.error(error);
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}
