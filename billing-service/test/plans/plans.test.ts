import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.js';
import { API_BASE as BASE, BASIC_MONTHLY, BASIC_YEARLY, PRO_MONTHLY, createSubscription, newCustomer } from '../helpers/api-fixtures.js';

let t: TestApp;
/** An account without subscriptions: every plan frequency counts 0 for it. */
let fresh: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  fresh = await t.newAccount();
});
afterAll(async () => t?.close());

/** Amount ids: frequency id × 10000, + 1000 for a setup fee, + the ISO 4217 numeric code of the currency. */
const NUMERIC_CODES: Record<string, number> = { CAD: 124, USD: 840 };
function amounts(frequencyId: number, kind: 'charges' | 'setupFees', list: Array<[string, number]>) {
  return list.map(([currency, amount]) => {
    const id = frequencyId * 10000 + (kind === 'setupFees' ? 1000 : 0) + NUMERIC_CODES[currency]!;
    return { amount, currency, id, uri: `${BASE}/planFrequencies/${frequencyId}/${kind}/${id}` };
  });
}

/** The plans of the demo catalogue as the API returns them (the test catalogue keeps the CAD prices). */
function expectedBasic(counts: { monthly: number; yearly: number } = { monthly: 0, yearly: 0 }) {
  return {
    code: 'BASIC',
    name: 'Basic',
    reference: null,
    description: 'One seat, monthly or yearly',
    longdescription: null,
    status: 'Active',
    modificationTimestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    planFrequencies: [
      {
        planRevisionId: 1,
        numberOfIntervals: 1,
        interval: 'Monthly',
        numberOfSubscriptions: counts.monthly,
        status: 'Active',
        setupFees: amounts(11, 'setupFees', [
          ['CAD', 12],
          ['USD', 10],
        ]),
        charges: amounts(11, 'charges', [
          ['CAD', 24.99],
          ['USD', 19.99],
        ]),
        isProrated: true,
        prorationGranularity: 'Daily',
        planFrequencyUniqueId: 11,
        remainingInterval: null,
        id: 11,
        uri: `${BASE}/planFrequencies/11`,
      },
      {
        planRevisionId: 1,
        numberOfIntervals: 1,
        interval: 'Yearly',
        numberOfSubscriptions: counts.yearly,
        status: 'Active',
        setupFees: [],
        charges: amounts(12, 'charges', [
          ['CAD', 249],
          ['USD', 199],
        ]),
        isProrated: false,
        prorationGranularity: 'Daily',
        planFrequencyUniqueId: 12,
        remainingInterval: null,
        id: 12,
        uri: `${BASE}/planFrequencies/12`,
      },
    ],
    planProducts: [{ code: 'SEAT', name: 'Seat', description: null, quantity: 1 }],
    autoApplyChanges: false,
    id: 1,
    uri: `${BASE}/Plans/1`,
  };
}

function expectedPro(count = 0) {
  return {
    code: 'PRO',
    name: 'Pro',
    reference: null,
    description: 'Five seats and priority support',
    longdescription: null,
    status: 'Active',
    modificationTimestamp: expect.any(String),
    planFrequencies: [
      {
        planRevisionId: 2,
        numberOfIntervals: 1,
        interval: 'Monthly',
        numberOfSubscriptions: count,
        status: 'Active',
        // Setup fee: SUPPORT × 1 (SEAT has none). Charge: 5 × 8.00 + 1 × 9.00 = 49 (CAD 5 × 10 + 9 = 59).
        setupFees: amounts(21, 'setupFees', [
          ['CAD', 30],
          ['USD', 25],
        ]),
        charges: amounts(21, 'charges', [
          ['CAD', 59],
          ['USD', 49],
        ]),
        isProrated: true,
        prorationGranularity: 'Daily',
        planFrequencyUniqueId: 21,
        remainingInterval: null,
        id: 21,
        uri: `${BASE}/planFrequencies/21`,
      },
    ],
    planProducts: [
      { code: 'SEAT', name: 'Seat', description: null, quantity: 5, minQuantity: 1, maxQuantity: 50 },
      { code: 'SUPPORT', name: 'Priority support', description: null, quantity: 1 },
    ],
    autoApplyChanges: false,
    id: 2,
    uri: `${BASE}/Plans/2`,
  };
}

async function list(url: string, as: TestAccount = fresh) {
  const res = await t.call('GET', url, undefined, { as });
  expect(res.statusCode, res.body).toBe(200);
  return { body: res.json() as Array<{ code: string }>, headers: res.headers };
}

const codes = (plans: Array<{ code: string }>) => plans.map((p) => p.code);

