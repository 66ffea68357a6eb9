import type { FastifyReply } from 'fastify';
import type { SortOrder } from './list-request.js';

export interface ListPageInfo {
  pageNumber: number;
  pageSize: number;
  /** Rows matching the filter. */
  count: number;
  /** Rows without the filter. */
  maxCount: number;
  sortOrder: SortOrder;
  /** Canonical name of the field sorted on. */
  sortExpression: string;
}

/** The last page index: 0 when nothing matches, so page 0 always exists. */
export function maxPageIndex(count: number, pageSize: number): number {
  return count === 0 ? 0 : Math.ceil(count / pageSize) - 1;
}

/**
 * The nine pagination headers of the spec's Limits section.
 * X-NextPage is current + 1 while that page exists, else -1 (mirroring
 * X-PreviousPage). X-PreviousPage is the nearest existing page before the current
 * one (so past the end it points at the last page), -1 on page 0.
 */
export function listHeaders(info: ListPageInfo): Record<string, string> {
  const last = maxPageIndex(info.count, info.pageSize);
  const next = info.pageNumber < last ? info.pageNumber + 1 : -1;
  const previous = info.pageNumber > 0 ? Math.min(info.pageNumber - 1, last) : -1;
  return {
    'X-NextPage': String(next),
    'X-Count': String(info.count),
    'X-MaxCount': String(info.maxCount),
    'X-CurrentPage': String(info.pageNumber),
    'X-PreviousPage': String(previous),
    'X-PageSize': String(info.pageSize),
    'X-MaxPageIndex': String(last),
    'X-SortOrder': info.sortOrder,
    'X-SortExpression': info.sortExpression,
  };
}

/** Sets the pagination headers on a reply (only `header` is used, so any route's reply fits). */
export function setListHeaders(reply: Pick<FastifyReply, 'header'>, info: ListPageInfo): void {
  for (const [name, value] of Object.entries(listHeaders(info))) reply.header(name, value);
}
