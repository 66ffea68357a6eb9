import { z } from 'zod';
import type { ListField } from './list-fields.js';
import { findField, isSortable } from './list-fields.js';
import { parseQuery, type QueryCondition } from './query-language.js';
import { QUERY_NOT_VALID, percentDecode, queryNotValid, quote, rawQueryParam } from './url-params.js';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 10000;
/** Keeps pageNumber × pageSize a safe integer and a valid SQL offset. */
export const MAX_PAGE_NUMBER = 2147483647;

export type SortOrder = 'Ascending' | 'Descending';

export interface ListSort {
  /** Canonical field name (as in the field list). */
  field: string;
  order: SortOrder;
}

/**
 * The list querystring, for route schemas and OpenAPI. Deliberately permissive
 * strings: the real checks are in parseListRequest so every mistake is the same
 * 400 'query not valid'. Routes should still read the values with
 * listInputFromUrl (raw `query`, case-insensitive names), not from request.query.
 */
export const ListQuerystring = z.object({
  query: z.string({ error: QUERY_NOT_VALID }).optional().describe('field:value pairs separated by ";"; see the list query rules'),
  pageSize: z.string({ error: QUERY_NOT_VALID }).optional().describe(`items per page, 1 to ${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE}`),
  pageNumber: z.string({ error: QUERY_NOT_VALID }).optional().describe('zero-based page number, default 0'),
  sortOrder: z.string({ error: QUERY_NOT_VALID }).optional().describe('Ascending or Descending; only together with sortExpression'),
  sortExpression: z.string({ error: QUERY_NOT_VALID }).optional().describe('field to sort on; only together with sortOrder'),
});
export type ListQuerystring = z.infer<typeof ListQuerystring>;

/** What parseListRequest reads; `query` must be the RAW (percent-encoded) value. */
export interface ListRequestInput {
  query?: string | null;
  pageSize?: string | number | null;
  pageNumber?: string | number | null;
  sortOrder?: string | null;
  sortExpression?: string | null;
}

export interface ListRequest {
  conditions: QueryCondition[];
  pageSize: number;
  pageNumber: number;
  sort: ListSort;
}

/**
 * The five list parameters of a request URL (Fastify `request.url`), names
 * matched case-insensitively; `query` stays raw, the others are decoded.
 */
export function listInputFromUrl(url: string): ListRequestInput {
  const decoded = (name: string) => {
    const raw = rawQueryParam(url, name);
    return raw === undefined ? undefined : percentDecode(raw);
  };
  return {
    query: rawQueryParam(url, 'query'),
    pageSize: decoded('pageSize'),
    pageNumber: decoded('pageNumber'),
    sortOrder: decoded('sortOrder'),
    sortExpression: decoded('sortExpression'),
  };
}

/**
 * Validates a list request. Empty parameters count as not given. Throws a 400
 * 'query not valid: …' ApiError for any client mistake.
 */
export function parseListRequest(input: ListRequestInput, fields: readonly ListField[], defaultSort: ListSort): ListRequest {
  if (!fields.some((f) => f.name === defaultSort.field)) {
    throw new Error(`default sort field ${defaultSort.field} is not in the field list`);
  }
  const conditions = parseQuery(input.query, fields);
  const pageSize = parseWhole(input.pageSize, 'pageSize', 1, MAX_PAGE_SIZE) ?? DEFAULT_PAGE_SIZE;
  const pageNumber = parseWhole(input.pageNumber, 'pageNumber', 0, MAX_PAGE_NUMBER) ?? 0;
  return { conditions, pageSize, pageNumber, sort: parseSort(input, fields) ?? defaultSort };
}

function parseSort(input: ListRequestInput, fields: readonly ListField[]): ListSort | undefined {
  const orderText = given(input.sortOrder);
  const expression = given(input.sortExpression);
  if (orderText === undefined && expression === undefined) return undefined;
  if (orderText === undefined || expression === undefined) {
    throw queryNotValid('sortOrder and sortExpression must be given together');
  }
  const lower = orderText.trim().toLowerCase();
  if (lower !== 'ascending' && lower !== 'descending') {
    throw queryNotValid(`sortOrder must be Ascending or Descending, not ${quote(orderText)}`);
  }
  const field = findField(fields, expression.trim());
  if (!field) throw queryNotValid(`unknown sortExpression ${quote(expression)}`);
  if (!isSortable(field)) throw queryNotValid(`cannot sort on ${field.name}`);
  return { field: field.name, order: lower === 'ascending' ? 'Ascending' : 'Descending' };
}

function given(value: string | null | undefined): string | undefined {
  return value == null || value.trim() === '' ? undefined : value;
}

function parseWhole(value: string | number | null | undefined, name: string, min: number, max: number): number | undefined {
  if (value == null) return undefined;
  const text = String(value).trim();
  if (text === '') return undefined;
  const bad = () => queryNotValid(`${name} must be a whole number from ${min} to ${max}`);
  if (!/^\d+$/.test(text)) throw bad();
  const n = Number(text);
  if (n < min || n > max) throw bad();
  return n;
}
