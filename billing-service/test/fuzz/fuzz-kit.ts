/**
 * Fuzzing kit (issue 12): fast-check arbitraries derived from JSON Schema (the
 * OpenAPI document's inline schemas), the odd values every field is fed, and the
 * invariants every response must keep. Shared by the billing API fuzz test
 * (test/fuzz/billing-api.test.ts) and the card-capture host's
 * (capture-service/test/fuzz.test.ts).
 */
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { appendFileSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import fc from 'fast-check';
import { sql, type Kysely } from 'kysely';

/* ------------------------------------------------------------------ settings */

/** RENEW_FUZZ_RUNS: cases per operation (default: the normal suite's number). */
export function runsPerOperation(normal: number): number {
  const raw = process.env.RENEW_FUZZ_RUNS;
  const n = raw ? Number.parseInt(raw, 10) : Number.NaN;
  return Number.isFinite(n) && n > 0 ? n : normal;
}

/** RENEW_FUZZ_SEED (and RENEW_FUZZ_PATH) replay a reported failure; the fast-check options for it. */
export function replayOptions(): { seed?: number; path?: string } {
  return {
    ...(process.env.RENEW_FUZZ_SEED ? { seed: Number(process.env.RENEW_FUZZ_SEED) } : {}),
    ...(process.env.RENEW_FUZZ_PATH ? { path: process.env.RENEW_FUZZ_PATH } : {}),
  };
}

/** Server CPU a single request may use (process.cpuUsage around app.inject: the app and PGlite run in this process). */
export const CPU_BUDGET_MS = 100;

/* ------------------------------------------------------------------ odd values */

/** Lone surrogates, NUL, RTL, emoji, combining marks, and other strings that break naive code. */
export const NASTY_STRINGS: readonly string[] = [
  '\ud800',
  '\udfff',
  'a\ud800b',
  '\ud83d',
  '\ude00x',
  'x\udbff',
  '\u0000',
  'a\u0000b',
  '\u0000\u0000\u0000',
  '\u202eevil\u202c',
  '\u200f\u0645\u0631\u062d\u0628\u0627',
  '\u05e9\u05dc\u05d5\u05dd',
  '😀',
  '👩‍👩‍👧‍👦',
  '🏳️‍🌈',
  'e\u0301',
  'Z\u0364\u0351\u0367\u0311\u0313a\u0308\u0356\u036dl\u036e\u0312\u036b',
  '\ufeff',
  '\uffff',
  '\ufffe',
  '\u2028\u2029',
  '\r\n',
  '\t',
  '\u00a0',
  '\u3000',
  '\u180e',
  '４２',
  '٤٢',
  'İ',
  'ß',
  'ﬀ',
  'Å',
  'Å',
  "'; drop table customers;--",
  "' or '1'='1",
  '%s%n%x',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, sent as plain text on purpose
  '${7*7}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '\\',
  '"',
  '*',
  '%',
  '_',
  ' ',
  '',
  '   ',
  'NaN',
  'null',
  'undefined',
  'true',
  '-0',
  '1e309',
  '0x10',
  '__proto__',
  'constructor',
  'toString',
];

export const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));

/** Any UTF-16 text, lone surrogates and control characters included. */
export const wildString = (maxLength = 40) =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...NASTY_STRINGS), weight: 4 },
    { arbitrary: fc.string({ unit: 'binary', maxLength }), weight: 2 },
    { arbitrary: fc.string({ unit: 'grapheme-composite', maxLength }), weight: 1 },
    {
      arbitrary: fc
        .array(fc.oneof(fc.string({ unit: 'binary', maxLength: 3 }), loneSurrogate, fc.constantFrom('\u0000', '\u202e', '\u0301', '😀')), {
          maxLength: 12,
        })
        .map((a) => a.join('')),
      weight: 2,
    },
  );

/** A JSON value nested `depth` levels deep (built iteratively, so building it cannot overflow). */
export function deepValue(depth: number, kind: 'array' | 'object' = 'array'): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = kind === 'array' ? [v] : { a: v };
  return v;
}

/** The same as JSON text: for depths JSON.stringify could not serialise. */
export function deepJson(depth: number, kind: 'array' | 'object' = 'array'): string {
  return kind === 'array' ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

export const deepNesting = fc.constantFrom(8, 64, 500, 2000).chain((d) => fc.constantFrom(deepValue(d, 'array'), deepValue(d, 'object')));

/** Values of every JSON type, and the numbers around every integer boundary. */
export const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    -0.0001,
    2 ** 31 - 1,
    2 ** 31,
    -(2 ** 31) - 1,
    2 ** 32,
    2 ** 53 - 1,
    2 ** 53,
    2 ** 53 + 2,
    -(2 ** 53),
    1e21,
    1e308,
    -1e308,
    5e-324,
    '1',
    '',
    ' ',
    '0',
    '-1',
    '1.0',
    '1e3',
    '2147483648',
    '9007199254740993',
    'abc',
    [],
    [1],
    ['a'],
    {},
    { a: 1 },
    { '': null },
  ),
  fc.constantFrom(...NASTY_STRINGS),
  deepNesting,
  fc.constantFrom('a'.repeat(10_000), 'é'.repeat(5000), '😀'.repeat(3000)),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Path ids no column holds: negative, 0, 2^31, 2^53, fractions, words, 300 characters, encoded oddities. */
