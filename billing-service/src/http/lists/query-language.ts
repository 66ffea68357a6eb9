/**
 * Parser of the list `query` parameter (see README.md in this folder). Pure: it
 * turns the raw parameter into conditions or throws a 400 ApiError
 * ('query not valid: …'); it never throws anything else.
 */
import type { ListField } from './list-fields.js';
import { findField } from './list-fields.js';
import { percentDecode, queryNotValid, quote } from './url-params.js';

/** One `field:value` pair. `field` is the canonical name from the field list. */
export type QueryCondition =
  /** `[empty]`: null, or also '' for string and enum fields. */
  | { field: string; op: 'empty' }
  /** String field, no wildcard: case-insensitive equality. */
  | { field: string; op: 'equals'; value: string }
  /** String field with `*`: the literal text between the wildcards (`*a*` → ['', 'a', '']). */
  | { field: string; op: 'like'; parts: string[] }
  /** Enum field: any of these stored values; `orEmpty` when `[empty]` was in the list. */
  | { field: string; op: 'in'; values: string[]; orEmpty: boolean }
  /** Integer field: equality. */
  | { field: string; op: 'integer'; value: number }
  /** Date field: from inclusive, to exclusive; at least one is set, from < to. */
  | { field: string; op: 'range'; from: Date | null; to: Date | null };

export const MAX_CONDITIONS = 20;
export const MAX_VALUE_LENGTH = 1000;
/** Integer fields are SQL `integer`: a larger value would be a database error, not a miss. */
export const MIN_INTEGER = -2147483648;
export const MAX_INTEGER = 2147483647;

const EMPTY_KEYWORD = '[empty]';

/**
 * Parses the raw (still percent-encoded) `query` value; undefined or blank
 * gives no conditions. Structure (`;`, the first `:`, `,`, `|`) is read before
 * percent-decoding, so an encoded `%2C` is a literal comma in a value.
 *
 * A value with no literal `:` at all cannot be a query in raw form; if it holds
 * `%3A` the client encoded the whole parameter (URLSearchParams, querystring,
 * requests…), so it is decoded once and then read as raw form.
 */
export function parseQuery(raw: string | null | undefined, fields: readonly ListField[]): QueryCondition[] {
  if (raw == null || raw.trim() === '') return [];
  let text = raw;
  let plusIsSpace = true;
  if (!text.includes(':') && /%3a/i.test(text)) {
    text = percentDecode(text);
    // the form decoding already turned + into spaces; a + left now is a literal plus
    plusIsSpace = false;
  }
  const decode = (piece: string) => percentDecode(piece, plusIsSpace);

  const pairs = text.split(';');
  // one trailing ';' is harmless (clients joining with a terminator)
  if (pairs.length > 1 && pairs.at(-1)?.trim() === '') pairs.pop();
  if (pairs.length > MAX_CONDITIONS) throw queryNotValid(`more than ${MAX_CONDITIONS} conditions`);

  return pairs.map((pair, index) => {
    if (pair.trim() === '') throw queryNotValid(`condition ${index + 1} is empty`);
    const colon = pair.indexOf(':');
    if (colon < 0) throw queryNotValid(`condition ${index + 1} has no ':'`);
    const name = decode(pair.slice(0, colon)).trim();
    if (name === '') throw queryNotValid(`condition ${index + 1} has no field name`);
    const field = findField(fields, name);
    if (!field) throw queryNotValid(`unknown field ${quote(name)}`);
    const rawValue = pair.slice(colon + 1);
    // decoding never lengthens, so the raw length is a cheap first check
    if (rawValue.length > MAX_VALUE_LENGTH && decode(rawValue).length > MAX_VALUE_LENGTH) {
      throw queryNotValid(`value of ${field.name} is longer than ${MAX_VALUE_LENGTH} characters`);
    }
    return parseCondition(field, rawValue, decode);
  });
}

function parseCondition(field: ListField, rawValue: string, decode: (piece: string) => string): QueryCondition {
  const name = field.name;
  if (field.type !== 'enum' && rawValue.includes(',')) {
    throw queryNotValid(`a list of values is only allowed for enum fields, not ${name} (encode a literal comma as %2C)`);
  }
  if (field.type === 'enum') return parseEnum(field, rawValue, decode);
  if (field.type === 'date' && rawValue.includes('|')) return parseRange(field, rawValue, decode);

  const value = decode(rawValue);
  if (value === '') throw queryNotValid(`no value for ${name} (use ${EMPTY_KEYWORD} for empty)`);
  if (isEmptyKeyword(value)) return { field: name, op: 'empty' };

  switch (field.type) {
    case 'string':
      return value.includes('*') ? { field: name, op: 'like', parts: value.split('*') } : { field: name, op: 'equals', value };
    case 'integer':
      return { field: name, op: 'integer', value: parseInteger(name, value) };
    case 'date': {
      // one date without '|' is its whole day; a date-time is its whole second
      const { date, hasTime } = parseDate(name, value);
      const to = new Date(date.getTime() + (hasTime ? 1000 : 86_400_000));
      return { field: name, op: 'range', from: date, to };
    }
  }
  throw new Error(`list field ${name} has unknown type ${String(field.type)}`);
}

