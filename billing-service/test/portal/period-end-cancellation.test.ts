import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { MemoryRateLimitStore } from '../../src/http/rate-limit.js';
import { runBillingClock } from '../../src/lifecycle/billing-clock.js';
import { authenticatePortalSession, openPortalLink } from '../../src/portal/links.js';
import { cancelPortalSubscription, uncancelPortalSubscription } from '../../src/portal/service.js';
import { BASE_URL, startTestApp, type TestApp } from '../helpers/test-app.js';
import { activate, BASIC_MONTHLY, listInvoices, newCustomer, newSubscription, readCustomer } from '../helpers/api-fixtures.js';
import { deposit, subscriptionRows } from '../lifecycle/lifecycle-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const at = (date: string) => new Date(`${date}T10:00:00Z`);
const dayBefore = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

/** A customer Active on these subscriptions, the first invoice paid from a deposit (so nothing is overdue later). */
async function activeCustomer(_t: TestApp, options: { frequencies?: number[] } = {}) {
  const customerId = await newCustomer(t);
  const subscriptionIds: number[] = [];
  for (const f of options.frequencies ?? [BASIC_MONTHLY]) subscriptionIds.push(await newSubscription(t, customerId, f));
  await deposit(t, customerId, '100.00');
  const res = await activate(t, customerId);
  expect(res.statusCode, res.body).toBe(200);
  return { customerId, subscriptionIds };
}

/** A full portal session of the customer, as its browser holds it after opening the shop's link. */
async function portalSession(customerId: number) {
  const res = await t.call('POST', '/v1/portalSessions', { customerId });
  expect(res.statusCode, res.body).toBe(200);
  const opened = await openPortalLink(t.app.ctx, new URL(res.json().url).hash.replace('#token=', ''), { confirmed: true });
  if (!('sessionToken' in opened)) throw new Error('the link asked for a confirmation');
  return authenticatePortalSession(t.app.ctx, opened.sessionToken);
}

describe('a cancellation asked for in the portal at the end of the period', () => {
  it('is carried out by the billing clock when the period ends, once, though two instances tick at the same moment', async () => {
    const { customerId, subscriptionIds } = await activeCustomer(t);
    const session = await portalSession(customerId);
    const overview = await cancelPortalSubscription(t.app.ctx, session, subscriptionIds[0]!, {
      mode: 'periodEnd',
      reason: 'moving abroad',
    });
    const periodEnd = overview.subscriptions[0]!.cancellation!.effectiveDate!;
    expect(periodEnd).toBe((await subscriptionRows(t, customerId))[0]!.nextPeriodStart);

    // The day before, the period still runs: nothing happens.
    const before = await runBillingClock(t.app.ctx, at(dayBefore(periodEnd)));
    expect(before.cancelled).not.toContain(customerId);
    expect((await readCustomer(t, customerId)).status).toBe('Active');

    const other = await buildApp({
      db: t.database.db,
      catalog: t.catalog,
      rateLimitStore: new MemoryRateLimitStore(),
      publicBaseUrl: BASE_URL,
      gateway: t.app.ctx.payments.gateway,
      bulkWorker: false,
    });
    try {
      const [a, b] = await Promise.all([runBillingClock(t.app.ctx, at(periodEnd)), runBillingClock(other.ctx, at(periodEnd))]);
      expect([...a.cancelled, ...b.cancelled].filter((id) => id === customerId)).toHaveLength(1);
      // Cancelled before anything renewed it: the ended period was the last one billed.
      expect([...a.renewed, ...b.renewed]).not.toContain(customerId);
    } finally {
      await other.close();
    }
    expect((await readCustomer(t, customerId)).status).toBe('Cancelled');
    expect(await subscriptionRows(t, customerId)).toEqual([expect.objectContaining({ status: 'Cancelled', cancellationOption: 'None' })]);
    expect(await listInvoices(t, customerId)).toHaveLength(1);
    const cancellations = await t.database.db
      .selectFrom('auditLog')
      .select(['actor', 'source'])
      .where('entityType', '=', 'Customer')
      .where('entityId', '=', customerId)
      .where('actor', '=', 'system')
      .execute();
    expect(cancellations).toEqual([{ actor: 'system', source: 'billing clock' }]);
    const [request] = await t.database.db.selectFrom('portalCancellations').selectAll().where('customerId', '=', customerId).execute();
    expect(request).toMatchObject({ reason: 'moving abroad', withdrawnAt: null });
    expect(request!.carriedOutAt).toBeInstanceOf(Date);

    // Later ticks leave it alone; once carried out, it can no longer be withdrawn.
    expect((await runBillingClock(t.app.ctx, at(periodEnd))).cancelled).not.toContain(customerId);
    await expect(uncancelPortalSubscription(t.app.ctx, session, subscriptionIds[0]!)).rejects.toMatchObject({ kind: 'conflict' });
  });

  it('is not carried out once withdrawn (uncancel), nor while another live subscription of the customer has no request', async () => {
    const withdrawn = await activeCustomer(t);
    const session = await portalSession(withdrawn.customerId);
    const overview = await cancelPortalSubscription(t.app.ctx, session, withdrawn.subscriptionIds[0]!, { mode: 'periodEnd' });
    await uncancelPortalSubscription(t.app.ctx, session, withdrawn.subscriptionIds[0]!);

    const two = await activeCustomer(t, { frequencies: [BASIC_MONTHLY, BASIC_MONTHLY] });
    const twoSession = await portalSession(two.customerId);
    await cancelPortalSubscription(t.app.ctx, twoSession, two.subscriptionIds[0]!, { mode: 'periodEnd' });

    const tick = await runBillingClock(t.app.ctx, at(overview.subscriptions[0]!.cancellation!.effectiveDate!));
    expect(tick.cancelled).not.toContain(withdrawn.customerId);
    expect(tick.cancelled).not.toContain(two.customerId);
    expect((await readCustomer(t, withdrawn.customerId)).status).toBe('Active');
    expect((await readCustomer(t, two.customerId)).status).toBe('Active');
  });
});
