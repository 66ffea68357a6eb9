import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, startTestApp, testCatalog, type TestApp } from '../helpers/test-app.js';
import { demoPlans } from '../subscriptions/subscription-fixtures.js';
import { BASIC_MONTHLY, BASIC_YEARLY, PRO_MONTHLY, createSubscription, newCustomer, readSubscription } from '../helpers/api-fixtures.js';

/**
 * The catalogue file is synced into the shared plans table whenever an app
 * starts, so each step here restarts (buildAnotherApp) with another catalogue
 * and reads through the first app. The steps run in order, in their own file:
 * every one changes the plans table for what follows.
 */
let t: TestApp;
let customerId: number;
let basicSubscription: Record<string, any>;
let proSubscription: Record<string, any>;
beforeAll(async () => {
  t = await startTestApp();
  customerId = await newCustomer(t);
  basicSubscription = await createSubscription(t, { customerId, planFrequencyId: BASIC_MONTHLY });
  proSubscription = await createSubscription(t, { customerId, planFrequencyId: PRO_MONTHLY });
});
afterAll(async () => t?.close());

type Plan = {
  id: number;
  code: string;
  name: string;
  status: string;
  modificationTimestamp: string;
  planFrequencies: Array<Record<string, any>>;
  planProducts: unknown[];
};

