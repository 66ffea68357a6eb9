import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.js';
import { newCustomer } from '../helpers/api-fixtures.js';
import { customerTestCatalog } from './customer-fixtures.js';

// A filter on the leading characters of the field the list is sorted by (LastName:S*
// sorted by LastName) pages by walking the sort index in the range that can hold a
// match ([s, t) of lower(last_name)): the pages must be those of the whole sorted list.
let t: TestApp;
let shop: TestAccount;
const lastNames = [
  'Smith',
  'smith',
  'Sanders',
  'sanchez',
  'Stone',
  'SMITH',
  'S',
  's',
  'Sz',
  'Smith',
  'smith',
  'Taylor',
  'tanner',
  'Rogers',
  'r',
  '[bracket',
  'Šimon',
  'Ærø',
  'ßtraße',
  'Ｓmith',
  '9Lives',
  '9 lives',
  '99',
  '',
  '%percent',
  '_under',
  'Smi_th',
];
const customers: Array<{ id: number; lastName: string | null }> = [];

beforeAll(async () => {
  t = await startTestApp({ catalog: customerTestCatalog() });
  shop = await t.newAccount();
  for (const lastName of [...lastNames, null]) {
    customers.push({ id: await newCustomer(t, lastName === null ? {} : { lastName }, shop), lastName });
  }
  // another account's look-alikes never show up
  const other = await t.newAccount();
  await newCustomer(t, { lastName: 'Smith' }, other);
});
afterAll(async () => t?.close());

/** The sort order of string fields: nulls first, then the lower-cased text's byte order (lower(x) collate "C"), then id. */
function byteOrder(a: { id: number; lastName: string | null }, b: { id: number; lastName: string | null }): number {
  if (a.lastName === null || b.lastName === null) return a.lastName === b.lastName ? a.id - b.id : a.lastName === null ? -1 : 1;
  return Buffer.compare(Buffer.from(a.lastName.toLowerCase()), Buffer.from(b.lastName.toLowerCase())) || a.id - b.id;
}

async function page(query: string, order: 'Ascending' | 'Descending', pageSize: number, pageNumber: number) {
  const res = await t.call(
    'GET',
    `/v1/customers?query=${encodeURIComponent(query)}&sortOrder=${order}&sortExpression=LastName&pageSize=${pageSize}&pageNumber=${pageNumber}`,
    undefined,
    { as: shop },
  );
  expect(res.statusCode, res.body).toBe(200);
  return {
    ids: (res.json() as Array<{ id: number }>).map((c) => c.id),
    count: Number(res.headers['x-count']),
    maxCount: Number(res.headers['x-maxcount']),
  };
}

describe('GET /v1/customers: a filter on the leading characters of the sort field', () => {
  const cases: Array<[string, (name: string) => boolean]> = [
    ['LastName:S*', (n) => n.toLowerCase().startsWith('s')],
    ['LastName:sm*', (n) => n.toLowerCase().startsWith('sm')],
    ['LastName:SMITH', (n) => n.toLowerCase() === 'smith'],
    ['LastName:s*h', (n) => /^s.*h$/s.test(n.toLowerCase())],
    ['LastName:9*', (n) => n.startsWith('9')],
    ['LastName:%*', (n) => n.startsWith('%')],
    ['LastName:smi_th', (n) => n.toLowerCase() === 'smi_th'],
    ['LastName:[*', (n) => n.startsWith('[')],
    ['LastName:*s*', (n) => n.toLowerCase().includes('s')],
  ];
  for (const [query, matches] of cases) {
    it(`pages ${query} as the whole list sorted, both ways`, async () => {
      const expected = customers
        .filter((c) => c.lastName !== null && matches(c.lastName))
        .sort(byteOrder)
        .map((c) => c.id);
      expect(expected.length).toBeGreaterThan(0);
      for (const order of ['Ascending', 'Descending'] as const) {
        const all = order === 'Ascending' ? expected : [...expected].reverse();
        for (const pageSize of [1, 2, 3, 100]) {
          for (let pageNumber = 0; pageNumber * pageSize <= all.length; pageNumber++) {
            const got = await page(query, order, pageSize, pageNumber);
            expect(got, `${order} ${pageSize} #${pageNumber}`).toEqual({
              ids: all.slice(pageNumber * pageSize, (pageNumber + 1) * pageSize),
              count: expected.length,
              maxCount: customers.length,
            });
          }
        }
      }
    });
  }

  it('keeps the other filters', async () => {
    const got = await page('LastName:s*;FirstName:[empty]', 'Ascending', 100, 0);
    expect(got.ids).toEqual(
      customers
        .filter((c) => c.lastName?.toLowerCase().startsWith('s'))
        .sort(byteOrder)
        .map((c) => c.id),
    );
    expect((await page('LastName:s*;Status:Active', 'Ascending', 100, 0)).ids).toEqual([]);
  });
});
