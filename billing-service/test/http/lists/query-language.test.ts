import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/http/errors.js';
import { parseQuery, rawQueryParam } from '../../../src/http/lists/index.js';
import { FIELDS } from './fields.fixture.js';

const parse = (raw: string | undefined) => parseQuery(raw, FIELDS);
const day = (iso: string) => new Date(`${iso}Z`);

/** Asserts the spec's 400 shape and returns the message for further checks. */
function rejection(raw: string): string {
  try {
    parse(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError.statusCode).toBe(400);
    expect(apiError.errors).toHaveLength(1);
    expect(apiError.errors[0]!.Key).toBe('Api Error');
    expect(apiError.errors[0]!.Value).toMatch(/^query not valid/);
    return apiError.errors[0]!.Value;
  }
  throw new Error(`expected ${JSON.stringify(raw)} to be rejected`);
}

describe('parseQuery: structure', () => {
  it('gives no conditions for a missing or blank query', () => {
    expect(parse(undefined)).toEqual([]);
    expect(parse('')).toEqual([]);
    expect(parse('  ')).toEqual([]);
  });

  it('reads field:value and matches field names case-insensitively to the canonical name', () => {
    expect(parse('firstname:Bob')).toEqual([{ field: 'FirstName', op: 'equals', value: 'Bob' }]);
    expect(parse('FIRSTNAME:Bob')).toEqual([{ field: 'FirstName', op: 'equals', value: 'Bob' }]);
    expect(parse(' FirstName :Bob')).toEqual([{ field: 'FirstName', op: 'equals', value: 'Bob' }]);
  });

  it('reads several pairs separated by ; and tolerates one trailing ;', () => {
    const expected = [
      { field: 'FirstName', op: 'equals', value: 'Bob' },
      { field: 'LastName', op: 'equals', value: 'Smith' },
    ];
    expect(parse('FirstName:Bob;LastName:Smith')).toEqual(expected);
    expect(parse('FirstName:Bob;LastName:Smith;')).toEqual(expected);
  });

  it('allows the same field twice (both must match)', () => {
    expect(parse('FirstName:a*;FirstName:*z')).toHaveLength(2);
  });

  it('accepts 20 conditions and rejects 21', () => {
    expect(parse(Array(20).fill('FirstName:a').join(';'))).toHaveLength(20);
    expect(rejection(Array(21).fill('FirstName:a').join(';'))).toContain('more than 20');
  });

  it('accepts a 1000-character value and rejects 1001 (decoded length counts)', () => {
    expect(parse(`FirstName:${'a'.repeat(1000)}`)).toHaveLength(1);
    expect(parse(`FirstName:${'%2C'.repeat(1000)}`)).toEqual([{ field: 'FirstName', op: 'equals', value: ','.repeat(1000) }]);
    expect(rejection(`FirstName:${'a'.repeat(1001)}`)).toContain('longer than 1000');
  });
});

describe('parseQuery: encoding', () => {
  it('reads percent-encoded & , ; | : as literal text in a value', () => {
    expect(parse('LastName:Smith%26Sons%2C%20Ltd')).toEqual([{ field: 'LastName', op: 'equals', value: 'Smith&Sons, Ltd' }]);
    expect(parse('PrimaryEmail:a@x.com%3B b@y.com')).toEqual([{ field: 'PrimaryEmail', op: 'equals', value: 'a@x.com; b@y.com' }]);
  });

  it('keeps raw : and | in string values (only the first : separates)', () => {
    expect(parse('Reference:a:b|c')).toEqual([{ field: 'Reference', op: 'equals', value: 'a:b|c' }]);
  });

  it('reads + as a space and %2B as a plus; a stray % stays literal', () => {
    expect(parse('LastName:van+Dyke')).toEqual([{ field: 'LastName', op: 'equals', value: 'van Dyke' }]);
    expect(parse('Reference:a%2Bb')).toEqual([{ field: 'Reference', op: 'equals', value: 'a+b' }]);
    expect(parse('Reference:100%')).toEqual([{ field: 'Reference', op: 'equals', value: '100%' }]);
    expect(parse('Reference:%C3%A9t%C3%A9')).toEqual([{ field: 'Reference', op: 'equals', value: 'été' }]);
  });

  it('rejects percent-encoding that is not UTF-8', () => {
    expect(rejection('Reference:%FF')).toContain('UTF-8');
  });

  it('decodes encoded field names', () => {
    expect(parse('First%4Eame:x')).toEqual([{ field: 'FirstName', op: 'equals', value: 'x' }]);
  });

  it('reads a wholly encoded query (encodeURIComponent, URLSearchParams) as if sent raw', () => {
    const query = 'Status:Active,Hold;FirstName:*bo b*;CreatedTimestamp:2024-01-01T10:00:00|';
    const expected = parse(query);
    expect(parse(encodeURIComponent(query))).toEqual(expected);
    const viaForm = new URLSearchParams({ query }).toString().slice('query='.length);
    expect(parse(viaForm)).toEqual(expected);
    // in that form a literal comma is double-encoded
    expect(parse(encodeURIComponent('LastName:a%2Cb'))).toEqual([{ field: 'LastName', op: 'equals', value: 'a,b' }]);
  });
});

