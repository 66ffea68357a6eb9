import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/http/errors.js';
import {
  DEFAULT_PAGE_SIZE,
  ListQuerystring,
  listHeaders,
  listInputFromUrl,
  MAX_PAGE_SIZE,
  parseListRequest,
  setListHeaders,
  type ListRequestInput,
  type ListSort,
} from '../../../src/http/lists/index.js';
import { FIELDS } from './fields.fixture.js';

const DEFAULT_SORT: ListSort = { field: 'CreatedTimestamp', order: 'Descending' };
const parse = (input: ListRequestInput) => parseListRequest(input, FIELDS, DEFAULT_SORT);

function expectQueryNotValid(input: ListRequestInput) {
  try {
    parse(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).statusCode).toBe(400);
    expect((error as ApiError).errors[0]).toMatchObject({ Key: 'Api Error', Value: expect.stringMatching(/^query not valid/) });
    return;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be rejected`);
}

describe('parseListRequest', () => {
  it('applies the defaults', () => {
    expect(DEFAULT_PAGE_SIZE).toBe(100);
    expect(MAX_PAGE_SIZE).toBe(10000);
    expect(parse({})).toEqual({ conditions: [], pageSize: 100, pageNumber: 0, sort: DEFAULT_SORT });
  });

  it('treats empty parameters as not given', () => {
    expect(parse({ query: '', pageSize: '', pageNumber: ' ', sortOrder: '', sortExpression: '' })).toEqual(parse({}));
  });

  it('parses the query', () => {
    expect(parse({ query: 'Status:Active,Hold' }).conditions).toEqual([
      { field: 'Status', op: 'in', values: ['Active', 'Hold'], orEmpty: false },
    ]);
  });

  it('accepts page sizes 1 to 10000 and page numbers from 0, as strings or numbers', () => {
    expect(parse({ pageSize: '1', pageNumber: '0' })).toMatchObject({ pageSize: 1, pageNumber: 0 });
    expect(parse({ pageSize: '10000', pageNumber: '7' })).toMatchObject({ pageSize: 10000, pageNumber: 7 });
    expect(parse({ pageSize: 25, pageNumber: 3 })).toMatchObject({ pageSize: 25, pageNumber: 3 });
  });

  it('rejects bad page sizes and numbers with 400 query not valid', () => {
    for (const pageSize of ['0', '10001', '-1', '1.5', 'abc', '1e3', '0x10', 2.5]) expectQueryNotValid({ pageSize });
    for (const pageNumber of ['-1', '1.0', 'x', '2147483648', '99999999999999999999']) expectQueryNotValid({ pageNumber });
  });

  it('reads sortOrder and sortExpression case-insensitively, returning canonical names', () => {
    expect(parse({ sortOrder: 'ascending', sortExpression: 'lastname' }).sort).toEqual({ field: 'LastName', order: 'Ascending' });
    expect(parse({ sortOrder: 'DESCENDING', sortExpression: 'Status' }).sort).toEqual({ field: 'Status', order: 'Descending' });
  });

  it('requires sortOrder and sortExpression together', () => {
    expectQueryNotValid({ sortOrder: 'Ascending' });
    expectQueryNotValid({ sortExpression: 'LastName' });
  });

  it('rejects unknown sort orders, unknown and unsortable fields', () => {
    expectQueryNotValid({ sortOrder: 'Up', sortExpression: 'LastName' });
    expectQueryNotValid({ sortOrder: 'asc', sortExpression: 'LastName' });
    expectQueryNotValid({ sortOrder: 'Ascending', sortExpression: 'Nope' });
    expectQueryNotValid({ sortOrder: 'Ascending', sortExpression: 'PrimaryEmail' });
  });

  it('refuses a default sort field missing from the field list (a programming error)', () => {
    expect(() => parseListRequest({}, FIELDS, { field: 'Nope', order: 'Ascending' })).toThrow(/not in the field list/);
  });
});

describe('listInputFromUrl', () => {
  it('reads the five parameters case-insensitively, keeping query raw', () => {
    const url = '/v1/customers?Query=LastName:a%2Cb&PAGESIZE=5&pagenumber=2&SortOrder=Ascending&sortexpression=Last%4Eame';
    expect(listInputFromUrl(url)).toEqual({
      query: 'LastName:a%2Cb',
      pageSize: '5',
      pageNumber: '2',
      sortOrder: 'Ascending',
      sortExpression: 'LastName',
    });
    expect(parse(listInputFromUrl(url)).conditions).toEqual([{ field: 'LastName', op: 'equals', value: 'a,b' }]);
  });

  it('gives undefined for parameters not in the URL', () => {
    expect(listInputFromUrl('/v1/customers')).toEqual({
      query: undefined,
      pageSize: undefined,
      pageNumber: undefined,
      sortOrder: undefined,
      sortExpression: undefined,
    });
  });
});

describe('ListQuerystring', () => {
  it('accepts the list parameters as strings and drops others', () => {
    expect(ListQuerystring.parse({ query: 'a:b', pageSize: '5', other: 'x' })).toEqual({ query: 'a:b', pageSize: '5' });
  });

  it("says 'query not valid' when a parameter is repeated (an array)", () => {
    const result = ListQuerystring.safeParse({ pageSize: ['1', '2'] });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe('query not valid');
  });
});

describe('list headers', () => {
  const info = { pageSize: 10, maxCount: 100, sortOrder: 'Ascending' as const, sortExpression: 'LastName' };

  it('computes the pages of a middle page', () => {
    expect(listHeaders({ ...info, pageNumber: 1, count: 35 })).toEqual({
      'X-NextPage': '2',
      'X-Count': '35',
      'X-MaxCount': '100',
      'X-CurrentPage': '1',
      'X-PreviousPage': '0',
      'X-PageSize': '10',
      'X-MaxPageIndex': '3',
      'X-SortOrder': 'Ascending',
      'X-SortExpression': 'LastName',
    });
  });

  it('has no previous page on page 0 and no next page on the last page', () => {
    expect(listHeaders({ ...info, pageNumber: 0, count: 35 })).toMatchObject({ 'X-PreviousPage': '-1', 'X-NextPage': '1' });
    expect(listHeaders({ ...info, pageNumber: 3, count: 35 })).toMatchObject({ 'X-PreviousPage': '2', 'X-NextPage': '-1' });
    expect(listHeaders({ ...info, pageNumber: 0, count: 30 })).toMatchObject({ 'X-MaxPageIndex': '2' });
  });

  it('reports page 0 as the last page when nothing matches', () => {
    expect(listHeaders({ ...info, pageNumber: 0, count: 0 })).toMatchObject({
      'X-MaxPageIndex': '0',
      'X-NextPage': '-1',
      'X-PreviousPage': '-1',
      'X-Count': '0',
    });
  });

  it('points the previous page at the last page when asked past the end', () => {
    expect(listHeaders({ ...info, pageNumber: 9, count: 35 })).toMatchObject({ 'X-PreviousPage': '3', 'X-NextPage': '-1' });
  });

  it('sets all nine headers on a Fastify reply', async () => {
    const app = Fastify();
    app.get('/list', async (_request, reply) => {
      setListHeaders(reply, { ...info, pageNumber: 1, count: 35, sortOrder: 'Descending' });
      return [];
    });
    const response = await app.inject({ method: 'GET', url: '/list' });
    await app.close();
    expect(response.headers).toMatchObject({
      'x-nextpage': '2',
      'x-count': '35',
      'x-maxcount': '100',
      'x-currentpage': '1',
      'x-previouspage': '0',
      'x-pagesize': '10',
      'x-maxpageindex': '3',
      'x-sortorder': 'Descending',
      'x-sortexpression': 'LastName',
    });
  });
});