export const ODD_PATH_IDS: readonly string[] = [
  '-1',
  '0',
  '-0',
  '1.5',
  '1e3',
  '0x1f',
  '+1',
  '01',
  '%201',
  '1%20',
  '2147483647',
  '2147483648',
  '4294967296',
  '9007199254740991',
  '9007199254740992',
  '9007199254740993',
  '99999999999999999999999',
  '-9223372036854775809',
  'abc',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '%00',
  '%ff',
  '%ED%A0%80',
  '%F0%9F%98%80',
  '%',
  '%zz',
  '..',
  '%2e%2e',
  '%2F',
  '%5C',
  'a%2Fb',
  '%E2%80%AE1',
  '1;2',
  '1,2',
  '[1]',
  '{}',
  '9'.repeat(100),
  '9'.repeat(101),
  '9'.repeat(300),
  'a'.repeat(300),
  '%61'.repeat(40),
];

/** Safe URL encoding of any UTF-16 text: lone surrogates become their (invalid) 3-byte UTF-8 form. */
export function encodePart(text: string, keep = ''): string {
  let out = '';
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (c >= 0xd800 && c <= 0xdfff) {
      out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    } else if (keep.includes(ch)) {
      out += ch;
    } else {
      out += encodeURIComponent(ch);
    }
  }
  return out;
}

/** Header values a real HTTP parser lets through (visible ASCII, latin-1, space, tab): anything else never reaches an app. */
export function headerSafe(value: string): string {
  return value.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');
}

/** Odd header values of printable latin-1. */
export const oddHeaderValue = fc
  .oneof(
    fc.constantFrom('', ' ', 'x', '\t', 'a'.repeat(300), 'a'.repeat(8000), 'ÿþ', '%00', '"', ',,,', ';', 'null', '🙂'),
    fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 60 }),
  )
  .map(headerSafe);

export const ODD_CONTENT_TYPES: readonly string[] = [
  'application/json; charset=utf-8',
  'application/JSON',
  'APPLICATION/JSON',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json;;;',
  'application/json; charset=',
  'application/vnd.api+json',
  'application/problem+json',
  'application/jsonx',
  'text/json',
  'text/plain',
  'text/html',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/octet-stream',
  '',
  ' ',
  'json',
  '*/*',
  'application/*',
  'a'.repeat(2000),
  'application/json; boundary="\\"',
];

/* ------------------------------------------------------------------ JSON Schema → arbitraries */

export type Schema = Record<string, any>;

/** Real ids of existing objects, by field or parameter name (lower case): used instead of generated values most of the time. */
export type Refs = Record<string, readonly (number | string)[]>;

const SAMPLE_STRINGS = [
  'Ada',
  'Lovelace',
  'x',
  'ada@example.com',
  'a@b.co; c@d.co',
  'CA',
  'US',
  'ON',
  'USD',
  'CAD',
  'EUR',
  '840',
  '124',
  'WEB',
  'Sales Tracking Code 1',
  '4242424242424242',
  '123',
  'K1A 0B1',
  '90210',
  'Check',
  'CreditCard',
  'bulkPayment',
  'OldestToNewest',
  'Import',
  'Monthly',
  'Active',
];
const PATTERN_SAMPLES = [
  '0',
  '1',
  '12.5',
  '-3',
  '-3.25',
  '0.001',
  '99999999.99',
  '1e3',
  'true',
  'false',
  'sideeffects',
  '2024-01-31',
  '2024-02-29',
  '2023-02-29',
  '2024-01-31T10:00:00Z',
  '2024-01-31T10:00:00.123+02:00',
  '2024-01-31T10:00',
  'full',
  'Full',
];

/** The schema's alternatives, flattened (anyOf / oneOf / type lists). */
export function alternatives(schema: Schema): Schema[] {
  const alts = schema.anyOf ?? schema.oneOf;
  if (alts) return (alts as Schema[]).flatMap(alternatives);
  if (Array.isArray(schema.type)) return schema.type.map((type: string) => ({ ...schema, type }));
  return [schema];
}

/** A string schema's length bounds (the first alternative that is a string). */
export function stringBounds(schema: Schema): { min: number; max?: number } | undefined {
  const s = alternatives(schema).find((a) => a.type === 'string' && !a.enum && !a.pattern && !a.const);
  return s ? { min: s.minLength ?? 0, max: s.maxLength } : undefined;
}