describe('parseQuery: [empty]', () => {
  it('is recognised on every field type, case-insensitively and when encoded', () => {
    expect(parse('FirstName:[empty]')).toEqual([{ field: 'FirstName', op: 'empty' }]);
    expect(parse('FirstName:[EMPTY]')).toEqual([{ field: 'FirstName', op: 'empty' }]);
    expect(parse('FirstName:%5Bempty%5D')).toEqual([{ field: 'FirstName', op: 'empty' }]);
    expect(parse('Title:[empty]')).toEqual([{ field: 'Title', op: 'empty' }]);
    expect(parse('MarketingId:[empty]')).toEqual([{ field: 'MarketingId', op: 'empty' }]);
    expect(parse('CreatedTimestamp:[empty]')).toEqual([{ field: 'CreatedTimestamp', op: 'empty' }]);
  });

  it('may be one of an enum any-of list', () => {
    expect(parse('Title:Dr,[empty]')).toEqual([{ field: 'Title', op: 'in', values: ['Dr'], orEmpty: true }]);
  });
});

describe('parseQuery: wildcards', () => {
  it('splits string values on * (anywhere, any number of times)', () => {
    expect(parse('LastName:*smith*')).toEqual([{ field: 'LastName', op: 'like', parts: ['', 'smith', ''] }]);
    expect(parse('LastName:a*b*c')).toEqual([{ field: 'LastName', op: 'like', parts: ['a', 'b', 'c'] }]);
    expect(parse('LastName:*')).toEqual([{ field: 'LastName', op: 'like', parts: ['', ''] }]);
    expect(parse('LastName:%2Asmith')).toEqual([{ field: 'LastName', op: 'like', parts: ['', 'smith'] }]);
  });

  it('expands on enum fields to the canonical values matched, case-insensitively', () => {
    expect(parse('Status:*e*')).toEqual([{ field: 'Status', op: 'in', values: ['Active', 'Suspended', 'Cancelled'], orEmpty: false }]);
    expect(parse('Title:m*')).toEqual([{ field: 'Title', op: 'in', values: ['Mr', 'Mrs', 'Ms', 'Miss'], orEmpty: false }]);
    expect(parse('Status:zz*')).toEqual([{ field: 'Status', op: 'in', values: [], orEmpty: false }]);
  });

  it('is not allowed on integer or date fields', () => {
    expect(rejection('MarketingId:1*')).toContain('not an integer');
    expect(rejection('CreatedTimestamp:2024-*')).toContain('not a date');
  });
});

