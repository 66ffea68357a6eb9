import { sql } from 'kysely';
import type { Queryable } from './database.js';

/**
 * Inserts rows into `table` in one statement, in the order given, for batch writes. The rows travel
 * as one jsonb parameter (`columns`: each column's name and SQL type, `a integer, b text`), so the statement's text is the same
 * whatever the row count (prepared once) and stays far from the 65,535-parameter limit. Returns the
 * new rows' identities in the order given when `returnIds`: the rows are inserted in that order, so
 * their identities ascend with it.
 */
export async function insertJsonRows(
  db: Queryable,
  table: string,
  columns: string,
  rows: Array<Record<string, unknown>>,
  returnIds = false,
): Promise<number[]> {
  if (rows.length === 0) return [];
  const list = sql.raw(
    columns
      .split(',')
      .map((column) => column.trim().split(' ')[0])
      .join(', '),
  );
  const definition = sql.raw(columns);
  const inserted = await sql<{ id: number | string }>`
    insert into ${sql.raw(table)} (${list})
    select ${list} from jsonb_to_recordset(${JSON.stringify(rows.map((row, ord) => ({ ...row, ord })))}::jsonb) as r(ord integer, ${definition})
    order by ord
    ${returnIds ? sql`returning id` : sql``}`.execute(db);
  return returnIds ? inserted.rows.map((r) => Number(r.id)).sort((a, b) => a - b) : [];
}
