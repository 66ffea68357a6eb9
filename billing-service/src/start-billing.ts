import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { findFirstAccount } from './accounts/repository.js';
import { ensureDefaultAccount, type CreatedAccount } from './accounts/service.js';
import { loadCatalog } from './catalog/load-catalog.js';
import type { Catalog } from './catalog/schema.js';
import { firstOwnerInvitation } from './console/operators/service.js';
import { loadConfig, SANDBOX_IN_PRODUCTION_WARNING, type Config } from './config.js';
import { reportConnectionBudget } from './db/connection-budget.js';
import { openDatabase, type DatabaseHandle } from './db/database.js';
import { loggerOptions } from './http/logging.js';
import { MemoryRateLimitStore, PostgresRateLimitStore } from './http/rate-limit.js';
import { gatewayFromConfig } from './gateway/gateway-from-config.js';
import type { PaymentGateway } from './gateway/payment-gateway.js';

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
  /** Set when the default account has no console operator yet: the first owner's one-use sign-up link (24 h). */
  consoleFirstOwnerLink?: string;
  /** Stops listening (in-flight requests finish), then closes the database. */
  close(): Promise<void>;
}

export function formatUrl(scheme: string, host: string, port: number): string {
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * What a process runs (`npm start -- <role>`): `all` the API and its background tasks (`npm start` adds
 * the capture host and the demo store); `api` the API without background tasks; `worker` the background
 * tasks (billing clock, bulk, e-mail and webhook workers) without listening on a port.
 */
export type BillingRole = 'all' | 'api' | 'worker';

/** What every role of a process reads and opens the same way: the configuration, the catalogue, the database, the gateway. */
export interface BillingResources {
  config: Config;
  catalog: Catalog;
  database: DatabaseHandle;
  gateway: PaymentGateway;
}

export async function openBillingResources(env: NodeJS.ProcessEnv = process.env): Promise<BillingResources> {
  const config = loadConfig(env);
  const catalog = loadCatalog(config.catalogPath);
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
    ...(config.databasePooler ? { pooler: config.databasePooler } : {}),
    onIdleConnectionError: (error) => console.error(`database: an idle connection was closed (${error.message}); it will be replaced`),
    ...(config.readDatabaseUrl
      ? {
          readStandby: {
            url: config.readDatabaseUrl,
            maxLagMs: config.readMaxLagSeconds * 1000,
            log: (message: string) => console.warn(`database: ${message}`),
          },
        }
      : {}),
  });
  await reportConnectionBudget(database, { instances: config.instances, staleAfterMs: config.claimStaleMs });
  return { config, catalog, database, gateway: gatewayFromConfig(config.gateway, database.db) };
}