describe('GET /v1/Plans', () => {
  it('lists BASIC and PRO with frequencies, amounts per currency and products', async () => {
    const { body, headers } = await list('/v1/Plans');
    expect(body).toEqual([expectedBasic(), expectedPro()]);
    expect(headers).toMatchObject({
      'x-count': '2',
      'x-maxcount': '2',
      'x-currentpage': '0',
      'x-pagesize': '100',
      'x-maxpageindex': '0',
      'x-nextpage': '-1',
      'x-previouspage': '-1',
      'x-sortorder': 'Ascending',
      'x-sortexpression': 'Id',
    });
  });

  it('answers on the path in any casing and with a trailing slash', async () => {
    expect(codes((await list('/v1/plans/')).body)).toEqual(['BASIC', 'PRO']);
  });

  it.each([
    ['Status:Active', ['BASIC', 'PRO']],
    ['status:active', ['BASIC', 'PRO']],
    ['Status:Inactive', []],
    ['Status:Active,Inactive', ['BASIC', 'PRO']],
    ['Code:B*', ['BASIC']],
    ['Code:*o', ['PRO']],
    ['Code:pro', ['PRO']],
    ['Name:Basic', ['BASIC']],
    ['Name:*a*', ['BASIC']],
    ['Description:*support*', ['PRO']],
    ['Reference:[empty]', ['BASIC', 'PRO']],
    ['Code:B*;Status:Active', ['BASIC']],
    ['Code:B*;Name:Pro', []],
    ['Id:2', ['PRO']],
  ])('filters with query=%s', async (query, expected) => {
    const { body, headers } = await list(`/v1/Plans?query=${query}`);
    expect(codes(body)).toEqual(expected);
    expect(headers['x-count']).toBe(String(expected.length));
    expect(headers['x-maxcount']).toBe('2');
  });

  it('accepts a fully URL-encoded query', async () => {
    expect(codes((await list(`/v1/Plans?query=${encodeURIComponent('Code:B*;Status:Active')}`)).body)).toEqual(['BASIC']);
  });

  it.each([
    ['Code', 'Descending', ['PRO', 'BASIC']],
    ['Code', 'Ascending', ['BASIC', 'PRO']],
    ['Name', 'Descending', ['PRO', 'BASIC']],
    ['Id', 'Descending', ['PRO', 'BASIC']],
  ])('sorts on %s %s', async (field, order, expected) => {
    const { body, headers } = await list(`/v1/Plans?sortExpression=${field}&sortOrder=${order}`);
    expect(codes(body)).toEqual(expected);
    expect(headers['x-sortexpression']).toBe(field);
    expect(headers['x-sortorder']).toBe(order);
  });

  it('pages with the pagination headers', async () => {
    const first = await list('/v1/Plans?pageSize=1&pageNumber=0');
    expect(codes(first.body)).toEqual(['BASIC']);
    expect(first.headers).toMatchObject({
      'x-count': '2',
      'x-maxcount': '2',
      'x-currentpage': '0',
      'x-pagesize': '1',
      'x-maxpageindex': '1',
      'x-nextpage': '1',
      'x-previouspage': '-1',
    });
    const second = await list('/v1/Plans?pageSize=1&pageNumber=1');
    expect(codes(second.body)).toEqual(['PRO']);
    expect(second.headers).toMatchObject({ 'x-currentpage': '1', 'x-nextpage': '-1', 'x-previouspage': '0', 'x-maxpageindex': '1' });
    const past = await list('/v1/Plans?pageSize=1&pageNumber=5');
    expect(past.body).toEqual([]);
    expect(past.headers).toMatchObject({ 'x-currentpage': '5', 'x-nextpage': '-1', 'x-previouspage': '1' });
    const sorted = await list('/v1/Plans?pageSize=1&pageNumber=0&sortExpression=Code&sortOrder=Descending');
    expect(codes(sorted.body)).toEqual(['PRO']);
  });

  it.each([
    ['query=Foo:bar'],
    ['query=Status:Deleted'],
    ['query=Id:abc'],
    ['query=Code:'],
    ['query=Code:a,b'],
    ['query=ModificationTimestamp:yesterday'],
    ['sortExpression=Code'],
    ['sortExpression=Price&sortOrder=Ascending'],
    ['sortExpression=Code&sortOrder=Up'],
    ['pageSize=0'],
    ['pageNumber=-1'],
  ])('refuses %s with 400 query not valid', async (params) => {
    const res = await t.call('GET', `/v1/Plans?${params}`);
    expect(res.statusCode, res.body).toBe(400);
    const [error] = errorsOf(res);
    expect(error!.Key).toBe('Api Error');
    expect(error!.Value).toMatch(/^query not valid/);
  });

  it('filters on the modification timestamp', async () => {
    const today = new Date().toISOString().slice(0, 10);
    expect(codes((await list(`/v1/Plans?query=ModificationTimestamp:2000-01-01|`)).body)).toEqual(['BASIC', 'PRO']);
    expect(codes((await list(`/v1/Plans?query=ModificationTimestamp:|2000-01-01`)).body)).toEqual([]);
    expect((await list(`/v1/Plans?query=ModificationTimestamp:|${today}`)).body).toEqual([]);
  });
});