describe('parseQuery: enum fields', () => {
  it('matches one value case-insensitively and returns the canonical value', () => {
    expect(parse('Status:active')).toEqual([{ field: 'Status', op: 'in', values: ['Active'], orEmpty: false }]);
  });

  it('reads an any-of list and drops duplicates', () => {
    expect(parse('Status:Active,HOLD,active')).toEqual([{ field: 'Status', op: 'in', values: ['Active', 'Hold'], orEmpty: false }]);
  });

  it('maps aliases to stored values', () => {
    expect(parse('ErpEntityType:1')).toEqual([{ field: 'ErpEntityType', op: 'in', values: ['Individual'], orEmpty: false }]);
    expect(parse('ErpEntityType:2,individual')).toEqual([
      { field: 'ErpEntityType', op: 'in', values: ['Company', 'Individual'], orEmpty: false },
    ]);
  });

  it('rejects values outside the enum and empty list items', () => {
    expect(rejection('Status:Open')).toContain('"Open" is not a value of Status');
    expect(rejection('ErpEntityType:3')).toContain('not a value');
    expect(rejection('Status:Active,')).toContain('empty value');
    expect(rejection('Status:Active,,Hold')).toContain('empty value');
    expect(rejection('Status:')).toContain('empty value');
  });
});

describe('parseQuery: integer fields', () => {
  it('reads whole numbers, negative ones and leading zeros', () => {
    expect(parse('MarketingId:42')).toEqual([{ field: 'MarketingId', op: 'integer', value: 42 }]);
    expect(parse('MarketingId:-7')).toEqual([{ field: 'MarketingId', op: 'integer', value: -7 }]);
    expect(parse('MarketingId:007')).toEqual([{ field: 'MarketingId', op: 'integer', value: 7 }]);
    expect(parse('MarketingId:-0')).toEqual([{ field: 'MarketingId', op: 'integer', value: 0 }]);
    expect(parse('MarketingId:2147483647')).toEqual([{ field: 'MarketingId', op: 'integer', value: 2147483647 }]);
    expect(parse('MarketingId:-2147483648')).toEqual([{ field: 'MarketingId', op: 'integer', value: -2147483648 }]);
  });

  it('rejects non-integers, out-of-range numbers and lists', () => {
    for (const bad of ['1.5', '1e3', 'abc', '+1', ' 1', '0x10', '2147483648', '-2147483649', '9'.repeat(400)]) {
      expect(rejection(`MarketingId:${encodeURIComponent(bad)}`)).toMatch(/not an integer|out of range/);
    }
    expect(rejection('MarketingId:')).toContain('no value');
    expect(rejection('MarketingId:1,2')).toContain('only allowed for enum fields');
  });
});

describe('parseQuery: date fields', () => {
  it('reads a single date as that whole UTC day', () => {
    expect(parse('CreatedTimestamp:2024-02-29')).toEqual([
      { field: 'CreatedTimestamp', op: 'range', from: day('2024-02-29T00:00:00'), to: day('2024-03-01T00:00:00') },
    ]);
  });

  it('reads a single date-time as that whole second', () => {
    expect(parse('CreatedTimestamp:2024-01-31T23:59:59')).toEqual([
      { field: 'CreatedTimestamp', op: 'range', from: day('2024-01-31T23:59:59'), to: day('2024-02-01T00:00:00') },
    ]);
  });

  it('reads ranges with either side optional', () => {
    expect(parse('CreatedTimestamp:2024-01-01|2024-02-01T12:30:00')).toEqual([
      { field: 'CreatedTimestamp', op: 'range', from: day('2024-01-01T00:00:00'), to: day('2024-02-01T12:30:00') },
    ]);
    expect(parse('CreatedTimestamp:2024-01-01|')).toEqual([
      { field: 'CreatedTimestamp', op: 'range', from: day('2024-01-01T00:00:00'), to: null },
    ]);
    expect(parse('CreatedTimestamp:|2024-02-01')).toEqual([
      { field: 'CreatedTimestamp', op: 'range', from: null, to: day('2024-02-01T00:00:00') },
    ]);
  });

  it('accepts encoded colons and a trailing Z', () => {
    expect(parse('CreatedTimestamp:2024-01-01T10%3A00%3A00Z|')).toEqual([
      { field: 'CreatedTimestamp', op: 'range', from: day('2024-01-01T10:00:00'), to: null },
    ]);
  });

  it('handles years before 100 without the Date.UTC century shift', () => {
    const [condition] = parse('CreatedTimestamp:0099-12-31|');
    expect(condition).toMatchObject({ op: 'range' });
    expect((condition as { from: Date }).from.toISOString()).toBe('0099-12-31T00:00:00.000Z');
  });

  it('rejects bad dates', () => {
    for (const bad of [
      '2023-02-29',
      '2024-13-01',
      '2024-00-10',
      '2024-04-31',
      '2024-1-1',
      '24-01-01',
      '2024-01-01T24:00:00',
      '2024-01-01T10:60:00',
      '2024-01-01T10:00',
      '2024-01-01 10:00:00',
      '0000-01-01',
      'yesterday',
    ]) {
      expect(rejection(`CreatedTimestamp:${bad}`)).toContain('not a date');
      expect(rejection(`CreatedTimestamp:${bad}|`)).toContain('not a date');
    }
  });

  it('rejects ranges whose lower bound is not before the upper, with no bound, or with two |', () => {
    expect(rejection('CreatedTimestamp:2024-02-01|2024-01-01')).toContain('lower bound not before');
    expect(rejection('CreatedTimestamp:2024-01-01|2024-01-01')).toContain('lower bound not before');
    expect(rejection('CreatedTimestamp:|')).toContain('neither bound');
    expect(rejection('CreatedTimestamp:2024-01-01|2024-01-02|2024-01-03')).toContain("exactly one '|'");
    expect(rejection('CreatedTimestamp:2024-01-01,2024-01-02')).toContain('only allowed for enum fields');
  });
});