/** Values the schema accepts (or nearly: formats and patterns come from samples), with real ids for id-named fields. */
export function validArb(schema: Schema, name: string, refs: Refs, depth = 0): fc.Arbitrary<unknown> {
  const real = refs[name.toLowerCase()];
  const generated = byType(schema, refs, depth);
  if (real && real.length > 0) return fc.oneof({ arbitrary: fc.constantFrom(...real), weight: 4 }, { arbitrary: generated, weight: 1 });
  return generated;
}

function byType(schema: Schema, refs: Refs, depth: number): fc.Arbitrary<unknown> {
  const alts = alternatives(schema);
  if (alts.length > 1) {
    // null is allowed but seldom interesting: the other alternatives weigh more.
    return fc.oneof(...alts.map((a) => ({ arbitrary: single(a, refs, depth), weight: a.type === 'null' ? 1 : 3 })));
  }
  return single(alts[0]!, refs, depth);
}

function single(s: Schema, refs: Refs, depth: number): fc.Arbitrary<unknown> {
  if ('const' in s) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...(s.enum as unknown[]));
  switch (s.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const min = s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : (s.minimum ?? -(2 ** 31));
      const max = s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : (s.maximum ?? 2 ** 31 - 1);
      return fc.oneof(
        { arbitrary: fc.integer({ min: Math.max(min, -1000), max: Math.max(Math.min(max, 1000), Math.max(min, -1000)) }), weight: 3 },
        { arbitrary: fc.constantFrom(min, max), weight: 1 },
        { arbitrary: fc.integer({ min: Math.max(min, Number.MIN_SAFE_INTEGER), max: Math.min(max, Number.MAX_SAFE_INTEGER) }), weight: 1 },
      );
    }
    case 'number':
      return fc.oneof(
        fc.integer({ min: -1000, max: 100_000 }),
        fc.constantFrom(0, 0.01, 0.005, 1.005, 12.34, 99999999.99, 1e15),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
      );
    case 'string': {
      if (s.pattern) {
        const re = new RegExp(s.pattern);
        const fits = PATTERN_SAMPLES.filter((v) => re.test(v));
        return fits.length > 0 ? fc.constantFrom(...fits) : fc.string({ maxLength: 10 });
      }
      const min = s.minLength ?? 0;
      const max = s.maxLength ?? 60;
      const samples = SAMPLE_STRINGS.filter((v) => v.length >= min && v.length <= max);
      const text = fc.string({ minLength: min, maxLength: Math.max(min, Math.min(max, 30)) });
      return samples.length > 0 ? fc.oneof(fc.constantFrom(...samples), text) : text;
    }
    case 'array': {
      if (depth > 4) return fc.constant([]);
      const items = s.items && Object.keys(s.items).length > 0 ? validArb(s.items, '', refs, depth + 1) : fc.jsonValue({ maxDepth: 2 });
      const minLength = s.minItems ?? 0;
      return fc.array(items, { minLength, maxLength: Math.max(minLength, Math.min(s.maxItems ?? 3, 3)) });
    }
    case 'object': {
      if (depth > 4 || !s.properties) return fc.constant({});
      const required = new Set<string>(s.required ?? []);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, sub] of Object.entries(s.properties as Record<string, Schema>)) model[key] = validArb(sub, key, refs, depth + 1);
      return fc.record(model, { requiredKeys: [...required] as never[] });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Every field of an object schema, nested ones included, with its path. */
export function fieldPaths(schema: Schema, prefix: string[] = [], depth = 0): Array<{ path: string[]; schema: Schema; required: boolean }> {
  const out: Array<{ path: string[]; schema: Schema; required: boolean }> = [];
  if (depth > 4) return out;
  for (const alt of alternatives(schema)) {
    if (alt.type !== 'object' || !alt.properties) continue;
    const required = new Set<string>(alt.required ?? []);
    for (const [key, sub] of Object.entries(alt.properties as Record<string, Schema>)) {
      out.push({ path: [...prefix, key], schema: sub, required: required.has(key) });
      out.push(...fieldPaths(sub, [...prefix, key], depth + 1));
    }
  }
  return out;
}

