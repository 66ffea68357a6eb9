/** Generic list support: query language, paging, sorting and headers for every list endpoint. */
export type { ListField, ListFieldType } from './list-fields.js';
export { findField } from './list-fields.js';
export type { QueryCondition } from './query-language.js';
export { parseQuery, parseDate, MAX_CONDITIONS, MAX_VALUE_LENGTH, MIN_INTEGER, MAX_INTEGER } from './query-language.js';
export { rawQueryParam, percentDecode, QUERY_NOT_VALID } from './url-params.js';
export type { ListRequest, ListRequestInput, ListSort, SortOrder } from './list-request.js';
export {
  ListQuerystring,
  parseListRequest,
  listInputFromUrl,
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  MAX_PAGE_NUMBER,
} from './list-request.js';
export type { ListResult } from './run-list.js';
export { runList, conditionSql, likePattern } from './run-list.js';
export type { ListPageInfo } from './list-headers.js';
export { setListHeaders, listHeaders, maxPageIndex } from './list-headers.js';