describe('GET /v1/Plans/{id}', () => {
  it('returns one plan', async () => {
    const res = await t.call('GET', '/v1/Plans/2', undefined, { as: fresh });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual(expectedPro());
    const basic = await t.call('GET', '/v1/plans/1', undefined, { as: fresh });
    expect(basic.json()).toEqual(expectedBasic());
  });

  it.each(['999', '2147483647', '2147483648', '99999999999'])('answers 404 for unknown id %s', async (id) => {
    const res = await t.call('GET', `/v1/Plans/${id}`);
    expect(res.statusCode, res.body).toBe(404);
    expect(errorsOf(res)[0]).toMatchObject({ Key: 'Api Error' });
  });

  it.each(['abc', '0', '-1', '1.5'])('answers 400 for the id %s', async (id) => {
    const res = await t.call('GET', `/v1/Plans/${id}`);
    expect(res.statusCode, res.body).toBe(400);
    errorsOf(res);
  });
});

describe('GET /v1/planFrequencies/{id} and its amounts', () => {
  type Frequency = { uri: string; charges: Array<{ id: number; uri: string }>; setupFees: Array<{ id: number; uri: string }> };
  const frequenciesOf = async (url: string) =>
    ((await list(url)).body as unknown as Array<{ planFrequencies: Frequency[] }>).flatMap((p) => p.planFrequencies);
  const amountIds = (frequencies: Frequency[]) => frequencies.flatMap((f) => [...f.charges, ...f.setupFees].map((a) => a.id));

  it('serves each frequency and each amount at its uri, as the plan embeds it', async () => {
    for (const frequency of await frequenciesOf('/v1/Plans')) {
      const res = await t.call('GET', new URL(frequency.uri).pathname, undefined, { as: fresh });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual(frequency);
      for (const amount of [...frequency.charges, ...frequency.setupFees]) {
        const one = await t.call('GET', new URL(amount.uri).pathname, undefined, { as: fresh });
        expect(one.statusCode, one.body).toBe(200);
        expect(one.json()).toEqual(amount);
      }
    }
  });

  it('gives every amount of the catalogue its own id, the same in every response', async () => {
    const ids = amountIds(await frequenciesOf('/v1/Plans'));
    expect(ids.length).toBeGreaterThan(4);
    expect(new Set(ids).size).toBe(ids.length);
    expect(amountIds(await frequenciesOf('/v1/Plans/'))).toEqual(ids);
  });

  it("counts the caller's subscriptions in numberOfSubscriptions", async () => {
    const mine = await t.newAccount();
    const customerId = await newCustomer(t, {}, mine);
    await createSubscription(t, { customerId, planFrequencyId: PRO_MONTHLY }, mine);
    expect((await t.call('GET', `/v1/planFrequencies/${PRO_MONTHLY}`, undefined, { as: mine })).json().numberOfSubscriptions).toBe(1);
    expect((await t.call('GET', `/v1/planFrequencies/${PRO_MONTHLY}`, undefined, { as: fresh })).json().numberOfSubscriptions).toBe(0);
  });

  it.each([
    ['/v1/planFrequencies/999'],
    ['/v1/planFrequencies/99999999999'],
    [`/v1/planFrequencies/${BASIC_MONTHLY}/charges/1`],
    // A setup fee's id under charges, and another frequency's charge.
    [`/v1/planFrequencies/${BASIC_MONTHLY}/charges/${BASIC_MONTHLY * 10000 + 1840}`],
    [`/v1/planFrequencies/${BASIC_MONTHLY}/charges/${PRO_MONTHLY * 10000 + 840}`],
    [`/v1/planFrequencies/${BASIC_YEARLY}/setupFees/${BASIC_YEARLY * 10000 + 1840}`],
    ['/v1/planFrequencies/999/charges/9990840'],
  ])('answers 404 for %s', async (path) => {
    const res = await t.call('GET', path);
    expect(res.statusCode, res.body).toBe(404);
    errorsOf(res);
  });
});

describe('numberOfSubscriptions', () => {
  it("counts the caller's account's subscriptions of each frequency only", async () => {
    const mine = await t.newAccount();
    const theirs = await t.newAccount();
    const a = await newCustomer(t, {}, mine);
    const b = await newCustomer(t, {}, mine);
    await createSubscription(t, { customerId: a, planFrequencyId: BASIC_MONTHLY }, mine);
    await createSubscription(t, { customerId: b, planFrequencyId: BASIC_MONTHLY }, mine);
    await createSubscription(t, { customerId: b, planFrequencyId: PRO_MONTHLY }, mine);
    const c = await newCustomer(t, {}, theirs);
    await createSubscription(t, { customerId: c, planFrequencyId: BASIC_YEARLY }, theirs);
    await createSubscription(t, { customerId: c, planFrequencyId: PRO_MONTHLY }, theirs);
    await createSubscription(t, { customerId: c, planFrequencyId: PRO_MONTHLY }, theirs);

    expect((await list('/v1/Plans', mine)).body).toEqual([expectedBasic({ monthly: 2, yearly: 0 }), expectedPro(1)]);
    expect((await list('/v1/Plans', theirs)).body).toEqual([expectedBasic({ monthly: 0, yearly: 1 }), expectedPro(2)]);
    expect((await list('/v1/Plans', fresh)).body).toEqual([expectedBasic(), expectedPro()]);
    const one = await t.call('GET', '/v1/Plans/2', undefined, { as: theirs });
    expect(one.json().planFrequencies[0].numberOfSubscriptions).toBe(2);
  });
});