async function plans(query = ''): Promise<Plan[]> {
  const res = await t.call('GET', `/v1/Plans${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function plan(id: number): Promise<Plan> {
  const res = await t.call('GET', `/v1/Plans/${id}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** Restarts with the demo catalogue's plans changed by `change`. */
async function restartWith(change: (plans: Array<Record<string, any>>) => Array<Record<string, any>>) {
  await t.buildAnotherApp(testCatalog({ plans: change(demoPlans()) }));
}

const frequencyStatuses = (p: Plan) => p.planFrequencies.map((f) => [f.id, f.status]);

describe('catalogue changes at start', () => {
  it('leave an unchanged plan and its modification timestamp alone', async () => {
    const before = await plans();
    await t.buildAnotherApp();
    expect(await plans()).toEqual(before);
  });

  it('move the modification timestamp of a changed plan only, and only once', async () => {
    const before = await plans();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await restartWith((list) =>
      list.map((p) => (p.code === 'BASIC' ? { ...p, products: [{ ...p.products[0], description: 'A seat for one person' }] } : p)),
    );
    const [basic, pro] = await plans();
    expect(basic!.planProducts).toEqual([{ code: 'SEAT', name: 'Seat', description: 'A seat for one person', quantity: 1 }]);
    expect(Date.parse(basic!.modificationTimestamp)).toBeGreaterThan(Date.parse(before[0]!.modificationTimestamp));
    expect(pro).toEqual(before[1]);

    // Started again with the same file: nothing changed, so nothing moves.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await restartWith((list) =>
      list.map((p) => (p.code === 'BASIC' ? { ...p, products: [{ ...p.products[0], description: 'A seat for one person' }] } : p)),
    );
    expect(await plans()).toEqual([basic, pro]);
  });

  it('show a renamed plan and a new price at once; subscriptions show the new plan name and keep their price', async () => {
    await restartWith((list) =>
      list.map((p) => {
        if (p.code !== 'BASIC') return p;
        const frequencies = p.frequencies.map((f: Record<string, any>) =>
          f.id === BASIC_MONTHLY ? { ...f, prices: [{ ...f.prices[0], charges: [{ currency: 'USD', amount: '21.99' }] }] } : f,
        );
        return { ...p, name: 'Basic Plus', frequencies };
      }),
    );
    const basic = await plan(1);
    expect(basic).toMatchObject({ code: 'BASIC', name: 'Basic Plus', status: 'Active' });
    expect(basic.planFrequencies[0]!.charges.map((c: Record<string, unknown>) => [c.currency, c.amount])).toEqual([['USD', 21.99]]);
    expect((await plans('?query=Name:Basic Plus')).map((p) => p.id)).toEqual([1]);
    expect(await plans('?query=Name:Basic')).toEqual([]);

    const read = await readSubscription(t, basicSubscription.id);
    expect(read).toMatchObject({ planCode: 'BASIC', planName: 'Basic Plus', amount: 19.99, monthlyRecurringRevenue: 19.99 });
    expect(read.subscriptionProducts[0]).toMatchObject({ unitPrice: 19.99 });
    const listed = await t.call('GET', `/v1/customers/${customerId}/subscriptions?query=PlanName:Basic Plus`);
    expect(listed.json().map((s: { id: number }) => s.id)).toEqual([basicSubscription.id]);

    const created = await createSubscription(t, { customerId, planFrequencyId: BASIC_MONTHLY });
    expect(created).toMatchObject({ planName: 'Basic Plus', amount: 21.99, monthlyRecurringRevenue: 21.99 });
    expect(created.subscriptionProducts[0]).toMatchObject({ unitPrice: 21.99, setupFee: 10 });
  });

  it('make a removed plan and its frequencies Inactive; its subscriptions stay readable; no new ones', async () => {
    await restartWith((list) => list.filter((p) => p.code !== 'PRO'));
    const [basic, pro] = await plans();
    expect(basic).toMatchObject({ code: 'BASIC', name: 'Basic', status: 'Active' });
    expect(frequencyStatuses(basic!)).toEqual([
      [11, 'Active'],
      [12, 'Active'],
    ]);
    expect(pro).toMatchObject({ code: 'PRO', name: 'Pro', status: 'Inactive' });
    expect(frequencyStatuses(pro!)).toEqual([[21, 'Inactive']]);
    expect(pro!.planFrequencies[0]!.numberOfSubscriptions).toBe(1);
    expect(await plan(2)).toEqual(pro);

    expect((await plans('?query=Status:Active')).map((p) => p.code)).toEqual(['BASIC']);
    expect((await plans('?query=Status:Inactive')).map((p) => p.code)).toEqual(['PRO']);

    expect(await readSubscription(t, proSubscription.id)).toMatchObject({ planCode: 'PRO', planName: 'Pro', status: 'Draft', amount: 49 });
    const refused = await t.call('POST', '/v1/subscriptions', { customerId, planFrequencyId: PRO_MONTHLY });
    expect(refused.statusCode, refused.body).toBe(400);
    expect(errorsOf(refused).map((e) => e.Key)).toEqual(['planFrequencyId']);
  });

  it('make a removed frequency Inactive while its plan stays Active', async () => {
    await restartWith((list) =>
      list.map((p) => (p.code === 'BASIC' ? { ...p, frequencies: p.frequencies.filter((f: { id: number }) => f.id !== BASIC_YEARLY) } : p)),
    );
    const basic = await plan(1);
    expect(basic.status).toBe('Active');
    expect(frequencyStatuses(basic)).toEqual([
      [11, 'Active'],
      [12, 'Inactive'],
    ]);
    expect((await plan(2)).status).toBe('Active');
    const refused = await t.call('POST', '/v1/subscriptions', { customerId, planFrequencyId: BASIC_YEARLY });
    expect(refused.statusCode, refused.body).toBe(400);
    expect(errorsOf(refused).map((e) => e.Key)).toEqual(['planFrequencyId']);
  });

  it('bring a plan back when it returns to the file', async () => {
    await t.buildAnotherApp();
    const [basic, pro] = await plans();
    expect(basic).toMatchObject({ name: 'Basic', status: 'Active' });
    expect(frequencyStatuses(basic!)).toEqual([
      [11, 'Active'],
      [12, 'Active'],
    ]);
    expect(pro).toMatchObject({ status: 'Active' });
    expect(frequencyStatuses(pro!)).toEqual([[21, 'Active']]);
    await createSubscription(t, { customerId, planFrequencyId: PRO_MONTHLY });
    await createSubscription(t, { customerId, planFrequencyId: BASIC_YEARLY });
  });
});