function setPath(root: unknown, path: string[], value: unknown | typeof REMOVE): unknown {
  const copy = structuredCloneSafe(root);
  let node = copy as Record<string, unknown>;
  for (let i = 0; i < path.length - 1; i++) {
    const next = node[path[i]!];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) {
      node[path[i]!] = {};
    }
    node = node[path[i]!] as Record<string, unknown>;
  }
  const last = path[path.length - 1]!;
  if (value === REMOVE) delete node[last];
  else Object.defineProperty(node, last, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

function structuredCloneSafe(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return {};
  return JSON.parse(JSON.stringify(v));
}

const REMOVE = Symbol('remove');

/** A string of exactly `units` UTF-16 code units, made of `unit` (padded with 'a'). */
export function ofLength(units: number, unit: string): string {
  if (units <= 0) return '';
  const reps = Math.floor(units / unit.length);
  return unit.repeat(reps) + 'a'.repeat(units - reps * unit.length);
}

const BOUNDARY_UNITS = ['a', 'é', '😀', 'e\u0301', '\u05d0', '\u0000', 'Z'];

/** A body and what was done to it. */
export interface Body {
  value: unknown;
  how: string;
}

/**
 * Bodies for an object schema: valid ones (real ids mostly), and valid ones with
 * one change: a field dropped, an extra field, a wrong type, a string at its
 * length boundaries (0, 1, max, max+1 and min-1), a nasty or lone-surrogate
 * string, deep nesting; or no object at all.
 */
export function bodyArb(schema: Schema, refs: Refs, seeds: readonly unknown[] = []): fc.Arbitrary<Body> {
  // Known-good bodies (e.g. an object as read back: "read, modify, send back") weigh as much as generated ones.
  const valid = seeds.length > 0 ? fc.oneof(validArb(schema, '', refs), fc.constantFrom(...seeds)) : validArb(schema, '', refs);
  const fields = fieldPaths(schema);
  const stringFields = fields.filter((f) => stringBounds(f.schema));
  const pick = <T>(list: T[]) => fc.nat({ max: Math.max(0, list.length - 1) }).map((i) => list[i]!);
  const mutations: Array<{ arbitrary: fc.Arbitrary<Body>; weight: number }> = [
    { arbitrary: valid.map((value) => ({ value, how: 'valid' })), weight: 3 },
    {
      arbitrary: fc
        .tuple(
          valid,
          fc.oneof(
            fc.constantFrom('__proto__', 'constructor', 'prototype', '', ' ', 'ID', 'CustomerId', 'a.b', '$where'),
            fc.string({ maxLength: 20 }),
            fc.constantFrom(...NASTY_STRINGS),
          ),
          oddValue,
        )
        .map(([v, key, extra]) => ({ value: setPath(v, [key], extra), how: `extra field ${JSON.stringify(key)}` })),
      weight: 1,
    },
    {
      arbitrary: fc
        .tuple(valid, fc.constantFrom('', ' ', '\u0000', '\ud800', '😀', 'x'.repeat(300)), deepNesting)
        .map(([v, key, extra]) => ({ value: setPath(v, [key], extra), how: 'extra odd-named field, deep value' })),
      weight: 1,
    },
    {
      arbitrary: fc
        .constantFrom<unknown>([], [{}], 'text', '', 0, -1, 1e308, true, null, deepValue(1000), deepValue(1000, 'object'), {
          a: { b: { c: { d: [1, 2, { e: null }] } } },
        })
        .map((value) => ({ value, how: 'not an object' })),
      weight: 1,
    },
  ];
  if (fields.length > 0) {
    mutations.push(
      {
        arbitrary: fc
          .tuple(valid, pick(fields))
          .map(([v, f]) => ({ value: setPath(v, f.path, REMOVE), how: `without ${f.path.join('.')}` })),
        weight: 2,
      },
      {
        arbitrary: fc
          .tuple(valid, pick(fields), oddValue)
          .map(([v, f, odd]) => ({ value: setPath(v, f.path, odd), how: `odd ${f.path.join('.')}` })),
        weight: 5,
      },
      {
        arbitrary: fc.tuple(valid, pick(fields), fc.array(fc.tuple(pick(fields), oddValue), { maxLength: 4 })).map(([v, f, more]) => ({
          value: more.reduce((acc, [g, odd]) => setPath(acc, g.path, odd), setPath(v, f.path, null)),
          how: 'several odd fields',
        })),
        weight: 2,
      },
    );
  }
  if (stringFields.length > 0) {
    mutations.push(
      {
        arbitrary: fc
          .tuple(
            valid,
            pick(stringFields),
            fc.constantFrom('min-1', '0', '1', 'max', 'max+1', 'max*2 code points'),
            fc.constantFrom(...BOUNDARY_UNITS),
          )
          .map(([v, f, which, unit]) => {
            const { min, max = 255 } = stringBounds(f.schema)!;
            const units = { 'min-1': Math.max(0, min - 1), '0': 0, '1': 1, max, 'max+1': max + 1, 'max*2 code points': max * 2 }[which];
            const text = which === 'max*2 code points' ? '😀'.repeat(max) : ofLength(units, unit);
            return { value: setPath(v, f.path, text), how: `${f.path.join('.')} of length ${which} (${JSON.stringify(unit)})` };
          }),
        weight: 4,
      },
      {
        arbitrary: fc
          .tuple(valid, pick(stringFields), wildString())
          .map(([v, f, text]) => ({ value: setPath(v, f.path, text), how: `unicode ${f.path.join('.')}` })),
        weight: 5,
      },
    );
  }
  return fc.oneof(...mutations);
}

/** A body as JSON text with one property of one of its objects named twice, and that property's path as an error body keys it. */
export interface DuplicateKeyBody {
  payload: string;
  key: string;
  how: string;
}

/** `a.b[2].c`, the way the spec's error bodies name a field. */
export function pathKey(path: ReadonlyArray<string | number>): string {
  return path.reduce<string>((key, part) => (typeof part === 'number' ? `${key}[${part}]` : key ? `${key}.${part}` : part), '');
}

/** The objects of a JSON value that have properties, with their paths, in the order JSON.stringify writes them. */
function objectsWithProperties(value: unknown, limit = 40): Array<{ path: Array<string | number>; object: Record<string, unknown> }> {
  const found: Array<{ path: Array<string | number>; object: Record<string, unknown> }> = [];
  const pending: Array<{ path: Array<string | number>; value: unknown }> = [{ path: [], value }];
  while (pending.length > 0 && found.length < limit) {
    const { path, value: v } = pending.shift()!;
    if (v === null || typeof v !== 'object' || path.length > 8) continue;
    const entries: Array<[string | number, unknown]> = Array.isArray(v) ? v.map((item, i) => [i, item]) : Object.entries(v);
    if (!Array.isArray(v) && entries.length > 0) found.push({ path, object: v as Record<string, unknown> });
    for (const [k, item] of entries) pending.push({ path: [...path, k], value: item });
  }
  return found;
}

/**
 * Bodies of `bodies` with one property named twice: the copy is written first in its object,
 * with the same value or another one. Bodies without an object (or with names the JSON parser
 * refuses on their own, `__proto__`, `constructor`) are left out.
 */
export function duplicateKeyBodyArb(bodies: fc.Arbitrary<Body>): fc.Arbitrary<DuplicateKeyBody> {
  return bodies
    .map((body) => {
      let text: string | undefined;
      try {
        text = JSON.stringify(body.value);
      } catch {
        return undefined;
      }
      if (text === undefined || /"(__proto__|constructor)"/.test(text)) return undefined;
      const value: unknown = JSON.parse(text); // plain data: no shared references, no toJSON
      const objects = objectsWithProperties(value);
      return objects.length > 0 ? { value, objects } : undefined;
    })
    .filter((found) => found !== undefined)
    .chain(({ value, objects }) =>
      fc
        .tuple(
          fc.nat({ max: objects.length - 1 }),
          fc.nat(),
          fc.constantFrom<unknown>(SAME, SAME, null, 0, '', 'another', [], {}, { a: 1 }, true),
        )
        .map(([which, keyIndex, copy]) => {
          const { path, object } = objects[which]!;
          const names = Object.keys(object);
          const name = names[keyIndex % names.length]!;
          const copyText = JSON.stringify(copy === SAME ? object[name] : copy) ?? 'null';
          const marker = '\u0000duplicate-key-marker\u0000';
          const withMarker = JSON.stringify(value, function (this: unknown, _key, v) {
            return v === object ? marker : v;
          });
          const objectText = `{${JSON.stringify(name)}:${copyText},${JSON.stringify(object).slice(1)}`;
          const payload = withMarker.replace(JSON.stringify(marker), () => objectText);
          return {
            payload,
            key: pathKey([...path, name]),
            how: `duplicate key ${pathKey([...path, name])}${copy === SAME ? ' (same value)' : ''}`,
          };
        }),
    );
}

const SAME = Symbol('the same value');

/** Raw payloads no serialiser would produce: broken JSON, duplicate keys, 1e999, a BOM, very deep nesting. */
export const rawPayloads = fc.constantFrom(
  '{',
  '}',
  '[',
  '{"a":',
  '{"a":1,}',
  "{'a':1}",
  'nul',
  'undefined',
  '\u0000',
  '{"a":"\u0000"}',
  '\ufeff{}',
  '{}garbage',
  '{} {}',
  ' ',
  '\r\n',
  '{"customerId":1,"customerId":"x"}',
  '{"__proto__":{"isAdmin":true}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '{"customerId":1e999}',
  '{"customerId":-1e999}',
  '{"amount":1e999}',
  '{"customerId":12345678901234567890}',
  '{"note":"\\ud800"}',
  '{"note":"\\udfff\\ud800"}',
  '"\\ud800"',
  `[${'"\\u0000",'.repeat(1000)}1]`,
  deepJson(10_000),
  deepJson(10_000, 'object'),
  deepJson(100_000),
  deepJson(60_000, 'object'),
  `{"a":"${'x'.repeat(900_000)}"}`,
  `{"a":"${'x'.repeat(2_000_000)}"}`,
);

/* ------------------------------------------------------------------ list parameters */

const LIST_FIELD_NAMES = [
  'Status',
  'status',
  'FirstName',
  'LastName',
  'CompanyName',
  'PrimaryEmail',
  'Reference',
  'Id',
  'id',
  'CustomerId',
  'Currency',
  'Amount',
  'CreatedTimestamp',
  'ModifiedTimestamp',
  'EffectiveTimestamp',
  'PostedTimestamp',
  'DueDate',
  'Code',
  'Name',
  'PlanCode',
  'Note',
  'CustomerAccountStatus',
  'InvoiceAmount',
  'PaymentMethod',
  'Unknown',
  'id;drop',
  '',
];

const queryValue = fc.oneof(
  fc.constantFrom(
    'Active',
    'Active,Hold',
    'Draft,Active,Hold,Cancelled,Suspended',
    'ada',
    '*ada*',
    '*',
    '**',
    'a*b*c',
    '[empty]',
    '[EMPTY]',
    '',
    '1',
    '-1',
    '0',
    '2147483647',
    '2147483648',
    '9007199254740993',
    '1.5',
    '2024-01-01',
    '2024-01-01T10:00:00',
    '2024-01-01|2024-12-31',
    '|2024-01-01',
    '2024-01-01|',
    '|',
    '2024-13-45',
    '0000-00-00',
    '9999-12-31T23:59:59',
    '2024-02-30',
    'yesterday',
    'a,b,c,d,e,f,g,h,i,j,k,l',
    ','.repeat(50),
    'x'.repeat(5000),
  ),
  wildString(20),
);
const queryCondition = fc
  .tuple(fc.constantFrom(...LIST_FIELD_NAMES), fc.constantFrom(':', ':', ':', '=', '::', ''), queryValue)
  .map(([f, op, v]) => `${f}${op}${v}`);

/** Values for `query` (the list query language: `Field:value;Field:a,b;Date:lo|hi`, `*` wildcards, `[empty]`) and nonsense. */
export const queryLanguage = fc.oneof(
  { arbitrary: fc.array(queryCondition, { minLength: 1, maxLength: 4 }).map((c) => c.join(';')), weight: 4 },
  { arbitrary: fc.array(queryCondition, { minLength: 20, maxLength: 60 }).map((c) => c.join(';')), weight: 1 },
  {
    arbitrary: fc.constantFrom(
      ';',
      ';;;',
      ':',
      '::::',
      '|||',
      '%',
      '%25',
      '%zz',
      '%ED%A0%80',
      '%00',
      'Status:Active;',
      ';Status:Active',
      'Status:Active;Status:Hold',
    ),
    weight: 1,
  },
  { arbitrary: wildString(40), weight: 2 },
);

const pageValue = fc.oneof(
  fc.constantFrom(
    '-1',
    '0',
    '1',
    '2',
    '100',
    '9999',
    '10000',
    '10001',
    '2147483647',
    '2147483648',
    '9007199254740993',
    '1e3',
    '1.5',
    ' 5',
    '5 ',
    '+5',
    '0x10',
    '',
    'abc',
    '٥',
    'Infinity',
    'NaN',
    '00000000000000000000001',
  ),
  fc.integer().map(String),
  wildString(10),
);

/** A list endpoint's querystring: query, pageSize, pageNumber, sortOrder, sortExpression (any casing), repeated or unknown parameters, broken escapes. */
export const listQuerystring = fc
  .record(
    {
      query: queryLanguage,
      pageSize: pageValue,
      pageNumber: pageValue,
      sortOrder: fc.oneof(fc.constantFrom('Ascending', 'Descending', 'ascending', 'DESC', 'asc', '', 'Sideways'), wildString(10)),
      sortExpression: fc.oneof(fc.constantFrom(...LIST_FIELD_NAMES), wildString(20)),
      extra: fc.constantFrom(
        '',
        'query=a&query=b',
        'pageSize=1&pageSize=2',
        'foo=bar',
        'QUERY=Status:Active',
        'PageSize=5',
        '&&&',
        '=',
        'query',
        'query=%',
        'sortExpression=%ED%A0%80',
        '__proto__=1',
        'view=full',
      ),
      raw: fc.boolean(),
    },
    { requiredKeys: ['extra', 'raw'] },
  )
  .map(({ extra, raw, ...params }) => {
    const parts = Object.entries(params).map(([k, v]) => `${k}=${raw ? encodePart(String(v), ':;,|*[]') : encodePart(String(v))}`);
    if (extra) parts.push(extra);
    return parts.join('&');
  });

/* ------------------------------------------------------------------ requests and invariants */

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
  remoteAddress?: string;
  /** What the generator did (for the failure message). */
  how: string;
  /** The body names this property twice, and nothing else is amiss: the answer must be a 400 keyed on it. */
  duplicateKey?: string;
}

