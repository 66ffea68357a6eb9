import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testCatalog } from '../../billing-service/test/helpers/test-app.js';
import { completedCheckout, startCheckoutHarness, type CheckoutHarness } from './helpers/checkout-harness.js';

/*
 * The proxy's plan change routes for the customer signed in to the merchant's site: the shop's own session says
 * who it is (here a header the test's "shop" trusts, as a real shop trusts its session cookie), the proxy checks
 * the subscription is that customer's and calls the billing API with the private key.
 */

type Body = Record<string, any>;
const SIGNED_IN = 'x-test-shop-customer';

let h: CheckoutHarness;
let shop: FastifyInstance;
beforeAll(async () => {
  h = await startCheckoutHarness({ billing: { catalog: testCatalog({ planChanges: { allowed: [{ from: 'BASIC', to: 'PRO' }] } }) } });
  shop = (
    await h.buildShop({
      signedInCustomer: (request) => {
        const id = request.headers.get(SIGNED_IN);
        return id ? Number(id) : null;
      },
    })
  ).app;
});
afterAll(async () => h?.close());

/** A customer who went through the checkout, and its subscription's id. */
async function subscriber(planFrequencyId = 11) {
  const { customerId } = await completedCheckout(h, { planFrequencyId });
  const [subscription] = (await h.billing.call('GET', `/v1/customers/${customerId}/subscriptions`)).json();
  return { customerId, subscriptionId: subscription.id as number };
}

const asCustomer = (customerId: number | null): Record<string, string> => (customerId === null ? {} : { [SIGNED_IN]: String(customerId) });

function changePlan(customerId: number | null, subscriptionId: number, body: Body, app = shop) {
  return h.proxy('POST', `/subscriptions/${subscriptionId}/changes`, body, undefined, app, asCustomer(customerId));
}

function withdraw(customerId: number | null, subscriptionId: number, app = shop) {
  return h.proxy('DELETE', `/subscriptions/${subscriptionId}/changes/pending`, undefined, undefined, app, asCustomer(customerId));
}

const money = (value: number) => value.toFixed(2);

