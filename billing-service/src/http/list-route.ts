import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SelectQueryBuilder } from 'kysely';
import type { Database } from '../db/schema.js';
import { listInputFromUrl, parseListRequest, runList, setListHeaders, type ListField, type ListSort } from './lists/index.js';

export { ListQuerystring } from './lists/index.js';

export interface ListRouteSpec<Row, Item> {
  fields: readonly ListField[];
  defaultSort: ListSort;
  /** Already scoped to the caller's account (and parent, for child lists). */
  baseQuery: SelectQueryBuilder<Database, any, Row>;
  /** Tiebreaker for stable pages, e.g. 'customers.id'. */
  idColumn: string;
  /** The base query's row count from a count the writes maintain (e.g. `countCustomers`); without it, `count(*)`. */
  unfilteredCount?: () => Promise<number>;
  /** The page's rows as the API returns them (batch: one more query for the whole page at most). */
  toResponses: (rows: Row[]) => Item[] | Promise<Item[]>;
}

/** Every list endpoint in one place: parse query/paging/sort, run it, set the nine X-* headers. */
export async function listRoute<Row, Item>(request: FastifyRequest, reply: FastifyReply, spec: ListRouteSpec<Row, Item>): Promise<Item[]> {
  const listRequest = parseListRequest(listInputFromUrl(request.url), spec.fields, spec.defaultSort);
  const result = await runList(request.server.ctx.db, spec.baseQuery, listRequest, spec.fields, spec.idColumn, spec.unfilteredCount);
  setListHeaders(reply, {
    pageNumber: listRequest.pageNumber,
    pageSize: listRequest.pageSize,
    count: result.count,
    maxCount: result.maxCount,
    sortOrder: listRequest.sort.order,
    sortExpression: listRequest.sort.field,
  });
  return spec.toResponses(result.rows);
}
