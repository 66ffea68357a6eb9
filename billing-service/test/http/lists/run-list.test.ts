import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle, type Db } from '../../../src/db/database.js';
import type { NewCustomerRow } from '../../../src/db/schema.js';
import { ApiError } from '../../../src/http/errors.js';
import {
  conditionSql,
  listInputFromUrl,
  parseListRequest,
  runList,
  setListHeaders,
  type ListField,
  type ListRequestInput,
  type ListSort,
} from '../../../src/http/lists/index.js';
import { fieldsWithSubquery } from './fields.fixture.js';

let handle: DatabaseHandle;
let db: Db;
let fields: readonly ListField[];
let accountId: number;
let otherAccountId: number;

const INJECTION = "O'Brien; drop table customers; --";

/** Account A's customers: every case the filters and the sort must tell apart. */
const CUSTOMERS: Array<Partial<NewCustomerRow> & { firstName: string }> = [
  {
    firstName: 'Alice',
    lastName: 'Smith',
    status: 'Active',
    title: 'Ms',
    marketingId: 10,
    erpCustomerType: 'Individual',
    createdAt: new Date('2024-01-01T00:00:00Z'),
  },
  {
    firstName: 'Bob',
    lastName: 'smithson',
    status: 'Hold',
    title: 'Mr',
    marketingId: 20,
    erpCustomerType: 'Company',
    createdAt: new Date('2024-01-31T23:59:59Z'),
  },
  {
    firstName: 'Carol',
    lastName: 'Goldsmith',
    status: 'Draft',
    title: null,
    marketingId: null,
    createdAt: new Date('2024-02-01T00:00:00Z'),
  },
  {
    firstName: 'Dan',
    lastName: null,
    status: 'Active',
    title: 'Dr',
    marketingId: -5,
    erpCustomerType: 'Individual',
    createdAt: new Date('2024-02-15T12:00:00Z'),
  },
  { firstName: 'Eve', lastName: '', status: 'Suspended', title: '', marketingId: 0, createdAt: new Date('2024-03-01T00:00:00Z') },
  { firstName: 'Frank', lastName: '123', status: 'Cancelled', title: 'Mr', createdAt: new Date('2023-12-31T23:59:59Z') },
  { firstName: 'Gina', lastName: '9lives', status: 'Active', createdAt: new Date('2024-04-01T00:00:00Z') },
  { firstName: 'Hank', lastName: 'adams', status: 'Active', createdAt: new Date('2024-04-02T00:00:00Z') },
  { firstName: 'Ivy', lastName: 'Adams', status: 'Active', createdAt: new Date('2024-04-03T00:00:00Z') },
  { firstName: 'Jay', lastName: 'Zed', status: 'Active', createdAt: new Date('2024-04-04T00:00:00Z') },
  { firstName: 'Kim', lastName: 'baker', status: 'Hold', createdAt: new Date('2024-04-05T00:00:00Z') },
  { firstName: 'Liam', lastName: INJECTION, status: 'Draft', createdAt: new Date('2024-04-06T00:00:00Z') },
  { firstName: 'Mia', lastName: '50%_off', status: 'Draft', createdAt: new Date('2024-04-07T00:00:00Z') },
  { firstName: 'Ned', lastName: 'a_b', status: 'Draft', createdAt: new Date('2024-04-08T00:00:00Z') },
  { firstName: 'Oda', lastName: 'axb', status: 'Draft', createdAt: new Date('2024-04-09T00:00:00Z') },
  { firstName: 'Pia', lastName: 'back\\slash', status: 'Draft', createdAt: new Date('2024-04-10T00:00:00Z') },
];

beforeAll(async () => {
  handle = await openDatabase({});
  db = handle.db;
  fields = fieldsWithSubquery(db);
  const account = (name: string) =>
    db
      .insertInto('accounts')
      .values({ name, privateKeyHash: `${name}-private`, publicKeyHash: `${name}-public` })
      .returning('id')
      .executeTakeFirstOrThrow();
  accountId = (await account('a')).id;
  otherAccountId = (await account('b')).id;
  const ids = await db
    .insertInto('customers')
    .values(CUSTOMERS.map((c) => ({ currency: 'USD', ...c, accountId })))
    .returning(['id', 'firstName'])
    .execute();
  const alice = ids.find((r) => r.firstName === 'Alice')!.id;
  const bob = ids.find((r) => r.firstName === 'Bob')!.id;
  await db
    .insertInto('customerReferences')
    .values([
      { customerId: alice, reference1: 'REF-A' },
      { customerId: bob, reference1: 'other' },
    ])
    .execute();
  // another account's look-alike must never show up
  await db
    .insertInto('customers')
    .values({ accountId: otherAccountId, currency: 'USD', firstName: 'Zoe', lastName: 'Smith', status: 'Active' })
    .execute();
});

