import { readFileSync } from 'node:fs';
import { buildApp } from './app.js';
import { ensureDefaultAccount } from './accounts/service.js';
import { loadCatalog } from './catalog/load-catalog.js';
import { loadConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { loggerOptions } from './http/logging.js';
import { MemoryRateLimitStore, PostgresRateLimitStore } from './http/rate-limit.js';

/** Reads the configuration, opens the database, creates the first account if needed, listens. */
async function main() {
  const config = loadConfig();
  const catalog = loadCatalog(config.catalogPath);
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const created = await ensureDefaultAccount(database.db, catalog, { apiKey: config.apiKey, publicApiKey: config.publicApiKey });

  const scheme = config.tls ? 'https' : 'http';
  const listenUrl = `${scheme}://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  const app = await buildApp({
    db: database.db,
    catalog,
    // Several instances on one PostgreSQL share one limit; the embedded database has one process.
    rateLimitStore: database.kind === 'postgres' ? new PostgresRateLimitStore(database.db) : new MemoryRateLimitStore(),
    publicBaseUrl: config.publicBaseUrl ?? listenUrl,
    requireTls: config.requireTls,
    trustProxy: config.trustProxy,
    logger: loggerOptions(config.logLevel),
    ...(config.tls ? { https: { cert: readFileSync(config.tls.certPath), key: readFileSync(config.tls.keyPath) } } : {}),
  });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing in-flight requests, then closing the database`);
    await app.close();
    await database.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  await app.listen({ host: config.host, port: config.port });

  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `${scheme}://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  if (!config.publicBaseUrl) app.ctx.uris.setBaseUrl(url);
  // One write, so that whoever reads the banner gets it whole.
  const banner = [
    `Renew billing API listening on ${url} (database: ${database.kind === 'postgres' ? 'PostgreSQL' : `embedded, ${config.dataDir}`})`,
    `API reference: ${url}/docs  OpenAPI: ${url}/v1/openapi.json`,
  ];
  if (created) {
    banner.push(
      `Created the default account "${created.account.name}".`,
      `  private API key: ${created.apiKey}`,
      `  public API key:  ${created.publicApiKey}`,
      '  Keys are stored hashed and not shown again; set RENEW_API_KEY / RENEW_PUBLIC_API_KEY before the first start to choose them.',
    );
  }
  console.log(banner.join('\n'));
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
