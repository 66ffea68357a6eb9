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
    if (used.size !== count) throw new Error('reusableQuery: every argument must be used as a value in the query (an object argument cannot be looked into)');
    return { sql: compiled.sql, parameters: compiled.parameters };
  };
  return async (db: Queryable, ...args: Args): Promise<Row[]> => {
    template ??= compile(db, args.length);
    const parameters = template.parameters.map((p) => (p instanceof Slot ? args[p.index] : p));
    const result = await db.executeQuery<Row>(CompiledQuery.raw(template.sql, parameters));
    return result.rows;
  };
}