describe("the proxy's plan changes", () => {
  it('previews then applies Basic to Pro for the signed-in customer: the preview is what is posted, as the billing API says', async () => {
    const { customerId, subscriptionId } = await subscriber();
    const direct = (
      await h.billing.call('POST', `/v1/subscriptions/${subscriptionId}/changes`, { planFrequencyId: 21, preview: true })
    ).json();
    const preview = await changePlan(customerId, subscriptionId, { planFrequencyId: 21, preview: true });
    expect(preview.statusCode, preview.body).toBe(200);
    const p = preview.json();
    expect(p).toMatchObject({ preview: true, timing: 'now', subscription: { subscriptionId, planCode: 'PRO', planFrequencyId: 21 } });
    expect(p.invoice.id).toBeNull();
    expect(p.invoice.total).toBe(money(direct.invoice.total));
    expect(p.invoice.lines.map((l: Body) => [l.kind, l.quantity, l.amount])).toEqual(
      direct.invoice.draftCharges.map((c: Body) => [c.chargeType, c.quantity, money(c.amount)]),
    );
    // the unused part of Basic is credited, Pro charged
    expect(p.invoice.lines.map((l: Body) => l.kind)).toContain('Credit');
    expect(p.nextRenewal).toEqual({ date: direct.nextRenewal.date, amount: money(direct.nextRenewal.amount) });
    // a preview changes nothing
    expect((await h.billing.call('GET', `/v1/subscriptions/${subscriptionId}`)).json().planCode).toBe('BASIC');

    const applied = await changePlan(customerId, subscriptionId, { planFrequencyId: 21 });
    expect(applied.statusCode, applied.body).toBe(200);
    const a = applied.json();
    expect(a).toMatchObject({ preview: false, timing: 'now', subscription: { planCode: 'PRO', pendingChange: null } });
    expect(a.subscription.quantities).toEqual([
      { code: 'SEAT', name: 'Seat', quantity: 5 },
      { code: 'SUPPORT', name: 'Priority support', quantity: 1 },
    ]);
    expect([a.invoice.lines, a.invoice.total, a.nextRenewal]).toEqual([p.invoice.lines, p.invoice.total, p.nextRenewal]);
    const posted = (await h.billing.call('GET', `/v1/Invoices/${a.invoice.id}`)).json();
    expect(posted).toMatchObject({ customerId, invoiceNumber: a.invoice.number });
    expect(money(posted.invoiceAmount)).toBe(a.invoice.total);
    expect((await h.billing.call('GET', `/v1/subscriptions/${subscriptionId}`)).json().planCode).toBe('PRO');
  });

  it("schedules a downgrade for the period end and withdraws it; a second withdrawal is the billing API's 404 keyed id", async () => {
    const { customerId, subscriptionId } = await subscriber(21);
    const scheduled = await changePlan(customerId, subscriptionId, { quantities: { SEAT: 2 }, timing: 'periodEnd' });
    expect(scheduled.statusCode, scheduled.body).toBe(200);
    const s = scheduled.json();
    expect(s).toMatchObject({ preview: false, timing: 'periodEnd', invoice: null });
    const read = (await h.billing.call('GET', `/v1/subscriptions/${subscriptionId}`)).json();
    expect(s.subscription.pendingChange).toEqual({
      planFrequencyId: 21,
      quantities: { SEAT: 2, SUPPORT: 1 },
      effectiveDate: read.pendingChange.effectiveDate,
    });
    expect(s.nextRenewal.date).toBe(read.pendingChange.effectiveDate);
    // the seats stay 5 until then
    expect(s.subscription.quantities[0]).toEqual({ code: 'SEAT', name: 'Seat', quantity: 5 });

    const withdrawn = await withdraw(customerId, subscriptionId);
    expect(withdrawn.statusCode, withdrawn.body).toBe(200);
    expect(withdrawn.json()).toMatchObject({ subscriptionId, planCode: 'PRO', pendingChange: null });
    expect((await h.billing.call('GET', `/v1/subscriptions/${subscriptionId}`)).json().pendingChange).toBeNull();

    const again = await withdraw(customerId, subscriptionId);
    const direct = await h.billing.call('DELETE', `/v1/subscriptions/${subscriptionId}/changes/pending`);
    expect([again.statusCode, direct.statusCode]).toEqual([404, 404]);
    expect(again.json().Errors).toEqual(direct.json().Errors);
    expect(again.json().Errors[0].Key).toBe('id');
  });

  it("passes the billing API's refusals through keyed on the field, and validates the body itself", async () => {
    const { customerId, subscriptionId } = await subscriber(21);
    for (const body of [{ quantities: { SEAT: 51 } }, { planFrequencyId: 11 }, { planFrequencyId: 21 }]) {
      const res = await changePlan(customerId, subscriptionId, body);
      const direct = await h.billing.call('POST', `/v1/subscriptions/${subscriptionId}/changes`, body);
      expect([res.statusCode, direct.statusCode], JSON.stringify(body)).toEqual([400, 400]);
      expect(res.json().Errors).toEqual(direct.json().Errors);
    }
    expect((await changePlan(customerId, subscriptionId, { quantities: { SEAT: 51 } })).json().Errors[0].Key).toBe('quantities.SEAT');
    expect((await changePlan(customerId, subscriptionId, { planFrequencyId: 11 })).json().Errors[0].Key).toBe('planFrequencyId');
    const bad = await changePlan(customerId, subscriptionId, { timing: 'later', quantities: { SEAT: 2.5 } });
    expect(bad.statusCode).toBe(400);
    expect(
      bad
        .json()
        .Errors.map((e: Body) => e.Key)
        .sort(),
    ).toEqual(['quantities.SEAT', 'timing']);
    expect((await h.billing.call('GET', `/v1/subscriptions/${subscriptionId}`)).json().subscriptionProducts[0].quantity).toBe(5);
  });

  it("acts only for the customer the shop says is signed in: another's subscription is not found, nobody signed in is 401, no resolver 403", async () => {
    const mine = await subscriber();
    const theirs = await subscriber();
    const notFound = await changePlan(mine.customerId, theirs.subscriptionId, { planFrequencyId: 21 });
    const missing = await changePlan(mine.customerId, 2 ** 31 - 1, { planFrequencyId: 21 });
    expect([notFound.statusCode, missing.statusCode]).toEqual([404, 404]);
    expect(notFound.json().Errors).toEqual([
      { Key: 'Api Error', Value: `subscription with id ${theirs.subscriptionId} not found`, Code: 'not_found' },
    ]);
    expect((await withdraw(mine.customerId, theirs.subscriptionId)).statusCode).toBe(404);
    // a customer id in the body is not how the proxy learns the customer
    const claimed = await changePlan(null, theirs.subscriptionId, { planFrequencyId: 21, customerId: theirs.customerId });
    expect(claimed.statusCode).toBe(401);
    expect((await withdraw(null, theirs.subscriptionId)).statusCode).toBe(401);
    // the checkout's own shop has no signedInCustomer option
    const unconfigured = await changePlan(theirs.customerId, theirs.subscriptionId, { planFrequencyId: 21 }, h.shop);
    expect(unconfigured.statusCode).toBe(403);
    expect(unconfigured.json().Errors[0].Value).toMatch(/signedInCustomer/);
    expect((await h.billing.call('GET', `/v1/subscriptions/${theirs.subscriptionId}`)).json().planCode).toBe('BASIC');
  });
});
