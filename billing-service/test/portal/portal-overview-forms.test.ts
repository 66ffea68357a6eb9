import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog, parseCatalog } from '../../src/catalog/load-catalog.js';
import { DEMO_CATALOG_PATH } from '../../src/config.js';
import { runBillingClock } from '../../src/lifecycle/billing-clock.js';
import { applyPortalPlanChange, listPortalPlanChanges, previewPortalPlanChange } from '../../src/portal/plan-changes.js';
import { cancelPortalSubscription, getPortalOverview, uncancelPortalSubscription } from '../../src/portal/service.js';
import { activeCustomer, cardBody, listInvoices, PRO_MONTHLY } from '../helpers/api-fixtures.js';
import { openPortalUrl } from '../helpers/portal-session.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * What the portal's pages are given: the amount the card form offers to pay with a new card, no plan change for a
 * subscription set to be cancelled; and the demo store's catalogue as it is (Inkwell: card customers collected
 * automatically at renewal, Basic ↔ Pro offered).
 */

let t: TestApp;
beforeAll(async () => {
  // The demo catalogue itself, in one currency (the test catalogue leaves its auto-collection and switches out).
  t = await startTestApp({
    catalog: parseCatalog({ ...loadCatalog(DEMO_CATALOG_PATH), currencies: { default: 'USD', allowed: ['USD'] } }),
  });
});
afterAll(async () => t?.close());

async function portalSession(customerId: number) {
  const res = await t.call('POST', '/v1/portalSessions', { customerId });
  expect(res.statusCode, res.body).toBe(200);
  return openPortalUrl(t, res.json().url);
}

async function addCard(customerId: number) {
  const res = await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...cardBody() });
  expect(res.statusCode, res.body).toBe(200);
}

describe('the portal overview', () => {
  it('offers to pay what is due with the card being saved, and nothing once it is paid', async () => {
    const { customerId } = await activeCustomer(t);
    const session = await portalSession(customerId);
    expect((await getPortalOverview(t.app.ctx, session)).amountDue).toBe(29.99);
    const paid = await t.call('POST', '/v1/payments', { customerId, amount: 29.99, paymentMethod: 'Check' });
    expect(paid.statusCode, paid.body).toBe(200);
    expect((await getPortalOverview(t.app.ctx, session)).amountDue).toBe(0);
  });
});

describe('"Change plan" in the portal', () => {
  it('offers Basic ↔ Pro (the demo catalogue), none for a subscription set to be cancelled, and again once it is kept', async () => {
    const { customerId, subscriptionIds } = await activeCustomer(t);
    const [id] = subscriptionIds as [number];
    const session = await portalSession(customerId);
    const offered = await listPortalPlanChanges(t.app.ctx, session);
    expect(offered.find((o) => o.subscriptionId === id)?.targets.map((target) => target.planFrequencyId)).toContain(PRO_MONTHLY);

    await cancelPortalSubscription(t.app.ctx, session, id, { mode: 'periodEnd' });
    expect(await listPortalPlanChanges(t.app.ctx, session)).toEqual([]);
    for (const attempt of [previewPortalPlanChange, applyPortalPlanChange])
      await expect(attempt(t.app.ctx, session, id, { planFrequencyId: PRO_MONTHLY })).rejects.toMatchObject({ kind: 'conflict' });

    await uncancelPortalSubscription(t.app.ctx, session, id);
    expect((await listPortalPlanChanges(t.app.ctx, session)).map((o) => o.subscriptionId)).toEqual([id]);
  });
});

describe('the demo store (Inkwell)', () => {
  it("charges a card customer's renewal on its own: auto-collection is the catalogue's default", async () => {
    const { customerId } = await activeCustomer(t);
    await addCard(customerId);
    expect(
      (await t.call('POST', '/v1/payments', { customerId, amount: 29.99, paymentMethod: 'CreditCard', useDefaultPaymentMethod: true }))
        .statusCode,
    ).toBe(200);
    const [subscription] = (await t.call('GET', `/v1/customers/${customerId}/subscriptions`)).json() as Array<{
      nextPeriodStartDate: string;
    }>;
    const tick = await runBillingClock(t.app.ctx, new Date(`${subscription!.nextPeriodStartDate}T10:00:00Z`), {
      kind: 'account',
      accountId: t.account.accountId,
    });
    expect(tick.renewed).toContain(customerId);
    expect(tick.collected).toContain(customerId);
    expect((await listInvoices(t, customerId)).map((i) => [i.invoiceAmount, i.outstandingBalance])).toEqual([
      [29.99, 0],
      [19.99, 0],
    ]);
  });
});
