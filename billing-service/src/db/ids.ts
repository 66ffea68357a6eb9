/** The largest value of an SQL `integer` column (ids, counts). */
export const MAX_SQL_INTEGER = 2147483647;

/**
 * Whether an id can name a row at all: ids are SQL `integer`, so one beyond it
 * cannot (and would be a database error). Lookups answer "not found" for it.
 */
export function isStorableId(id: number): boolean {
  return Number.isInteger(id) && id > 0 && id <= MAX_SQL_INTEGER;
}