export interface Observation {
  status: number;
  cpuMs: number;
  body: string;
}

/** Sends one request and measures the server's CPU time (user + system) around app.inject: the app and the embedded database run in this process. */
export async function send(app: FastifyInstance, req: FuzzRequest): Promise<{ res: LightMyRequestResponse; cpuMs: number }> {
  const options: InjectOptions = {
    method: req.method as InjectOptions['method'],
    url: req.url,
    headers: req.headers,
    ...(req.payload !== undefined ? { payload: req.payload } : {}),
    ...(req.remoteAddress ? { remoteAddress: req.remoteAddress } : {}),
  };
  if (process.env.RENEW_FUZZ_TRACE) appendFileSync(process.env.RENEW_FUZZ_TRACE, `${describeRequest(req).slice(0, 3000)}\n`);
  const before = process.cpuUsage();
  const res = await app.inject(options);
  const used = process.cpuUsage(before);
  return { res: decoded(res), cpuMs: (used.user + used.system) / 1000 };
}

/**
 * The body as an HTTP client reads it: a request that accepts gzip, deflate or br gets answers past the
 * compression threshold compressed (light-my-request hands over the bytes as sent), so it is decoded here.
 */
function decoded(res: LightMyRequestResponse): LightMyRequestResponse {
  const encoding = String(res.headers['content-encoding'] ?? '').toLowerCase();
  const decode = { gzip: gunzipSync, deflate: inflateSync, br: brotliDecompressSync }[encoding];
  if (!decode) return res;
  const text = decode(res.rawPayload).toString('utf8');
  Object.assign(res, { payload: text, body: text });
  return res;
}

