import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { loadCatalog } from '../src/catalog/load-catalog.js';
import { DEMO_CATALOG_PATH } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { createBenchAccount } from './fixtures.js';
import { poolMaker } from './pools.js';
import { startServer } from './server-process.js';
import { httpRequest } from './load.js';

const catalog = loadCatalog(DEMO_CATALOG_PATH);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'proto-'));
const handle = await openDatabase({ dataDir });
const account = await createBenchAccount(handle.db, catalog);
const maker = await poolMaker(handle.db, catalog, 1);
let t = performance.now();
const ids = await maker.draftCustomers(account, 60);
console.log('pool 60 in', performance.now() - t);
await handle.close();
const server = await startServer({ kind: 'app', database: { dataDir }, rateLimitStore: 'memory' });
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const h = { authorization: account.authorization, 'content-type': 'application/json' };
for (let i = 0; i < 20; i++) {
  t = performance.now();
  const r = await httpRequest(agent, server.url, 'POST', '/v1/customeractivation?preview=true', h, JSON.stringify({ customerId: ids[i % 10] }));
  const d = performance.now() - t;
  t = performance.now();
  const g = await httpRequest(agent, server.url, 'GET', `/v1/customers/${ids[i % 10]}`, { authorization: account.authorization });
  console.log('preview', r.status, d.toFixed(1), 'get', g.status, (performance.now() - t).toFixed(1), i === 0 ? r.body.slice(0, 600) : '');
}
for (let i = 20; i < 40; i++) {
  t = performance.now();
  const r = await httpRequest(agent, server.url, 'POST', '/v1/customeractivation', h, JSON.stringify({ customerId: ids[i], activateAllSubscriptions: true, activateAllDraftPurchases: false, temporarilyDisableAutoPost: false }));
  console.log('activate', r.status, (performance.now() - t).toFixed(1), i === 20 ? r.body.slice(0, 300) : '');
}
agent.destroy();
await server.stop();
rmSync(dataDir, { recursive: true, force: true });
