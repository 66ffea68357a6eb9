import { MAX_SQL_INTEGER } from '../http/field-schemas.js';

/**
 * Whether an id can name a row at all: ids are SQL `integer`, so one beyond it
 * cannot (and would be a database error). Lookups answer "not found" for it.
 */
export function isStorableId(id: number): boolean {
  return Number.isInteger(id) && id > 0 && id <= MAX_SQL_INTEGER;
}