function parseEnum(field: ListField, rawValue: string, decode: (piece: string) => string): QueryCondition {
  const values: string[] = [];
  let orEmpty = false;
  let sawValue = false;
  for (const item of rawValue.split(',').map(decode)) {
    if (item === '') throw queryNotValid(`empty value in the list for ${field.name}`);
    if (isEmptyKeyword(item)) {
      orEmpty = true;
      continue;
    }
    sawValue = true;
    // a wildcard picks every canonical value it matches (maybe none: matches nothing)
    const matched = item.includes('*') ? (field.values ?? []).filter((v) => globMatches(item, v)) : [enumValue(field, item)];
    for (const v of matched) if (!values.includes(v)) values.push(v);
  }
  if (!sawValue) return { field: field.name, op: 'empty' };
  return { field: field.name, op: 'in', values, orEmpty };
}

function enumValue(field: ListField, input: string): string {
  const lower = input.toLowerCase();
  const canonical = (field.values ?? []).find((v) => v.toLowerCase() === lower);
  if (canonical !== undefined) return canonical;
  for (const [alias, stored] of Object.entries(field.aliases ?? {})) {
    if (alias.toLowerCase() === lower) return stored;
  }
  // every accepted form: the values, and the aliases with what each stands for
  const aliases = Object.entries(field.aliases ?? {}).map(([alias, stored]) => `${alias} for ${stored}`);
  const aliasForms = aliases.length > 0 ? `, or ${field.aliasesAre ? `${field.aliasesAre}: ` : ''}${aliases.join(', ')}` : '';
  throw queryNotValid(`${quote(input)} is not a value of ${field.name} (allowed: ${(field.values ?? []).join(', ')}${aliasForms})`);
}

/**
 * `*` matches any run of characters, case-insensitively. No regular expression is built from the
 * input (one with many stars backtracks for seconds): the pattern's literal pieces are found in
 * order, the first at the start and the last at the end, each leftmost (which is enough for `*`).
 */
export function globMatches(pattern: string, value: string): boolean {
  const pieces = pattern.toLowerCase().split('*');
  const text = value.toLowerCase();
  // split always gives one piece at least: the first and the last are strings
  const first = pieces[0] ?? '';
  if (pieces.length === 1) return text === first;
  const last = pieces.at(-1) ?? '';
  if (text.length < first.length + last.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  let at = first.length;
  const end = text.length - last.length;
  for (const piece of pieces.slice(1, -1)) {
    if (piece === '') continue; // a run of stars is one star
    const found = text.indexOf(piece, at);
    if (found < 0 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}

function parseRange(field: ListField, rawValue: string, decode: (piece: string) => string): QueryCondition {
  const [lower, upper, ...more] = rawValue.split('|').map(decode);
  if (lower === undefined || upper === undefined || more.length > 0)
    throw queryNotValid(`a date range for ${field.name} has exactly one '|'`);
  const from = lower === '' ? null : parseDate(field.name, lower).date;
  const to = upper === '' ? null : parseDate(field.name, upper).date;
  if (!from && !to) throw queryNotValid(`the date range for ${field.name} has neither bound`);
  if (from && to && from.getTime() >= to.getTime()) {
    throw queryNotValid(`the date range for ${field.name} has its lower bound not before its upper bound`);
  }
  return { field: field.name, op: 'range', from, to };
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})Z?)?$/;

/** `YYYY-MM-DD` (midnight) or `YYYY-MM-DDTHH:mm:SS` (an optional `Z` is tolerated), always UTC. */
export function parseDate(fieldName: string, text: string): { date: Date; hasTime: boolean } {
  const m = DATE.exec(text);
  const bad = () => queryNotValid(`${quote(text)} is not a date for ${fieldName} (use YYYY-MM-DD or YYYY-MM-DDTHH:mm:SS)`);
  if (!m) throw bad();
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const hasTime = m[4] !== undefined;
  const [hour, minute, second] = hasTime ? [Number(m[4]), Number(m[5]), Number(m[6])] : [0, 0, 0];
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) throw bad();
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second));
  date.setUTCFullYear(year, month - 1, day); // Date.UTC maps years 0-99 to 1900-1999
  // a day past the month's end rolls over: 2023-02-29 becomes March
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) throw bad();
  return { date, hasTime };
}

function parseInteger(fieldName: string, text: string): number {
  if (!/^-?\d+$/.test(text)) throw queryNotValid(`${quote(text)} is not an integer for ${fieldName}`);
  const value = Number(text);
  if (value < MIN_INTEGER || value > MAX_INTEGER) throw queryNotValid(`${quote(text)} is out of range for ${fieldName}`);
  return Object.is(value, -0) ? 0 : value;
}

function isEmptyKeyword(value: string): boolean {
  return value.toLowerCase() === EMPTY_KEYWORD;
}