afterAll(async () => {
  await handle?.close();
});

const DEFAULT_SORT: ListSort = { field: 'FirstName', order: 'Ascending' };
const baseQuery = () =>
  db
    .selectFrom('customers')
    .where('customers.accountId', '=', accountId)
    .select(['customers.id', 'customers.firstName', 'customers.lastName']);

async function list(input: ListRequestInput) {
  const request = parseListRequest(input, fields, DEFAULT_SORT);
  return runList(db, baseQuery(), request, fields, 'customers.id');
}
/** First names of the matching rows, in the default order (first name). */
async function names(query: string) {
  const result = await list({ query, pageSize: 1000 });
  expect(result.count).toBe(result.rows.length);
  expect(result.maxCount).toBe(CUSTOMERS.length);
  return result.rows.map((r) => r.firstName);
}

describe('runList filters', () => {
  it('returns the whole account when there is no filter, never another account', async () => {
    const result = await list({ pageSize: 1000 });
    expect(result.count).toBe(CUSTOMERS.length);
    expect(result.maxCount).toBe(CUSTOMERS.length);
    expect(result.rows.map((r) => r.firstName)).not.toContain('Zoe');
  });

  it('matches wildcards case-insensitively', async () => {
    expect(await names('LastName:*smith*')).toEqual(['Alice', 'Bob', 'Carol']);
    expect(await names('LastName:smith*')).toEqual(['Alice', 'Bob']);
    expect(await names('LastName:*SMITH')).toEqual(['Alice', 'Carol']);
    expect(await names('LastName:s*h*n')).toEqual(['Bob']);
  });

  it('matches equality case-insensitively and exactly', async () => {
    expect(await names('LastName:smith')).toEqual(['Alice']);
    expect(await names('LastName:ADAMS')).toEqual(['Hank', 'Ivy']);
  });

  it('treats LIKE metacharacters and backslashes in values as literal text', async () => {
    expect(await names('LastName:a_b')).toEqual(['Ned']);
    expect(await names('LastName:50%25_off')).toEqual(['Mia']);
    expect(await names('LastName:*%25*')).toEqual(['Mia']);
    expect(await names('LastName:*_*')).toEqual(['Mia', 'Ned']);
    expect(await names('LastName:back%5Cslash')).toEqual(['Pia']);
    expect(await names('LastName:*\\*')).toEqual(['Pia']);
  });

  it('matches any of several enum values, and enum aliases', async () => {
    expect(await names('Status:Hold,suspended')).toEqual(['Bob', 'Eve', 'Kim']);
    expect(await names('Status:Active;LastName:*a*')).toEqual(['Hank', 'Ivy']);
    expect(await names('ErpEntityType:2')).toEqual(['Bob']);
    expect(await names('Status:zz*')).toEqual([]);
  });

  it('matches [empty] as null or empty for strings and enums, null for others', async () => {
    expect(await names('LastName:[empty]')).toEqual(['Dan', 'Eve']);
    expect(await names('Title:[empty];Status:Draft,Suspended')).toEqual(['Carol', 'Eve', 'Liam', 'Mia', 'Ned', 'Oda', 'Pia']);
    expect(await names('Title:Dr,[empty];Status:Active,Suspended;FirstName:*a*')).toEqual(['Dan', 'Gina', 'Hank', 'Jay']);
    expect(await names('MarketingId:[empty];Status:Draft')).toEqual(['Carol', 'Liam', 'Mia', 'Ned', 'Oda', 'Pia']);
  });

  it('matches integers', async () => {
    expect(await names('MarketingId:-5')).toEqual(['Dan']);
    expect(await names('MarketingId:0')).toEqual(['Eve']);
    expect(await names('MarketingId:2147483647')).toEqual([]);
  });

  it('matches date ranges with an inclusive lower and exclusive upper bound', async () => {
    expect(await names('CreatedTimestamp:2024-01-01|2024-02-01')).toEqual(['Alice', 'Bob']);
    expect(await names('CreatedTimestamp:2024-01-01T00:00:01|2024-02-01T00:00:01')).toEqual(['Bob', 'Carol']);
    expect(await names('CreatedTimestamp:|2024-01-01')).toEqual(['Frank']);
    expect(await names('CreatedTimestamp:2024-04-05|')).toEqual(['Kim', 'Liam', 'Mia', 'Ned', 'Oda', 'Pia']);
  });

  it('matches a single date as its whole day and a date-time as its second', async () => {
    expect(await names('CreatedTimestamp:2024-01-31')).toEqual(['Bob']);
    expect(await names('CreatedTimestamp:2024-02-15')).toEqual(['Dan']);
    expect(await names('CreatedTimestamp:2024-02-15T12:00:00')).toEqual(['Dan']);
    expect(await names('CreatedTimestamp:2024-02-15T12:00:01')).toEqual([]);
    // the day after 9999-12-31 is year 10000: must not reach the database as an invalid timestamp
    expect(await names('CreatedTimestamp:9999-12-31')).toEqual([]);
    expect(await names('CreatedTimestamp:0001-01-01|')).toHaveLength(CUSTOMERS.length);
  });

  it('filters on a correlated subquery field', async () => {
    expect(await names('CustomerReference.Reference1:ref-*')).toEqual(['Alice']);
    expect(await names('CustomerReference.Reference1:[empty]')).not.toContain('Alice');
    expect(await names('CustomerReference.Reference1:[empty]')).toHaveLength(CUSTOMERS.length - 2);
  });

  it('treats SQL injection attempts in values as literal values', async () => {
    expect(await names(`LastName:${encodeURIComponent(INJECTION)}`)).toEqual(['Liam']);
    expect(await names("LastName:O'Brien*")).toEqual(['Liam']);
    expect(await names("FirstName:' or 1=1 --")).toEqual([]);
    expect(await names("FirstName:') or ('1'='1")).toEqual([]);
    expect(await names('FirstName:%27%3B delete from customers%3B --')).toEqual([]);
    expect(await names("Status:Active') or ('a'='a*")).toEqual([]);
    // nothing was dropped or deleted
    const { count } = await db
      .selectFrom('customers')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    expect(Number(count)).toBe(CUSTOMERS.length + 1);
  });

  it('sends values only as parameters', () => {
    const request = parseListRequest(
      { query: `LastName:${encodeURIComponent(INJECTION)};Status:Active;MarketingId:7;CreatedTimestamp:2024-01-01` },
      fields,
      DEFAULT_SORT,
    );
    let query = baseQuery();
    for (const c of request.conditions) query = query.where(conditionSql(c, fields.find((f) => f.name === c.field)!));
    const compiled = query.compile();
    expect(compiled.sql).not.toMatch(/O'Brien|Active|2024|\b7\b/);
    expect(compiled.parameters).toEqual([accountId, INJECTION, 'Active', 7, '2024-01-01T00:00:00.000Z', '2024-01-02T00:00:00.000Z']);
  });

  it('rejects injection attempts in field names and sort parameters with a 400', async () => {
    for (const input of [
      { query: "LastName' or 1=1 --:x" },
      { sortOrder: 'Ascending', sortExpression: 'LastName; drop table customers' },
      { sortOrder: 'Ascending; drop table customers', sortExpression: 'LastName' },
    ]) {
      await expect(list(input)).rejects.toBeInstanceOf(ApiError);
    }
  });
});

/**
 * Expected ascending order: nulls first, then lower-cased UTF-16 (= byte for ASCII) order, as
 * `lower(x) collate "C"`. Array.prototype.sort is stable, so ties keep CUSTOMERS' order: the id order.
 */
function cOrder(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  return x === y ? 0 : x < y ? -1 : 1;
}

describe('runList sorting', () => {
  it('sorts ascending: null, then digits, then letters, case-insensitively (ties by id)', async () => {
    const { rows } = await list({ sortOrder: 'Ascending', sortExpression: 'LastName', pageSize: 1000 });
    const lastNames = rows.map((r) => r.lastName);
    expect(lastNames.slice(0, 5)).toEqual([null, '', '123', '50%_off', '9lives']);
    // 'adams' (Hank) was created before 'Adams' (Ivy)
    expect(lastNames.indexOf('adams')).toBeLessThan(lastNames.indexOf('Adams'));
    expect(lastNames.indexOf('adams')).toBeLessThan(lastNames.indexOf('Zed'));
    expect(lastNames).toEqual(CUSTOMERS.map((c) => c.lastName ?? null).sort(cOrder));
  });

  it('sorts descending with nulls last', async () => {
    const { rows } = await list({ sortOrder: 'descending', sortExpression: 'lastname', pageSize: 1000 });
    expect(rows.map((r) => r.lastName)).toEqual(
      CUSTOMERS.map((c) => c.lastName ?? null)
        .sort(cOrder)
        .reverse(),
    );
  });

  it('sorts integers and dates by value', async () => {
    const ascending = await list({ sortOrder: 'Ascending', sortExpression: 'MarketingId', pageSize: 1000 });
    const marketingOrder = ascending.rows.map((r) => r.firstName);
    // nulls first, then -5 (Dan), 0 (Eve), 10 (Alice), 20 (Bob)
    const nulls = CUSTOMERS.filter((c) => c.marketingId == null).length;
    expect(marketingOrder.slice(nulls)).toEqual(['Dan', 'Eve', 'Alice', 'Bob']);
    const descending = await list({ sortOrder: 'Descending', sortExpression: 'MarketingId', pageSize: 4 });
    expect(descending.rows.map((r) => r.firstName)).toEqual(['Bob', 'Alice', 'Eve', 'Dan']);
    const byDate = await list({ sortOrder: 'Descending', sortExpression: 'CreatedTimestamp', pageSize: 3 });
    expect(byDate.rows.map((r) => r.firstName)).toEqual(['Pia', 'Oda', 'Ned']);
  });

  it('pages a filter on the sort field itself (matches found first, then sorted) in the same order', async () => {
    const matching = CUSTOMERS.filter((c) => c.lastName?.toLowerCase().includes('a'))
      .map((c) => c.lastName ?? null)
      .sort(cOrder);
    for (const [sortOrder, expected] of [
      ['Ascending', matching],
      ['Descending', [...matching].reverse()],
    ] as const) {
      const pages: Array<string | null> = [];
      for (let pageNumber = 0; pageNumber < 4; pageNumber++) {
        const page = await list({ query: 'LastName:*a*', sortOrder, sortExpression: 'LastName', pageSize: 2, pageNumber });
        expect(page.count).toBe(matching.length);
        pages.push(...page.rows.map((r) => r.lastName));
      }
      expect(pages).toEqual(expected);
    }
    const exact = await list({ query: 'LastName:adams', sortOrder: 'Ascending', sortExpression: 'LastName' });
    expect(exact.rows.map((r) => r.firstName)).toEqual(['Hank', 'Ivy']);
  });

  it('sorts on a subquery field', async () => {
    const { rows } = await list({ sortOrder: 'Descending', sortExpression: 'CustomerReference.Reference1', pageSize: 2 });
    // descending puts nulls last: 'REF-A' (Alice) before 'other' (Bob), case-insensitively
    expect(rows.map((r) => r.firstName)).toEqual(['Alice', 'Bob']);
  });

  it('pages through ties without losing or repeating rows (id breaks ties)', async () => {
    for (const sortOrder of ['Ascending', 'Descending']) {
      const seen: number[] = [];
      for (let pageNumber = 0; pageNumber < 8; pageNumber++) {
        const page = await list({ sortOrder, sortExpression: 'Status', pageSize: 3, pageNumber });
        seen.push(...page.rows.map((r) => r.id));
      }
      expect(seen).toHaveLength(CUSTOMERS.length);
      expect(new Set(seen).size).toBe(CUSTOMERS.length);
    }
  });
});

describe('runList paging', () => {
  it('returns the requested page with counts of the filter and of everything', async () => {
    const all = (await list({ query: 'Status:Draft,Active', pageSize: 1000 })).rows.map((r) => r.firstName);
    const page = await list({ query: 'Status:Draft,Active', pageSize: 4, pageNumber: 1 });
    expect(page.rows.map((r) => r.firstName)).toEqual(all.slice(4, 8));
    expect(page.count).toBe(all.length);
    expect(page.maxCount).toBe(CUSTOMERS.length);
  });

  it('returns a short last page and an empty page past the end, still counting', async () => {
    const last = await list({ pageSize: 5, pageNumber: 3 });
    expect(last.rows).toHaveLength(CUSTOMERS.length - 15);
    const past = await list({ pageSize: 5, pageNumber: 50 });
    expect(past).toEqual({ rows: [], count: CUSTOMERS.length, maxCount: CUSTOMERS.length });
  });

  it('counts zero matches with the unfiltered total', async () => {
    expect(await list({ query: 'FirstName:nobody' })).toEqual({ rows: [], count: 0, maxCount: CUSTOMERS.length });
  });

  it('ignores an order by already on the base query', async () => {
    const request = parseListRequest({ sortOrder: 'Ascending', sortExpression: 'FirstName', pageSize: 2 }, fields, DEFAULT_SORT);
    const result = await runList(db, baseQuery().orderBy('customers.lastName', 'desc'), request, fields, 'customers.id');
    expect(result.rows.map((r) => r.firstName)).toEqual(['Alice', 'Bob']);
  });

  it('works on a base query with a join and its own selection', async () => {
    const request = parseListRequest(
      { query: 'Status:Active,Hold', sortOrder: 'Descending', sortExpression: 'LastName' },
      fields,
      DEFAULT_SORT,
    );
    const joined = db
      .selectFrom('customers')
      .leftJoin('customerReferences', 'customerReferences.customerId', 'customers.id')
      .where('customers.accountId', '=', accountId)
      .select(['customers.id', 'customers.lastName', 'customerReferences.reference1']);
    const result = await runList(db, joined, request, fields, 'customers.id');
    expect(result.count).toBe(CUSTOMERS.filter((c) => c.status === 'Active' || c.status === 'Hold').length);
    expect(result.rows.slice(0, 2)).toEqual([
      expect.objectContaining({ lastName: 'Zed', reference1: null }),
      expect.objectContaining({ lastName: 'smithson', reference1: 'other' }),
    ]);
  });
});

describe('a list route end to end', () => {
  it('reads the URL, filters, pages and sets the headers', async () => {
    const app = Fastify();
    app.get('/v1/customers', async (request, reply) => {
      const listRequest = parseListRequest(listInputFromUrl(request.url), fields, DEFAULT_SORT);
      const result = await runList(db, baseQuery(), listRequest, fields, 'customers.id');
      setListHeaders(reply, {
        pageNumber: listRequest.pageNumber,
        pageSize: listRequest.pageSize,
        count: result.count,
        maxCount: result.maxCount,
        sortOrder: listRequest.sort.order,
        sortExpression: listRequest.sort.field,
      });
      return result.rows.map((r) => r.firstName);
    });
    app.setErrorHandler((error, _request, reply) => {
      if (error instanceof ApiError) return reply.code(error.statusCode).send(error.errors);
      return reply.code(500).send(String(error));
    });

    // inject encodes the whole query value (querystring.stringify): the parser reads it all the same
    const response = await app.inject({
      method: 'GET',
      url: '/v1/customers',
      query: {
        query: 'Status:Active,Hold;LastName:*a*',
        PageSize: '2',
        pageNumber: '1',
        sortOrder: 'Descending',
        SortExpression: 'firstname',
      },
    });
    expect(response.statusCode).toBe(200);
    // Active or Hold with an "a" in the last name: Hank, Ivy, Kim; descending by first name
    expect(response.json()).toEqual(['Hank']);
    expect(response.headers).toMatchObject({
      'x-count': '3',
      'x-maxcount': String(CUSTOMERS.length),
      'x-currentpage': '1',
      'x-previouspage': '0',
      'x-nextpage': '-1',
      'x-pagesize': '2',
      'x-maxpageindex': '1',
      'x-sortorder': 'Descending',
      'x-sortexpression': 'FirstName',
    });

    const literalComma = await app.inject({ method: 'GET', url: '/v1/customers?query=LastName:Smith%2CJones' });
    expect(literalComma.json()).toEqual([]);
    const bad = await app.inject({ method: 'GET', url: '/v1/customers?query=LastName:Smith,Jones' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()[0].Value).toMatch(/^query not valid/);
    await app.close();
  });
});