describe('parseQuery: malformed queries', () => {
  it('rejects unknown fields and names them', () => {
    expect(rejection('Foo:bar')).toContain('unknown field "Foo"');
  });

  it('rejects an empty field name', () => {
    expect(rejection(':bar')).toContain('no field name');
    expect(rejection('%20:bar')).toContain('no field name');
  });

  it('rejects a pair without :', () => {
    expect(rejection('FirstName')).toContain("has no ':'");
    expect(rejection('FirstName:a;LastName')).toContain("condition 2 has no ':'");
  });

  it('rejects empty pairs from doubled, leading or lone separators', () => {
    expect(rejection('FirstName:a;;LastName:b')).toContain('condition 2 is empty');
    expect(rejection(';FirstName:a')).toContain('condition 1 is empty');
    expect(rejection('FirstName:a;;')).toContain('is empty');
    expect(rejection(';')).toContain('is empty');
  });

  it('rejects a list on a non-enum field (a literal comma must be encoded)', () => {
    expect(rejection('LastName:Smith,Jones')).toContain('only allowed for enum fields');
  });

  it('rejects an empty string value (use [empty])', () => {
    expect(rejection('FirstName:')).toContain('[empty]');
  });
});

describe('rawQueryParam', () => {
  it('returns the value still percent-encoded', () => {
    expect(rawQueryParam('/v1/customers?query=LastName:a%2Cb&pageSize=5')).toBe('LastName:a%2Cb');
    expect(rawQueryParam('/v1/customers?pageSize=5&query=Status:Active,Hold')).toBe('Status:Active,Hold');
  });

  it('matches the name case-insensitively and takes other names', () => {
    expect(rawQueryParam('/x?Query=a:b')).toBe('a:b');
    expect(rawQueryParam('/x?PAGESIZE=5', 'pageSize')).toBe('5');
    expect(rawQueryParam('/x?qu%65ry=a:b')).toBe('a:b');
  });

  it('handles absence, a bare name, full URLs, fragments and = inside the value', () => {
    expect(rawQueryParam('/x')).toBeUndefined();
    expect(rawQueryParam('/x?pageSize=5')).toBeUndefined();
    expect(rawQueryParam('/x?query')).toBe('');
    expect(rawQueryParam('https://api.example.com/v1/customers?query=a:b#frag')).toBe('a:b');
    expect(rawQueryParam('/x?query=a:b=c')).toBe('a:b=c');
    expect(rawQueryParam('/x?%FF=1&query=a:b')).toBe('a:b');
  });

  it('rejects a parameter given twice', () => {
    expect(() => rawQueryParam('/x?query=a:b&QUERY=c:d')).toThrow(ApiError);
  });
});
