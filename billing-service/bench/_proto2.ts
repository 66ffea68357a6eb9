import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadCatalog } from '../src/catalog/load-catalog.js';
import { DEMO_CATALOG_PATH } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { createBenchAccount } from './fixtures.js';
import { poolMaker } from './pools.js';
import { providePostgres, createFreshDatabase } from './postgres.js';

const catalog = loadCatalog(DEMO_CATALOG_PATH);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'proto-'));
{
  const handle = await openDatabase({ dataDir });
  const account = await createBenchAccount(handle.db, catalog);
  const maker = await poolMaker(handle.db, catalog, 1);
  for (const n of [50, 200]) {
    const t = performance.now();
    await maker.draftCustomers(account, n);
    console.log(`pglite pool ${n} in`, (performance.now() - t).toFixed(0));
  }
  await handle.close();
}
rmSync(dataDir, { recursive: true, force: true });
const p = await providePostgres(console.log);
if ('server' in p) {
  const database = await createFreshDatabase(p.server.url);
  for (const conc of [2, 4, 8]) {
    const handle = await openDatabase({ databaseUrl: database.url, poolSize: conc });
    const account = await createBenchAccount(handle.db, catalog);
    const maker = await poolMaker(handle.db, catalog, conc);
    await maker.draftCustomers(account, 30);
    const t = performance.now();
    await maker.draftCustomers(account, 200);
    console.log(`pg pool 200 conc ${conc} in`, (performance.now() - t).toFixed(0));
    await handle.close();
  }
  await database.drop();
  await p.server.stop();
}
