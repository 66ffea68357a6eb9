import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, errorsOf, startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.js';
import { customerTestCatalog } from './customer-fixtures.js';
import { createCustomer } from '../helpers/api-fixtures.js';

let t: TestApp;
/** The account whose five customers every test here lists. */
let shop: TestAccount;
/** Customer ids by letter, and letters by id. */
const ids: Record<string, number> = {};
const letterOf = new Map<number, string>();

beforeAll(async () => {
  t = await startTestApp({ catalog: customerTestCatalog() });
  shop = await t.newAccount();
  const seed: Record<string, Record<string, unknown>> = {
    A: {
      firstName: 'Alice',
      middleName: 'Ann',
      lastName: 'Anders',
      suffix: 'Jr',
      title: 'Ms',
      companyName: 'Smith & Sons',
      primaryEmail: 'alice@acme.example',
      primaryPhone: '555-0101',
      secondaryEmail: 'alice@home.example',
      secondaryPhone: '555-0102',
      reference: 'REF-A',
      crmId: 'CRM-A',
      crmAccountType: 'Company',
      crmSynchStatus: 'Enabled',
      erpId: 'ERP-A',
      erpSynchStatus: 'Enabled',
      accountingId: 101,
      accountingLatchType: 'CreateNew',
      marketingId: 201,
      customerReference: {
        reference1: 'r1-a',
        reference2: 'r2-a',
        reference3: 'r3-a',
        salesTrackingCodes: [
          { type: 'Sales Tracking Code 1', code: 'WEB' },
          { type: 'Region', code: 'EAST' },
        ],
      },
      customerAcquisition: {
        adContent: 'ad-a',
        campaign: 'spring',
        keyword: 'kw-a',
        landingPage: '/landing-a',
        medium: 'cpc',
        source: 'google',
      },
    },
    B: {
      firstName: 'Bob',
      lastName: 'Brown',
      title: 'Mr',
      primaryEmail: 'bob@bobs.example',
      crmAccountType: 'Person',
      crmSynchStatus: 'Disabled',
      erpSynchStatus: 'Disabled',
      accountingId: 102,
      accountingLatchType: 'LatchExisting',
      marketingId: 202,
      customerReference: {
        reference1: 'r1-b',
        salesTrackingCodes: [
          { type: 'Sales Tracking Code 1', code: 'PARTNER' },
          { type: 'Region', code: 'WEST' },
        ],
      },
      customerAcquisition: { source: 'newsletter' },
    },
    C: {},
    D: {
      firstName: 'carol',
      lastName: 'cooper',
      title: 'Dr',
      primaryEmail: 'carol@acme.example',
      reference: 'REF-D',
      accountingLatchType: 'DoNothing',
    },
    E: { firstName: 'Dan', lastName: '9Lives', companyName: 'Nine Lives Co', title: 'Mrs' },
  };
  for (const [letter, body] of Object.entries(seed)) {
    const extra = letter === 'B' ? { parentId: ids.A } : {};
    const customer = await createCustomer(t, { ...body, ...extra }, shop);
    ids[letter] = customer.id;
    letterOf.set(customer.id, letter);
  }
  // What the API cannot set yet (lifecycle endpoints, system fields, the past) is set in the database.
  const db = t.database.db;
  const set = async (letter: string, values: Record<string, unknown>) =>
    db.updateTable('customers').set(values).where('id', '=', ids[letter]!).execute();
  await set('A', { createdAt: new Date('2024-01-10T08:00:00Z'), modifiedAt: new Date('2024-05-01T00:00:00Z'), accountingSyncToken: 5 });
  await set('B', {
    createdAt: new Date('2024-02-15T00:00:00Z'),
    status: 'Active',
    customerAccountStatus: 'PoorStanding',
    accountingSyncToken: 6,
  });
  await set('C', { createdAt: new Date('2024-03-01T12:30:00Z') });
  await set('D', { createdAt: new Date('2024-03-01T23:59:59Z'), status: 'Hold' });
  await set('E', { createdAt: new Date('2024-04-20T00:00:00Z'), status: 'Cancelled' });

  // Another account with look-alike customers, which must never show up.
  const other = await t.newAccount();
  await createCustomer(t, { firstName: 'Alice', lastName: 'Anders', primaryEmail: 'alice@acme.example' }, other);
  await createCustomer(t, { firstName: 'Zed', title: 'Mr' }, other);
});
afterAll(async () => t?.close());

