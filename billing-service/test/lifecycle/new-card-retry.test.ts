import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activateCustomer } from '../../src/lifecycle/activation.js';
import { runBillingClock } from '../../src/lifecycle/billing-clock.js';
import { claimCollectionAttempt } from '../../src/lifecycle/clock-repository.js';
import { payPortalInvoices } from '../../src/portal/payments.js';
import { ACTIVATION_FLAGS, cardBody, listInvoices, newCustomer, newSubscription } from '../helpers/api-fixtures.js';
import { openPortalUrl } from '../helpers/portal-session.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { callerOf } from './lifecycle-fixtures.js';

/**
 * The billing clock retries an overdue invoice as soon as a new default card arrives (one attempt per customer,
 * day and card), and a card the portal pays with in the step that saved it is not charged again by the clock.
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const DECLINING = '4000000000000341';
const tickAt = (now: Date) => runBillingClock(t.app.ctx, now, { kind: 'account', accountId: t.account.accountId });

/** A customer collecting automatically whose first invoice (29.99) is due `now` and whose card declines it at the clock's tick. */
async function declinedToday(now: Date) {
  const customerId = await newCustomer(t, {});
  await newSubscription(t, customerId);
  expect((await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...cardBody({ cardNumber: DECLINING }) })).statusCode).toBe(
    200,
  );
  const setting = (await t.call('GET', `/v1/customerbillingsetting/${customerId}`)).json();
  expect((await t.call('PUT', '/v1/customerbillingsetting', { ...setting, autoCollect: true })).statusCode).toBe(200);
  await activateCustomer(t.app.ctx, callerOf(t.account), { customerId, ...ACTIVATION_FLAGS }, { preview: false, sideEffects: false, now });
  expect((await tickAt(now)).declined).toContain(customerId);
  return customerId;
}

async function newDefaultCard(customerId: number): Promise<number> {
  const res = await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...cardBody({ isDefault: true }) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().id;
}

const payments = async (customerId: number) =>
  ((await t.call('GET', `/v1/customers/${customerId}/payments`)).json() as Array<{ status: string; source: string; amount: number }>).map(
    (p) => [p.status, p.source, p.amount],
  );

const later = (now: Date, minutes: number) => new Date(now.getTime() + minutes * 60_000);

describe('a new default card arriving for an overdue invoice', () => {
  it('is charged at the next tick of the clock, not the next day, once though two instances tick at the same moment', async () => {
    const now = new Date('2025-09-03T09:00:00Z');
    const customerId = await declinedToday(now);
    // Without a new card, the day's attempt is spent: a later tick leaves the customer alone.
    expect((await tickAt(later(now, 30))).declined).not.toContain(customerId);

    await newDefaultCard(customerId);
    const [first, second] = await Promise.all([tickAt(later(now, 60)), tickAt(later(now, 60))]);
    expect([...first.collected, ...second.collected].filter((id) => id === customerId)).toEqual([customerId]);
    expect((await tickAt(later(now, 90))).collected).not.toContain(customerId);
    expect(await payments(customerId)).toEqual([
      ['Failed', 'Automatic', 29.99],
      ['Succeeded', 'Automatic', 29.99],
    ]);
    expect((await listInvoices(t, customerId)).map((i) => i.outstandingBalance)).toEqual([0]);
  });

  it('saved in the portal and paid with at once ("pay now"): paid once, the clock charges nothing more, a repeat of the step answers the same payment', async () => {
    // The portal pays on the account's clock (the wall clock here): the customer's day is today.
    const now = new Date();
    const customerId = await declinedToday(now);
    const cardId = await newDefaultCard(customerId);
    const link = await t.call('POST', '/v1/portalSessions', { customerId, flow: 'paymentMethodUpdate' });
    const session = await openPortalUrl(t, link.json().url);

    const paid = await payPortalInvoices(t.app.ctx, session, { paymentMethodId: cardId }, 'save-and-pay-1');
    expect(paid).toMatchObject({ status: 'Succeeded', amount: 29.99, paymentMethodId: cardId });
    const again = await payPortalInvoices(t.app.ctx, session, { paymentMethodId: cardId }, 'save-and-pay-1');
    expect(again).toMatchObject({ paymentActivityId: (paid as { paymentActivityId: number }).paymentActivityId });

    expect((await tickAt(later(now, 1))).collected).not.toContain(customerId);
    expect(await payments(customerId)).toEqual([
      ['Failed', 'Automatic', 29.99],
      ['Succeeded', 'SelfServicePortal', 29.99],
    ]);
    expect((await listInvoices(t, customerId)).map((i) => i.outstandingBalance)).toEqual([0]);
  });

  it('paid in the portal while the clock is charging the same card: refused payment_in_progress and nothing charged (a second charge would follow the clock’s)', async () => {
    const now = new Date();
    const customerId = await declinedToday(now);
    const cardId = await newDefaultCard(customerId);
    const session = await openPortalUrl(t, (await t.call('POST', '/v1/portalSessions', { customerId })).json().url);
    // The clock's claim on the new card, its charge not recorded yet (at the gateway, or its instance paused).
    await claimCollectionAttempt(t.database.db, customerId, now.toISOString().slice(0, 10), cardId);
    const refused = await payPortalInvoices(t.app.ctx, session, { paymentMethodId: cardId }, 'racing-1').catch((error: unknown) => error);
    expect(refused).toMatchObject({ kind: 'conflict', errors: [{ Code: 'payment_in_progress' }] });
    expect(await payments(customerId)).toEqual([['Failed', 'Automatic', 29.99]]);
  });

  it('is left for tomorrow when the customer does not collect automatically', async () => {
    const now = new Date('2025-10-07T09:00:00Z');
    const customerId = await declinedToday(now);
    const setting = (await t.call('GET', `/v1/customerbillingsetting/${customerId}`)).json();
    expect((await t.call('PUT', '/v1/customerbillingsetting', { ...setting, autoCollect: false })).statusCode).toBe(200);
    await newDefaultCard(customerId);
    expect((await tickAt(later(now, 60))).collected).not.toContain(customerId);
    expect(await payments(customerId)).toEqual([['Failed', 'Automatic', 29.99]]);
  });
});
