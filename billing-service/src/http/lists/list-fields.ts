import type { Expression } from 'kysely';

/**
 * How a list field is filtered and sorted:
 * - `string`: equality and `*` wildcards, both case-insensitive; `[empty]` = null or ''.
 * - `enum`: one value or an any-of list `a,b`; matched case-insensitively against `values`.
 * - `integer`: exact 32-bit integer; `[empty]` = null.
 * - `date`: a day, a second or a range `lower|upper`; `[empty]` = null.
 */
export type ListFieldType = 'string' | 'enum' | 'integer' | 'date';

export interface ListField {
  /** The name clients use in `query` and `sortExpression` (matched case-insensitively). */
  name: string;
  type: ListFieldType;
  /**
   * The SQL the field stands for, e.g. `sql.ref('customers.firstName')` or a
   * correlated subquery. String and enum fields must be text; date fields a
   * date/timestamp(tz) (values are sent as ISO-8601 UTC strings).
   */
  expression: Expression<any>;
  /** Enum fields: the canonical (stored) values. */
  values?: readonly string[];
  /**
   * Enum fields: extra accepted inputs mapped to a stored value, e.g.
   * `{ '1': 'Individual', '2': 'Company' }`. Keys match case-insensitively.
   */
  aliases?: Readonly<Record<string, string>>;
  /** Enum fields: what the aliases are, for the 400 that lists the accepted forms (e.g. 'the ISO 4217 numeric code'). */
  aliasesAre?: string;
  /** Whether `sortExpression` may name this field; default true. */
  sortable?: boolean;
  /**
   * String fields: an index reads the field in sort order within the base query's scope
   * (e.g. `(account_id, lower(last_name) collate "C" nulls first, id)`). A filter on the field's
   * leading characters, sorted by the field, then pages by walking it (see runList).
   */
  sortIndexed?: boolean;
}

/** Case-insensitive lookup of a field by the name a client gave. */
export function findField(fields: readonly ListField[], name: string): ListField | undefined {
  const wanted = name.toLowerCase();
  return fields.find((f) => f.name.toLowerCase() === wanted);
}

/** Lookup by canonical name (as stored in a parsed request); a miss is a programming error. */
export function requireField(fields: readonly ListField[], name: string): ListField {
  const field = fields.find((f) => f.name === name);
  if (!field) throw new Error(`list field ${name} is not in the field list`);
  return field;
}

export function isSortable(field: ListField): boolean {
  return field.sortable ?? true;
}