async function list(params: string, as: TestAccount = shop) {
  const res = await t.call('GET', `/v1/customers${params ? `?${params}` : ''}`, undefined, { as });
  expect(res.statusCode, res.body).toBe(200);
  const letters = (res.json() as Array<{ id: number }>).map((c) => letterOf.get(c.id) ?? `?${c.id}`);
  return { res, letters, headers: res.headers };
}

const letters = async (query: string) => (await list(`query=${query}`)).letters;

describe('GET /v1/customers: filters', () => {
  it('lists every customer of the account, oldest id first, with the full customer object', async () => {
    const { res, letters: all } = await list('');
    expect(all).toEqual(['A', 'B', 'C', 'D', 'E']);
    const one = await t.call('GET', `/v1/customers/${ids.A}`, undefined, { as: shop });
    expect(res.json()[0]).toEqual(one.json());
  });

  // One row per filter name of the spec (plus Keyword), each matching a known set.
  it.each([
    ['AccountStatus:PoorStanding', ['B']],
    ['AccountStatus:Good', ['A', 'C', 'D', 'E']],
    ['CompanyName:Smith%20%26%20Sons', ['A']],
    ['CurrencyId:840', ['A', 'B', 'C', 'D', 'E']],
    ['CustomerAcquisition.AdContent:ad-a', ['A']],
    ['CustomerAcquisition.Campaign:spring', ['A']],
    ['CustomerAcquisition.Keyword:kw-a', ['A']],
    ['CustomerAcquisition.LandingPage:/landing-a', ['A']],
    ['CustomerAcquisition.Medium:cpc', ['A']],
    ['CustomerAcquisition.Source:newsletter', ['B']],
    ['CustomerReference.Reference1:r1-b', ['B']],
    ['CustomerReference.Reference2:r2-a', ['A']],
    ['CustomerReference.Reference3:r3-a', ['A']],
    ['CustomerReference.SalesTrackingCode1.Code:WEB', ['A']],
    ['CustomerReference.SalesTrackingCode1.Name:Partner%20referral', ['B']],
    ['CustomerReference.SalesTrackingCode2.Code:west', ['B']],
    ['CustomerReference.SalesTrackingCode2.Name:East', ['A']],
    ['CustomerReference.SalesTrackingCode3.Code:[empty]', ['A', 'B', 'C', 'D', 'E']],
    ['CustomerReference.SalesTrackingCode5.Name:[empty]', ['A', 'B', 'C', 'D', 'E']],
    ['FirstName:alice', ['A']],
    ['MarketingId:202', ['B']],
    ['LastName:Cooper', ['D']],
    ['MiddleName:Ann', ['A']],
    ['ModifiedTimestamp:|2024-06-01', ['A']],
    ['ErpEntityType:2', ['A', 'E']],
    ['ErpEntityType:1', ['B', 'C', 'D']],
    ['ErpId:ERP-A', ['A']],
    // Disabled unless set: B's given, C, D and E by default
    ['ErpSynchStatusId:Disabled', ['B', 'C', 'D', 'E']],
    ['ErpSynchStatusId:Enabled', ['A']],
    ['PrimaryEmail:*@acme.example', ['A', 'D']],
    ['PrimaryPhone:555-0101', ['A']],
    ['AccountingId:102', ['B']],
    ['AccountingLatchTypeId:DoNothing', ['D']],
    ['AccountingSyncToken:5', ['A']],
    ['Reference:REF-D', ['D']],
    ['CrmAccountType:Person', ['B']],
    ['CrmId:CRM-A', ['A']],
    ['CrmSynchStatus:Enabled', ['A']],
    ['CrmSynchStatus:Disabled', ['B', 'C', 'D', 'E']],
    ['SecondaryEmail:alice@home.example', ['A']],
    ['SecondaryPhone:555-0102', ['A']],
    ['Status:Hold', ['D']],
    ['Status:Draft,Active', ['A', 'B', 'C']],
    ['Status:draft', ['A', 'C']],
    ['Suffix:Jr', ['A']],
    ['Title:Dr', ['D']],
    ['Title:Mr,Mrs', ['B', 'E']],
    ['Title:M*', ['A', 'B', 'E']],
    ['Title:[empty]', ['C']],
  ])('%s', async (query, expected) => {
    expect(await letters(query)).toEqual(expected);
  });

  it('filters on CurrencyId (ISO numeric code) in an account billing in two currencies', async () => {
    const app = await t.buildAnotherApp(customerTestCatalog({ currencies: { default: 'USD', allowed: ['USD', 'CAD'] } }));
    const account = await t.newAccount();
    const call = (method: 'GET' | 'POST', url: string, body?: unknown) =>
      app.inject({
        method,
        url,
        headers: { authorization: basicAuth(account.apiKey), ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { payload: JSON.stringify(body) } : {}),
      });
    const usd = (await call('POST', '/v1/customers', { firstName: 'Dollar', currency: 'USD' })).json();
    const cad = (await call('POST', '/v1/customers', { firstName: 'Loonie', currency: 'CAD' })).json();
    const idsFor = async (query: string) => {
      const res = await call('GET', `/v1/customers?query=${query}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().map((c: { id: number }) => c.id);
    };
    expect(await idsFor('CurrencyId:124')).toEqual([cad.id]);
    expect(await idsFor('CurrencyId:840')).toEqual([usd.id]);
    expect(await idsFor('CurrencyId:840,124')).toEqual([usd.id, cad.id]);
  });

  it('filters on ParentId', async () => {
    expect(await letters(`ParentId:${ids.A}`)).toEqual(['B']);
    expect(await letters('ParentId:[empty]')).toEqual(['A', 'C', 'D', 'E']);
  });

  it('filters CreatedTimestamp by day, by second and by ranges (lower inclusive, upper exclusive)', async () => {
    expect(await letters('CreatedTimestamp:2024-03-01')).toEqual(['C', 'D']);
    expect(await letters('CreatedTimestamp:2024-01-10T08:00:00')).toEqual(['A']);
    expect(await letters('CreatedTimestamp:2024-02-15|')).toEqual(['B', 'C', 'D', 'E']);
    expect(await letters('CreatedTimestamp:|2024-02-15')).toEqual(['A']);
    expect(await letters('CreatedTimestamp:2024-02-15|2024-03-01T23:59:59')).toEqual(['B', 'C']);
    expect(await letters('CreatedTimestamp:2025-01-01|')).toEqual([]);
  });

  it('matches [empty] for null or empty text and for null numbers', async () => {
    expect(await letters('CompanyName:[empty]')).toEqual(['B', 'C', 'D']);
    expect(await letters('MarketingId:[empty]')).toEqual(['C', 'D', 'E']);
    expect(await letters('CustomerAcquisition.Source:[empty]')).toEqual(['C', 'D', 'E']);
  });

  it('matches * wildcards anywhere, several times, case-insensitively', async () => {
    expect(await letters('LastName:*O*')).toEqual(['B', 'D']);
    expect(await letters('PrimaryEmail:*a*@*.example')).toEqual(['A', 'D']);
    expect(await letters('FirstName:c*')).toEqual(['D']);
    expect(await letters('Reference:REF-*')).toEqual(['A', 'D']);
  });

  it('requires every pair of a ";"-separated query to match', async () => {
    expect(await letters('PrimaryEmail:*@acme.example;Title:Dr')).toEqual(['D']);
    expect(await letters('Status:Draft,Active;CompanyName:[empty]')).toEqual(['B', 'C']);
    expect(await letters('FirstName:Alice;Status:Active')).toEqual([]);
  });
});

describe('GET /v1/customers: sorting and paging', () => {
  it('sorts ascending with null first, then digits, then letters; descending the other way', async () => {
    expect((await list('sortOrder=Ascending&sortExpression=LastName')).letters).toEqual(['C', 'E', 'A', 'B', 'D']);
    expect((await list('sortOrder=Descending&sortExpression=LastName')).letters).toEqual(['D', 'B', 'A', 'E', 'C']);
    expect((await list('sortOrder=Descending&sortExpression=CreatedTimestamp')).letters).toEqual(['E', 'D', 'C', 'B', 'A']);
  });

  it('sorts text case-insensitively ("adams" before "Zed"), null first, ties broken by id, on every text field', async () => {
    const account = await t.newAccount();
    const people: Array<[string, Record<string, unknown>]> = [
      ['Zed', { lastName: 'Zed', firstName: 'zoe', middleName: 'Zz', companyName: 'ZED Corp' }],
      ['adams', { lastName: 'adams', firstName: 'Ann', middleName: 'b', companyName: 'acme' }],
      ['none', {}],
      ['Adams', { lastName: 'Adams', firstName: 'ann', middleName: 'B', companyName: 'Acme' }],
      ['9lives', { lastName: '9lives', firstName: '9', middleName: '9', companyName: '9 Lives' }],
      ['baker', { lastName: 'baker', firstName: 'Bea', middleName: 'a', companyName: 'beta' }],
    ];
    const nameOf = new Map<number, string>();
    for (const [name, body] of people) nameOf.set((await createCustomer(t, body, account)).id, name);
    const sorted = async (field: string, order: string, query = '') => {
      const res = await t.call(
        'GET',
        `/v1/customers?sortOrder=${order}&sortExpression=${field}${query ? `&query=${query}` : ''}`,
        undefined,
        { as: account },
      );
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as Array<{ id: number }>).map((c) => nameOf.get(c.id));
    };
    const ascending = ['none', '9lives', 'adams', 'Adams', 'baker', 'Zed'];
    expect(await sorted('LastName', 'Ascending')).toEqual(ascending);
    expect(await sorted('LastName', 'Descending')).toEqual([...ascending].reverse());
    expect(await sorted('FirstName', 'Ascending')).toEqual(['none', '9lives', 'adams', 'Adams', 'baker', 'Zed']);
    expect(await sorted('CompanyName', 'Ascending')).toEqual(['none', '9lives', 'adams', 'Adams', 'baker', 'Zed']);
    expect(await sorted('MiddleName', 'Ascending')).toEqual(['none', '9lives', 'baker', 'adams', 'Adams', 'Zed']);
    // a filter on the sort field's leading letters (which pages along the sort index) keeps the order
    expect(await sorted('LastName', 'Ascending', 'LastName:A*')).toEqual(['adams', 'Adams']);
    expect(await sorted('LastName', 'Descending', 'LastName:a*')).toEqual(['Adams', 'adams']);
    expect(await sorted('LastName', 'Ascending', 'LastName:*a*')).toEqual(['adams', 'Adams', 'baker']);
  });

  it('sets the nine X-* headers for a middle page', async () => {
    const { letters: page, headers } = await list('pageSize=2&pageNumber=1&sortOrder=Ascending&sortExpression=lastname');
    expect(page).toEqual(['A', 'B']);
    expect(headers).toMatchObject({
      'x-nextpage': '2',
      'x-count': '5',
      'x-maxcount': '5',
      'x-currentpage': '1',
      'x-previouspage': '0',
      'x-pagesize': '2',
      'x-maxpageindex': '2',
      'x-sortorder': 'Ascending',
      'x-sortexpression': 'LastName',
    });
  });

  it('marks the first and last pages with -1 for the missing neighbour', async () => {
    const first = await list('pageSize=2&pageNumber=0&sortOrder=Ascending&sortExpression=LastName');
    expect(first.letters).toEqual(['C', 'E']);
    expect(first.headers).toMatchObject({ 'x-previouspage': '-1', 'x-nextpage': '1', 'x-currentpage': '0' });
    const last = await list('pageSize=2&pageNumber=2&sortOrder=Ascending&sortExpression=LastName');
    expect(last.letters).toEqual(['D']);
    expect(last.headers).toMatchObject({ 'x-previouspage': '1', 'x-nextpage': '-1', 'x-currentpage': '2', 'x-maxpageindex': '2' });
  });

  it("counts filtered results in X-Count and all of the account's in X-MaxCount", async () => {
    const { letters: page, headers } = await list('query=Status:Draft,Active&pageSize=2');
    expect(page).toEqual(['A', 'B']);
    expect(headers).toMatchObject({ 'x-count': '3', 'x-maxcount': '5', 'x-maxpageindex': '1', 'x-nextpage': '1', 'x-pagesize': '2' });
  });

  it('defaults to page 0 of 100, sorted ascending by Id', async () => {
    const { headers } = await list('');
    expect(headers).toMatchObject({
      'x-currentpage': '0',
      'x-pagesize': '100',
      'x-sortorder': 'Ascending',
      'x-sortexpression': 'Id',
      'x-previouspage': '-1',
      'x-nextpage': '-1',
      'x-maxpageindex': '0',
    });
  });

  it('accepts the largest page size, 10000', async () => {
    const { letters: all, headers } = await list('pageSize=10000');
    expect(all).toHaveLength(5);
    expect(headers['x-pagesize']).toBe('10000');
  });

  it('answers an empty page past the end, still with headers', async () => {
    const { letters: page, headers } = await list('pageSize=2&pageNumber=7');
    expect(page).toEqual([]);
    expect(headers).toMatchObject({ 'x-count': '5', 'x-currentpage': '7', 'x-nextpage': '-1' });
  });
});

describe('GET /v1/customers: malformed requests and accounts', () => {
  it.each([
    ['an unknown field', 'query=Nickname:Al'],
    ['a bad sort field', 'sortOrder=Ascending&sortExpression=Nickname'],
    ['sortOrder without sortExpression', 'sortOrder=Ascending'],
    ['sortExpression without sortOrder', 'sortExpression=LastName'],
    ['a sort order that is not Ascending or Descending', 'sortOrder=Upwards&sortExpression=LastName'],
    ['pageSize 10001', 'pageSize=10001'],
    ['pageSize 0', 'pageSize=0'],
    ['a negative pageNumber', 'pageNumber=-1'],
    ['a pair without ":"', 'query=FirstName'],
    ['a list of values on a text field', 'query=FirstName:Alice,Bob'],
    ['an unknown enum value', 'query=Status:Sleeping'],
    ['a date that is not a date', 'query=CreatedTimestamp:2024-13-01'],
    ['a range with the bounds reversed', 'query=CreatedTimestamp:2024-03-01|2024-02-01'],
    ['text in an integer field', 'query=MarketingId:two'],
  ])('answers 400 "query not valid" for %s', async (_what, params) => {
    const res = await t.call('GET', `/v1/customers?${params}`, undefined, { as: shop });
    expect(res.statusCode).toBe(400);
    const errors = errorsOf(res);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.Key).toBe('Api Error');
    expect(errors[0]!.Value.startsWith('query not valid')).toBe(true);
  });

  it('refuses a CurrencyId that is neither an ISO 4217 numeric code nor a letter code, saying which forms it takes', async () => {
    const res = await t.call('GET', '/v1/customers?query=CurrencyId:1', undefined, { as: shop });
    expect(res.statusCode).toBe(400);
    const [error] = errorsOf(res);
    expect(error!.Key).toBe('Api Error');
    expect(error!.Value).toMatch(/^query not valid: "1" is not a value of CurrencyId/);
    // both forms, with the account's currencies as examples
    expect(error!.Value).toContain('ISO 4217 numeric code');
    expect(error!.Value).toContain('840 for USD');
    expect(error!.Value).toContain('USD');
  });

  it("never lists another account's customers, even when they match", async () => {
    expect(await letters('FirstName:Alice')).toEqual(['A']);
    expect(await letters('Title:Mr')).toEqual(['B']);
  });

  it('shows a new account an empty list with zero counts', async () => {
    const empty = await t.newAccount();
    const { res, headers } = await list('', empty);
    expect(res.json()).toEqual([]);
    expect(headers).toMatchObject({ 'x-count': '0', 'x-maxcount': '0', 'x-maxpageindex': '0', 'x-nextpage': '-1', 'x-previouspage': '-1' });
  });
});