/** The request as a copy-pasteable reproduction (long strings shortened). */
export function describeRequest(req: FuzzRequest): string {
  const short = (s: string) => (s.length > 300 ? `${s.slice(0, 200)}…(${s.length} chars)` : s);
  const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, short(v)]));
  return `${req.method} ${short(req.url)}\n  headers: ${JSON.stringify(headers)}\n  body: ${req.payload === undefined ? '(none)' : short(JSON.stringify(req.payload))}\n  generated as: ${req.how}`;
}

/** The spec's error body: `{ErrorId: integer, HttpStatusCode: <status>, Errors: [{Key: string, Value: string}]}`; undefined when it is, else what is wrong. */
export function errorBodyProblem(res: LightMyRequestResponse): string | undefined {
  let body: any;
  try {
    body = JSON.parse(res.body);
  } catch {
    return `body is not JSON (content-type ${res.headers['content-type']})`;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'body is not an object';
  if (typeof body.ErrorId !== 'number' || !Number.isInteger(body.ErrorId)) return 'ErrorId is not an integer';
  if (body.HttpStatusCode !== res.statusCode) return `HttpStatusCode ${body.HttpStatusCode} is not the status ${res.statusCode}`;
  if (!Array.isArray(body.Errors) || body.Errors.length === 0) return 'Errors is not a non-empty list';
  for (const e of body.Errors) {
    if (typeof e !== 'object' || e === null || typeof e.Key !== 'string' || typeof e.Value !== 'string')
      return `an Errors entry is not {Key: string, Value: string}: ${JSON.stringify(e)}`;
  }
  const extra = Object.keys(body).filter((k) => !['ErrorId', 'HttpStatusCode', 'Errors'].includes(k));
  if (extra.length > 0) return `extra members ${extra.join(', ')}`;
  return undefined;
}

/** Tables whose row counts must not move on a refused (4xx) request; audit_log gets a row for every change. */
export const WATCHED_TABLES = [
  'audit_log',
  'customers',
  'payments',
  'ledger_entries',
  'ledger_allocations',
  'customer_notes',
  'subscriptions',
  'payment_methods',
  'addresses',
  'invoices',
  'bulk_jobs',
  'bulk_job_records',
  'customer_email_preferences',
  'email_outbox',
] as const;

export async function rowCounts(db: Kysely<any>, tables: readonly string[] = WATCHED_TABLES): Promise<Record<string, number>> {
  const select = tables.map((t) => `(select count(*) from ${t}) as ${t}`).join(', ');
  const { rows } = await sql.raw<Record<string, string | number>>(`select ${select}`).execute(db);
  return Object.fromEntries(Object.entries(rows[0]!).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), Number(v)]));
}

