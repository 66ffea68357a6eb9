import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/http/errors.js';
import { MAX_INTEGER, MIN_INTEGER, parseQuery, rawQueryParam, type QueryCondition } from '../../../src/http/lists/index.js';
import { FIELDS } from './fields.fixture.js';
import { DAY } from '../../helpers/api-fixtures.js';

/** A raw query fragment and the condition(s) it must parse to. */
interface Case {
  raw: string;
  expected: QueryCondition;
}

const pct = (text: string) => [...new TextEncoder().encode(text)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');

/** Characters a client must encode inside a value: separators, URL syntax, and % itself. */
const MUST_ENCODE = new Set(['%', '&', ',', ';', '+', '#', '*']);

/** Encodes `text` as a client may: required characters always, any other one at random. */
const encoded = (text: string) =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((flags) => [...text].map((ch, i) => (MUST_ENCODE.has(ch) || flags[i] ? pct(ch) : ch)).join(''));

const valueChar = fc
  .oneof(
    fc.constantFrom(
      'a',
      'B',
      'z',
      '0',
      '9',
      ' ',
      '&',
      ',',
      ';',
      ':',
      '|',
      '%',
      '+',
      '#',
      '=',
      '?',
      '/',
      '[',
      ']',
      '_',
      '\\',
      '"',
      "'",
      'é',
      '€',
    ),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
  )
  .filter((ch) => ch !== '*');
const text = (minLength: number) => fc.array(valueChar, { minLength, maxLength: 12 }).map((chars) => chars.join(''));

const fieldName = (name: string) => fc.mixedCase(fc.constant(name));
const emptyKeyword = fc.mixedCase(fc.constant('[empty]')).chain((k) => fc.constantFrom(k, pct(k)));

const stringField = fc.constantFrom('FirstName', 'LastName', 'Reference', 'PrimaryEmail');

const equalsCase: fc.Arbitrary<Case> = fc
  .record({ field: stringField, value: text(1).filter((v) => v.toLowerCase() !== '[empty]') })
  .chain(({ field, value }) =>
    fc.tuple(fieldName(field), encoded(value)).map(([name, raw]) => ({
      raw: `${name}:${raw}`,
      expected: { field, op: 'equals', value },
    })),
  );

const likeCase: fc.Arbitrary<Case> = fc
  .record({ field: stringField, parts: fc.array(text(0), { minLength: 2, maxLength: 4 }) })
  .chain(({ field, parts }) =>
    fc
      .tuple(fieldName(field), fc.tuple(...parts.map(encoded)), fc.constantFrom('*', '%2A'))
      .map(([name, rawParts, star]) => ({ raw: `${name}:${rawParts.join(star)}`, expected: { field, op: 'like', parts } })),
  );

const emptyCase: fc.Arbitrary<Case> = fc
  .constantFrom(...FIELDS.map((f) => f.name))
  .chain((field) =>
    fc.tuple(fieldName(field), emptyKeyword).map(([name, keyword]) => ({ raw: `${name}:${keyword}`, expected: { field, op: 'empty' } })),
  );

/** Enum item: a canonical value (any case), an alias, a prefix wildcard, or [empty]; with what it stands for. */
type EnumItem = { raw: string; values: string[]; empty: boolean };
const enumItem = (values: readonly string[], aliases: Record<string, string>): fc.Arbitrary<EnumItem> =>
  fc.oneof(
    fc.constantFrom(...values).chain((v) => fc.mixedCase(fc.constant(v)).map((raw) => ({ raw, values: [v], empty: false }))),
    ...(Object.keys(aliases).length
      ? [fc.constantFrom(...Object.entries(aliases)).map(([alias, v]) => ({ raw: alias, values: [v], empty: false }))]
      : []),
    fc
      .constantFrom(...values)
      .chain((v) => fc.integer({ min: 0, max: v.length }).map((n) => v.slice(0, n).toLowerCase()))
      .map((prefix) => ({
        raw: `${prefix}*`,
        values: values.filter((v) => v.toLowerCase().startsWith(prefix)),
        empty: false,
      })),
    emptyKeyword.map((raw) => ({ raw, values: [], empty: true })),
  );

const enumCase: fc.Arbitrary<Case> = fc.constantFrom(...FIELDS.filter((f) => f.type === 'enum')).chain((field) =>
  fc
    .tuple(fieldName(field.name), fc.array(enumItem(field.values ?? [], { ...field.aliases }), { minLength: 1, maxLength: 4 }))
    .map(([name, items]): Case => {
      const values = [...new Set(items.flatMap((i) => i.values))];
      const orEmpty = items.some((i) => i.empty);
      const onlyEmpty = items.every((i) => i.empty);
      return {
        raw: `${name}:${items.map((i) => i.raw).join(',')}`,
        expected: onlyEmpty ? { field: field.name, op: 'empty' } : { field: field.name, op: 'in', values, orEmpty },
      };
    }),
);

const integerCase: fc.Arbitrary<Case> = fc
  .record({
    value: fc.integer({ min: MIN_INTEGER, max: MAX_INTEGER }),
    zeros: fc.integer({ min: 0, max: 3 }),
    name: fieldName('MarketingId'),
  })
  .map(({ value, zeros, name }) => ({
    raw: `${name}:${value < 0 ? '-' : ''}${'0'.repeat(zeros)}${Math.abs(value)}`,
    expected: { field: 'MarketingId', op: 'integer', value },
  }));

const instant = fc.integer({ min: Date.UTC(1, 0, 1) / 1000, max: Date.UTC(9999, 11, 30) / 1000 }).chain((seconds) =>
  fc.boolean().map((dateOnly) => {
    const ms = seconds * 1000;
    return { date: new Date(dateOnly ? ms - (((ms % DAY) + DAY) % DAY) : ms), dateOnly };
  }),
);
/** Formats as a client would: YYYY-MM-DD or YYYY-MM-DDTHH:mm:SS, colons maybe encoded. */
const formatted = ({ date, dateOnly }: { date: Date; dateOnly: boolean }) =>
  fc.boolean().map((encodeColons) => {
    const iso = date.toISOString().slice(0, 19);
    const text = dateOnly ? iso.slice(0, 10) : iso;
    return encodeColons ? text.replace(/:/g, '%3A') : text;
  });

const dateCase: fc.Arbitrary<Case> = fc
  .record({ name: fieldName('CreatedTimestamp'), a: instant, b: instant, shape: fc.constantFrom('single', 'both', 'lower', 'upper') })
  .filter(({ a, b, shape }) => shape !== 'both' || a.date.getTime() !== b.date.getTime())
  .chain(({ name, a, b, shape }): fc.Arbitrary<Case> => {
    const [lo, hi] = a.date.getTime() < b.date.getTime() ? [a, b] : [b, a];
    const field = 'CreatedTimestamp';
    switch (shape) {
      case 'single':
        return formatted(a).map(
          (t): Case => ({
            raw: `${name}:${t}`,
            expected: { field, op: 'range', from: a.date, to: new Date(a.date.getTime() + (a.dateOnly ? DAY : 1000)) },
          }),
        );
      case 'both':
        return fc.tuple(formatted(lo), formatted(hi)).map(
          ([l, h]): Case => ({
            raw: `${name}:${l}|${h}`,
            expected: { field, op: 'range', from: lo.date, to: hi.date },
          }),
        );
      case 'lower':
        return formatted(a).map((t): Case => ({ raw: `${name}:${t}|`, expected: { field, op: 'range', from: a.date, to: null } }));
      default:
        return formatted(a).map((t): Case => ({ raw: `${name}:|${t}`, expected: { field, op: 'range', from: null, to: a.date } }));
    }
  });

const anyCase = fc.oneof(equalsCase, likeCase, emptyCase, enumCase, integerCase, dateCase);
const validQuery = fc
  .record({ cases: fc.array(anyCase, { minLength: 1, maxLength: 20 }), trailing: fc.boolean() })
  .map(({ cases, trailing }) => ({
    raw: cases.map((c) => c.raw).join(';') + (trailing ? ';' : ''),
    expected: cases.map((c) => c.expected),
  }));

/** Parsing must succeed or be a 400 'query not valid'; anything else is a bug. */
function parsesOrRejects(raw: string) {
  try {
    const conditions = parseQuery(raw, FIELDS);
    expect(conditions.length).toBeLessThanOrEqual(20);
    for (const c of conditions) {
      expect(FIELDS.map((f) => f.name)).toContain(c.field);
      if (c.op === 'range') {
        expect(c.from ?? c.to).not.toBeNull();
        if (c.from && c.to) expect(c.from.getTime()).toBeLessThan(c.to.getTime());
      }
    }
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).statusCode).toBe(400);
    expect((error as ApiError).errors[0]!.Value).toMatch(/^query not valid/);
  }
}

