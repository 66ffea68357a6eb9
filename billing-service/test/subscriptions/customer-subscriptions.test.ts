import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';
import { BASIC_MONTHLY, BASIC_YEARLY, PRO_MONTHLY, createSubscription, newCustomer } from '../helpers/api-fixtures.js';

let t: TestApp;
/** The customer whose four subscriptions every list here shows, in creation order. */
let customerId: number;
const ids: number[] = [];
beforeAll(async () => {
  t = await startTestApp();
  customerId = await newCustomer(t);
  for (const [planFrequencyId, name, reference] of [
    [BASIC_MONTHLY, 'Alpha', 'R-1'],
    [PRO_MONTHLY, 'Bravo', null],
    [BASIC_YEARLY, 'Charlie', 'R-3'],
    [PRO_MONTHLY, null, 'R-4'],
  ] as const) {
    ids.push((await createSubscription(t, { customerId, planFrequencyId, name, reference })).id);
  }
  // Activation belongs to the customer lifecycle; set it in the database.
  await t.database.db
    .updateTable('subscriptions')
    .set({ status: 'Active', activatedAt: new Date('2025-03-01T00:00:00Z') })
    .where('id', '=', ids[1]!)
    .execute();
  // Another customer of the same account, and another account, whose subscriptions never show.
  await createSubscription(t, { customerId: await newCustomer(t), planFrequencyId: BASIC_MONTHLY });
  const other = await t.newAccount();
  await createSubscription(t, { customerId: await newCustomer(t, {}, other), planFrequencyId: BASIC_MONTHLY }, other);
});
afterAll(async () => t?.close());

async function list(query = '') {
  const res = await t.call('GET', `/v1/customers/${customerId}/subscriptions${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return { body: res.json() as Array<Record<string, any>>, headers: res.headers };
}

const idsOf = (body: Array<Record<string, any>>) => body.map((s) => s.id);

describe('GET /v1/customers/{id}/subscriptions', () => {
  it("lists the customer's subscriptions, as GET /v1/subscriptions/{id} returns them, with the paging headers", async () => {
    const { body, headers } = await list();
    expect(idsOf(body)).toEqual(ids);
    for (const s of body) {
      const one = await t.call('GET', `/v1/subscriptions/${s.id}`);
      expect(s).toEqual(one.json());
    }
    expect(body.map((s) => [s.planCode, s.status, s.amount, s.monthlyRecurringRevenue, s.customerId])).toEqual([
      ['BASIC', 'Draft', 19.99, 19.99, customerId],
      ['PRO', 'Active', 49, 49, customerId],
      ['BASIC', 'Draft', 199, 16.58, customerId],
      ['PRO', 'Draft', 49, 49, customerId],
    ]);
    expect(headers).toMatchObject({
      'x-count': '4',
      'x-maxcount': '4',
      'x-currentpage': '0',
      'x-pagesize': '100',
      'x-maxpageindex': '0',
      'x-nextpage': '-1',
      'x-previouspage': '-1',
      'x-sortorder': 'Ascending',
      'x-sortexpression': 'Id',
    });
  });

  it('filters with query=Status:Draft', async () => {
    const { body, headers } = await list('?query=Status:Draft');
    expect(idsOf(body)).toEqual([ids[0], ids[2], ids[3]]);
    expect(body.every((s) => s.status === 'Draft')).toBe(true);
    expect(headers).toMatchObject({ 'x-count': '3', 'x-maxcount': '4' });
    expect(idsOf((await list('?query=Status:Active')).body)).toEqual([ids[1]]);
    expect(idsOf((await list('?query=Status:Active,Draft')).body)).toEqual(ids);
    expect(idsOf((await list('?query=Status:Cancelled')).body)).toEqual([]);
  });

  it.each([
    ['?query=PlanCode:PRO', [1, 3]],
    ['?query=PlanName:b*', [0, 2]],
    ['?query=Name:Charlie', [2]],
    ['?query=Reference:R-*', [0, 2, 3]],
    ['?query=Reference:[empty]', [1]],
    ['?query=Status:Draft;PlanCode:PRO', [3]],
    ['?query=ActivatedTimestamp:2025-03-01', [1]],
    ['?query=ActivatedTimestamp:[empty]', [0, 2, 3]],
    // Without a name a subscription is named after its plan: 'Pro'.
    ['?sortExpression=Name&sortOrder=Descending', [3, 2, 1, 0]],
    ['?query=Name:Pro', [3]],
    ['?sortExpression=PlanCode&sortOrder=Ascending', [0, 2, 1, 3]],
  ])('answers %s', async (query, positions) => {
    const { body, headers } = await list(query);
    expect(idsOf(body)).toEqual(positions.map((i) => ids[i]));
    expect(headers['x-count']).toBe(String(positions.length));
  });

  it('pages', async () => {
    const first = await list('?pageSize=3&pageNumber=0');
    expect(idsOf(first.body)).toEqual(ids.slice(0, 3));
    expect(first.headers).toMatchObject({
      'x-count': '4',
      'x-pagesize': '3',
      'x-currentpage': '0',
      'x-maxpageindex': '1',
      'x-nextpage': '1',
      'x-previouspage': '-1',
    });
    const second = await list('?pageSize=3&pageNumber=1');
    expect(idsOf(second.body)).toEqual(ids.slice(3));
    expect(second.headers).toMatchObject({ 'x-currentpage': '1', 'x-nextpage': '-1', 'x-previouspage': '0' });
    const drafts = await list('?query=Status:Draft&pageSize=2&pageNumber=1');
    expect(idsOf(drafts.body)).toEqual([ids[3]]);
    expect(drafts.headers).toMatchObject({
      'x-count': '3',
      'x-maxcount': '4',
      'x-maxpageindex': '1',
      'x-previouspage': '0',
      'x-nextpage': '-1',
    });
  });

  it('is empty for a customer without subscriptions', async () => {
    const res = await t.call('GET', `/v1/customers/${await newCustomer(t)}/subscriptions`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual([]);
    expect(res.headers).toMatchObject({ 'x-count': '0', 'x-maxcount': '0', 'x-maxpageindex': '0', 'x-nextpage': '-1' });
  });

  it.each(['?query=Status:Expired', '?query=Plan:BASIC', '?query=Name:', '?sortOrder=Ascending'])(
    'refuses %s with 400 query not valid',
    async (query) => {
      const res = await t.call('GET', `/v1/customers/${customerId}/subscriptions${query}`);
      expect(res.statusCode, res.body).toBe(400);
      expect(errorsOf(res)[0]!.Value).toMatch(/^query not valid/);
    },
  );

  it("answers 404 for an unknown customer and another account's customer", async () => {
    for (const id of [999999, 2147483648]) {
      const res = await t.call('GET', `/v1/customers/${id}/subscriptions`);
      expect(res.statusCode, res.body).toBe(404);
      expect(errorsOf(res)[0]).toMatchObject({ Key: 'Api Error' });
    }
    const other = await t.newAccount();
    const res = await t.call('GET', `/v1/customers/${customerId}/subscriptions`, undefined, { as: other });
    expect(res.statusCode, res.body).toBe(404);
    errorsOf(res);
  });
});