/** Reads the configuration, opens the database, creates the first account if needed, listens (unless a worker). */
export async function startBillingService(env: NodeJS.ProcessEnv = process.env, role: BillingRole = 'all'): Promise<StartedBilling> {
  const { config, catalog, database, gateway } = await openBillingResources(env);
  const created = await ensureDefaultAccount(database.db, catalog, { apiKey: config.apiKey, publicApiKey: config.publicApiKey });
  const scheme = config.tls ? 'https' : 'http';
  const app = await buildApp({
    gateway,
    gatewayTimeoutMs: config.gateway.timeoutMs,
    billingClockMs: role === 'api' ? 0 : config.billingClockMs,
    // Heartbeats on the counters pool: a main pool busy with slow statements does not delay them.
    liveness: { staleAfterMs: config.claimStaleMs, heartbeatDb: database.countersDb },
    backgroundTasks: role !== 'api',
    role,
    testClocks: config.testClocks,
    webhooks: config.webhooks,
    console: config.console,
    ...(config.email ? { email: config.email } : {}),
    db: database.db,
    reads: database.reads,
    catalog,
    // Several instances on one PostgreSQL share one limit; the embedded database has one process.
    rateLimitStore: database.kind === 'postgres' ? new PostgresRateLimitStore(database.countersDb) : new MemoryRateLimitStore(),
    publicBaseUrl: config.publicBaseUrl ?? formatUrl(scheme, config.host, config.port),
    // Portal links point at the capture host; `npm start` sets its listening address once known.
    ...(config.capturePublicUrl ? { portalBaseUrl: config.capturePublicUrl } : {}),
    requireTls: config.requireTls,
    trustProxy: config.trustProxy,
    logger: loggerOptions(config.logLevel),
    observability: {
      ...(config.metricsToken ? { metricsToken: config.metricsToken } : {}),
      ...(database.pools ? { pools: database.pools } : {}),
      processMetrics: true,
    },
    ...(config.tls ? { https: { cert: readFileSync(config.tls.certPath), key: readFileSync(config.tls.keyPath) } } : {}),
  });
  if (config.production && config.gateway.name === 'sandbox') app.log.warn(SANDBOX_IN_PRODUCTION_WARNING);
  let url: string;
  let keepAlive: NodeJS.Timeout | undefined;
  if (role === 'worker') {
    // No port: ready() starts the background tasks. Links in e-mails and webhooks use the public address.
    await app.ready();
    // The tasks' timers do not hold the process open (tests end without closing them); a worker has nothing else.
    keepAlive = setInterval(() => undefined, 3_600_000);
    url = config.publicBaseUrl ?? formatUrl(scheme, config.host, config.port);
  } else {
    await app.listen({ host: config.host, port: config.port });
    const address = app.server.address();
    url = formatUrl(scheme, config.host, typeof address === 'object' && address ? address.port : config.port);
    // With port 0 the address is known only now.
    if (!config.publicBaseUrl) app.ctx.uris.setBaseUrl(url);
  }
  // No operator yet: the console's first owner signs up through a link printed once (a worker has no console).
  const defaultAccount = role === 'worker' ? undefined : await findFirstAccount(database.db);
  const consoleFirstOwnerLink = defaultAccount
    ? await firstOwnerInvitation(database.db, defaultAccount.id, config.publicBaseUrl ?? url)
    : undefined;
  return {
    config,
    catalog,
    database,
    app,
    url,
    gateway,
    ...(created ? { created } : {}),
    ...(consoleFirstOwnerLink ? { consoleFirstOwnerLink } : {}),
    async close() {
      clearInterval(keepAlive);
      await app.close();
      await database.close();
    },
  };
}

/** What `npm start` prints: where it listens and, on the first start, the keys. One string, written at once. */
export function billingBanner(started: StartedBilling, role: BillingRole = 'all'): string {
  const { url, database, config, created } = started;
  const databaseName = database.kind === 'postgres' ? 'PostgreSQL' : `embedded, ${config.dataDir}`;
  const lines =
    role === 'worker'
      ? [
          `Renew worker running (database: ${databaseName}): billing clock ${config.billingClockMs ? `every ${config.billingClockMs} ms` : 'off'}, bulk payments, webhook deliveries${config.email ? ', e-mail outbox' : ''}; no port`,
        ]
      : [
          `Renew billing API listening on ${url} (database: ${databaseName})${role === 'api' ? '; background tasks run in `npm start -- worker` processes' : ''}`,
          `API reference: ${url}/docs  OpenAPI: ${url}/v1/openapi.json`,
          `Health: ${url}/healthz  ${url}/readyz  Metrics: ${url}/metrics (${config.metricsToken ? 'Bearer RENEW_METRICS_TOKEN' : 'loopback only; set RENEW_METRICS_TOKEN to scrape from elsewhere'})`,
          started.consoleFirstOwnerLink
            ? `Console: ${config.publicBaseUrl ?? url}/console/ — first owner sign-in: ${started.consoleFirstOwnerLink}`
            : `Console: ${config.publicBaseUrl ?? url}/console/`,
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