describe('parseQuery properties', () => {
  it('parses every valid query to the expected conditions', () => {
    fc.assert(
      fc.property(validQuery, ({ raw, expected }) => {
        expect(parseQuery(raw, FIELDS)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('finds the same raw query in a request URL', () => {
    fc.assert(
      fc.property(validQuery, fc.mixedCase(fc.constant('query')), ({ raw, expected }, name) => {
        const fromUrl = rawQueryParam(`/v1/customers?pageSize=5&${name}=${raw}&pageNumber=1`);
        expect(fromUrl).toBe(raw);
        expect(parseQuery(fromUrl, FIELDS)).toEqual(expected);
      }),
    );
  });

  it('parses a wholly encoded valid query the same way when it needs no escapes', () => {
    // encodeURIComponent of a query whose values hold no separators or % (those would need double encoding)
    const plain = fc.oneof(emptyCase, enumCase, integerCase, dateCase);
    fc.assert(
      fc.property(fc.array(plain, { minLength: 1, maxLength: 10 }), (cases) => {
        const raw = cases.map((c) => c.raw).join(';');
        expect(parseQuery(encodeURIComponent(decodeURIComponent(raw)), FIELDS)).toEqual(cases.map((c) => c.expected));
      }),
    );
  });

  const noise = fc.constantFrom(
    ';',
    ':',
    ',',
    '|',
    '*',
    '%',
    '%2C',
    '%3A',
    '%3B',
    '%FF',
    '%C3',
    '%',
    '+',
    ' ',
    '[empty]',
    '-',
    '1',
    '0',
    'T10:00:00',
    '2024-01-01',
    '2024-02-30',
    'FirstName',
    'status',
    'Status',
    'MarketingId',
    'CreatedTimestamp',
    'ErpEntityType',
    'Active',
    'Unknown',
  );

  it('never throws anything but a 400 on queries built from syntax fragments', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(noise, fc.string({ maxLength: 3 })), { maxLength: 30 }), (pieces) => parsesOrRejects(pieces.join(''))),
      { numRuns: 1000 },
    );
  });

  it('never throws anything but a 400 on random strings', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 60 }), parsesOrRejects), { numRuns: 500 });
  });

  it('never throws anything but a 400 on mutated valid queries', () => {
    const mutated = fc
      .tuple(
        validQuery,
        fc.array(fc.tuple(fc.nat(), fc.nat(3), fc.oneof(noise, fc.string({ maxLength: 2 }))), { minLength: 1, maxLength: 5 }),
      )
      .map(([{ raw }, edits]) =>
        edits.reduce((q, [at, remove, insert]) => {
          const i = q.length ? at % (q.length + 1) : 0;
          return q.slice(0, i) + insert + q.slice(i + remove);
        }, raw),
      );
    fc.assert(fc.property(mutated, parsesOrRejects), { numRuns: 1000 });
  });

  it('rejects lists on non-enum fields, unknown fields and bad dates with a 400', () => {
    const nonEnum = fc.constantFrom('FirstName', 'MarketingId', 'CreatedTimestamp');
    const bad = fc.oneof(
      fc.tuple(nonEnum, text(0), text(0)).map(([f, a, b]) => `${f}:${encodeURIComponent(a)},${encodeURIComponent(b)}`),
      fc
        .string({ minLength: 1, maxLength: 10 })
        .filter((n) => !FIELDS.some((f) => f.name.toLowerCase() === n.trim().toLowerCase()))
        .map((n) => `${encodeURIComponent(n)}:x`),
      fc
        .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 13, max: 99 }), fc.integer({ min: 1, max: 28 }))
        .map(([y, m, d]) => `CreatedTimestamp:${String(y).padStart(4, '0')}-${m}-${String(d).padStart(2, '0')}`),
    );
    fc.assert(
      fc.property(bad, (raw) => {
        expect(() => parseQuery(raw, FIELDS)).toThrow(ApiError);
        parsesOrRejects(raw);
      }),
    );
  });
});
