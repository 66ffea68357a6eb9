import { CompiledQuery, type Compilable } from 'kysely';
import type { Queryable } from './database.js';

/** Stands for the builder's n-th argument while the query is compiled the first time. */
class Slot {
  constructor(readonly index: number) {}
}

/**
 * A query of fixed shape that Kysely builds and compiles once; every later call
 * only binds new parameter values. Building and compiling a Kysely query (node
 * tree, camel-case transform, SQL text) costs the server more CPU than a
 * prepared point select costs PostgreSQL, so hot reads use this.
 *
 * `build` receives stand-ins for its arguments: it may use them only as values
 * (`where('id', '=', id)`), never to choose the shape (no `if`, no `in` lists),
 * since it runs once, and never look inside them (an object argument's fields
 * are not stand-ins: pass each value as its own argument).
 */
export function reusableQuery<Args extends unknown[], Row>(build: (db: Queryable, ...args: Args) => Compilable<Row>) {
  let template: { sql: string; parameters: readonly unknown[] } | undefined;
  const compile = (db: Queryable, count: number) => {
    const slots = Array.from({ length: count }, (_, i) => new Slot(i)) as unknown as Args;
    const compiled = build(db, ...slots).compile();
    const used = new Set(compiled.parameters.filter((p) => p instanceof Slot).map((p) => (p as Slot).index));
    if (used.size !== count)
      throw new Error('reusableQuery: every argument must be used as a value in the query (an object argument cannot be looked into)');
    return { sql: compiled.sql, parameters: compiled.parameters };
  };
  return async (db: Queryable, ...args: Args): Promise<Row[]> => {
    template ??= compile(db, args.length);
    const parameters = template.parameters.map((p) => (p instanceof Slot ? args[p.index] : p));
    const result = await db.executeQuery<Row>(CompiledQuery.raw(template.sql, parameters));
    return result.rows;
  };
}

/** The values of one table's row, by column; an undefined value leaves the column out, as Kysely does. */
type RowValues = Record<string, unknown>;
/** A multi-table write's rows, by part: one row, several rows, or none. */
export type RowsByPart = Record<string, RowValues | RowValues[] | null>;

/**
 * Like reusableQuery, for a write whose shape follows its input: which parts are present,
 * how many rows each has and which of their columns are given. Kysely builds and compiles
 * the statement once per shape (at most `maxShapes`; past that it compiles each call), and
 * every later call of that shape only binds the new values. `build` receives the rows with
 * every column value replaced by a stand-in, so it must use them only as values.
 */
export function reusableWriteByShape<Rows extends RowsByPart, Row>(build: (db: Queryable, rows: Rows) => Compilable<Row>, maxShapes = 64) {
  const templates = new Map<string, { sql: string; parameters: readonly unknown[] }>();
  return async (db: Queryable, rows: Rows): Promise<Row[]> => {
    const values: unknown[] = [];
    let shape = '';
    const slotted: Record<string, unknown> = {};
    const slotRow = (row: RowValues) => {
      const out: RowValues = {};
      for (const column in row) {
        const value = row[column];
        if (value === undefined) continue;
        shape += `${column},`;
        out[column] = new Slot(values.length);
        values.push(value);
      }
      shape += ';';
      return out;
    };
    for (const [part, given] of Object.entries(rows)) {
      shape += `${part}${given === null ? '-' : Array.isArray(given) ? `[${given.length}]` : ''}:`;
      slotted[part] = given === null ? null : Array.isArray(given) ? given.map(slotRow) : slotRow(given);
    }
    let template = templates.get(shape);
    if (!template) {
      const compiled = build(db, slotted as Rows).compile();
      template = { sql: compiled.sql, parameters: compiled.parameters };
      if (templates.size < maxShapes) templates.set(shape, template);
    }
    const parameters = template.parameters.map((p) => (p instanceof Slot ? values[p.index] : p));
    const result = await db.executeQuery<Row>(CompiledQuery.raw(template.sql, parameters));
    return result.rows;
  };
}