/** A known finding another engineer is fixing: recognised so it fails with a clear message and does not hide new findings. */
export interface KnownFinding {
  id: string;
  message: string;
  /** 'response' (default): matches a wrong answer; 'cpu': matches a request over the CPU budget. */
  kind?: 'response' | 'cpu';
  matches(req: FuzzRequest, res: LightMyRequestResponse): boolean;
}

export interface Stats {
  requests: number;
  byStatus: Record<number, number>;
  maxCpuMs: number;
  maxCpuRequest?: string;
  /** The most CPU a request used that no finding explains. */
  maxCpuMsClean: number;
  known: Map<string, { count: number; example: string }>;
  failures: number;
  ms: number;
}

export function newStats(): Stats {
  return { requests: 0, byStatus: {}, maxCpuMs: 0, maxCpuMsClean: 0, known: new Map(), failures: 0, ms: 0 };
}

export class FuzzFailure extends Error {}

/**
 * Sends a request and checks every invariant: status < 500; a non-2xx answer is
 * the spec's error body; at most CPU_BUDGET_MS of CPU; a 4xx changes no watched
 * table. A known finding is recorded in stats.known (the caller fails the test
 * with its message); anything else throws a FuzzFailure with a reproduction. Returns the answer.
 */
export async function check(
  app: FastifyInstance,
  db: Kysely<any>,
  req: FuzzRequest,
  stats: Stats,
  known: readonly KnownFinding[],
): Promise<LightMyRequestResponse> {
  const before = await rowCounts(db);
  let { res, cpuMs } = await send(app, req);
  stats.requests += 1;
  stats.byStatus[res.statusCode] = (stats.byStatus[res.statusCode] ?? 0) + 1;
  const problems: string[] = [];
  const status = res.statusCode;
  const record = (finding: KnownFinding) => {
    const entry = stats.known.get(finding.id) ?? { count: 0, example: describeRequest(req) };
    entry.count += 1;
    stats.known.set(finding.id, entry);
  };
  let explained = false;
  const isKnown = known.find((k) => (k.kind ?? 'response') === 'response' && k.matches(req, res));
  if (isKnown) {
    record(isKnown);
    explained = true;
  } else {
    if (status >= 500) problems.push(`status ${status} (server error)`);
    if ((status < 200 || status >= 300) && status !== 304) {
      const problem = errorBodyProblem(res);
      if (problem) problems.push(`status ${status} but not the spec's error body: ${problem}`);
    }
  }
  if (status >= 400 && status < 500) {
    const after = await rowCounts(db);
    const changed = Object.keys(before).filter((t) => before[t] !== after[t]);
    if (changed.length > 0)
      problems.push(`refused with ${status} but wrote: ${changed.map((t) => `${t} ${before[t]}→${after[t]}`).join(', ')}`);
  }
  if (cpuMs > CPU_BUDGET_MS) {
    // Measured once more: a garbage collection (its threads count in process.cpuUsage) or a first JIT compile is not
    // the request's cost. Counted only when the repeat took the same way (same status); a repeat that is refused
    // where the first was not (a spent CAPTCHA token, a duplicate) proves nothing, and the first measurement stands.
    const again = await send(app, req);
    if (again.res.statusCode === status) cpuMs = Math.min(cpuMs, again.cpuMs);
  }
  if (cpuMs > stats.maxCpuMs) {
    stats.maxCpuMs = cpuMs;
    stats.maxCpuRequest = `${req.method} ${req.url.slice(0, 120)} (${req.how})`;
  }
  if (cpuMs > CPU_BUDGET_MS) {
    const cpuKnown = known.find((k) => k.kind === 'cpu' && k.matches(req, res));
    if (cpuKnown) {
      record(cpuKnown);
      explained = true;
    } else problems.push(`used ${cpuMs.toFixed(1)} ms of server CPU (budget ${CPU_BUDGET_MS} ms)`);
  }
  if (!explained && cpuMs > stats.maxCpuMsClean) stats.maxCpuMsClean = cpuMs;
  if (problems.length > 0) {
    stats.failures += 1;
    throw new FuzzFailure(`${problems.join('; ')}\n  request: ${describeRequest(req)}\n  response: ${status} ${res.body.slice(0, 500)}`);
  }
  return res;
}

