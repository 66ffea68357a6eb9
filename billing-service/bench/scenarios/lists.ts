/**
 * Figures 4a-4d: the two filtered, sorted list pages over HTTP, one request at
 * a time, beside the same runList() queries run in the benchmark process.
 */
import type { Catalog } from '../../src/catalog/schema.js';
import { customerListFields } from '../../src/customers/list-fields.js';
import { selectCustomerRecords } from '../../src/customers/repository.js';
import type { Db } from '../../src/db/database.js';
import { listInputFromUrl, parseListRequest, runList } from '../../src/http/lists/index.js';
import { LIST_QUERIES, type BenchAccount } from '../fixtures.js';
import { SETTINGS, expectOk, latencyRow, log, sequentialHttp } from '../harness.js';
import { measureLoop, type LoopResult, type SequentialHttpResult } from '../load.js';
import { integer } from '../report.js';
import type { RunningServer } from '../server-process.js';

const DEFAULT_SORT = { field: 'Id', order: 'Ascending' } as const;

/** One list page over HTTP, one request at a time. */
async function sequentialList(
  label: string,
  server: RunningServer,
  account: BenchAccount,
  query: (typeof LIST_QUERIES)[number],
  postgresDatabase?: string,
) {
  await expectOk(server, 'GET', query.path, { authorization: account.authorization });
  const result = await sequentialHttp(
    label,
    server,
    SETTINGS.listSeconds,
    { path: query.path, headers: { authorization: account.authorization } },
    postgresDatabase,
  );
  const matched = `X-Count ${integer(Number(result.lastHeaders['x-count']))} of ${integer(Number(result.lastHeaders['x-maxcount']))}`;
  latencyRow(label, result, `${matched}; non-2xx ${integer(result.non2xx)}`);
  return result;
}

/** The list endpoint's own database work (runList: filtered count, total count, page), without HTTP. */
async function directList(
  label: string,
  db: Db,
  catalog: Catalog,
  accountId: number,
  query: (typeof LIST_QUERIES)[number],
  postgresDatabase?: string,
) {
  const now = new Date();
  const fields = customerListFields(catalog)(now);
  const request = parseListRequest(listInputFromUrl(query.path), fields, DEFAULT_SORT);
  log(`${label}: in-process runList(), ${SETTINGS.listSeconds} s`);
  const result = await measureLoop(
    () => runList(db, selectCustomerRecords(db, accountId, now), request, fields, 'customers.id'),
    SETTINGS.listSeconds,
    SETTINGS.loopWarmupSeconds,
    { postgresDatabase },
  );
  latencyRow(label, result, 'same SQL as the endpoint, no HTTP');
  return result;
}

/** Every list query in the benchmark process (`<db> list N, SQL only (runList)`). */
export async function benchDirectLists(
  db: string,
  handle: Db,
  catalog: Catalog,
  accountId: number,
  postgresDatabase?: string,
): Promise<LoopResult[]> {
  const results: LoopResult[] = [];
  for (const [i, query] of LIST_QUERIES.entries()) {
    results.push(await directList(`${db} list ${i + 1}, SQL only (runList)`, handle, catalog, accountId, query, postgresDatabase));
  }
  return results;
}

/** Every list query over HTTP on a running server (`<db> list N, HTTP`). */
export async function benchHttpLists(
  db: string,
  app: RunningServer,
  account: BenchAccount,
  postgresDatabase?: string,
): Promise<SequentialHttpResult[]> {
  const results: SequentialHttpResult[] = [];
  for (const [i, query] of LIST_QUERIES.entries())
    results.push(await sequentialList(`${db} list ${i + 1}, HTTP`, app, account, query, postgresDatabase));
  return results;
}