/** A table of the figures, for the log. */
export function formatStats(rows: Array<[string, Stats]>): string {
  const lines = rows.map(([op, s]) => {
    const statuses = Object.entries(s.byStatus)
      .map(([k, v]) => `${k}×${v}`)
      .join(' ');
    const known = [...s.known.entries()].map(([k, v]) => `${k}×${v.count}`).join(' ');
    return `${op.padEnd(62)} ${String(s.requests).padStart(6)} req  fail ${s.failures}  maxCPU ${s.maxCpuMs.toFixed(1).padStart(6)} ms (${s.maxCpuMsClean.toFixed(1)} ms without findings)  ${(s.ms / 1000).toFixed(1).padStart(6)} s  [${statuses}]${known ? `  known: ${known}` : ''}`;
  });
  const total = rows.reduce((a, [, s]) => a + s.requests, 0);
  const maxCpu = Math.max(0, ...rows.map(([, s]) => s.maxCpuMs));
  const maxClean = Math.max(0, ...rows.map(([, s]) => s.maxCpuMsClean));
  const failures = rows.reduce((a, [, s]) => a + s.failures, 0);
  const findings = new Map<string, number>();
  for (const [, s] of rows) for (const [id, v] of s.known) findings.set(id, (findings.get(id) ?? 0) + v.count);
  const ms = rows.reduce((a, [, s]) => a + s.ms, 0);
  return [
    ...lines,
    `TOTAL ${total} requests in ${(ms / 1000).toFixed(1)} s, ${failures} unexplained failures, findings: ${[...findings].map(([id, n]) => `${id}×${n}`).join(' ') || 'none'}; max CPU ${maxCpu.toFixed(1)} ms (${maxClean.toFixed(1)} ms without findings)`,
  ].join('\n');
}
