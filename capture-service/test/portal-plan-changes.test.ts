import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmailActionLink } from '@renew/billing-service/portal';
import { activeCustomer, BASIC_MONTHLY, BASIC_YEARLY, PRO_MONTHLY } from '../../billing-service/test/helpers/api-fixtures.js';
import { freshIp, startCaptureTest, type CaptureTest } from './helpers/capture-test.js';

/*
 * The portal's "Change plan" and "Seats" (issue 28) through the capture host's HTTP layer, on the database the test run
 * names (PGlite, or PostgreSQL with RENEW_TEST_POSTGRES_URL). The catalogue allows BASIC → PRO only (not back); PRO's
 * SEAT is 1…50, BASIC's is fixed; downgrades wait for the period end (the default downgradeTiming).
 */

let t: CaptureTest;
let app: FastifyInstance;

beforeAll(async () => {
  t = await startCaptureTest();
  app = await t.build({ planChanges: { allowed: [{ from: 'BASIC', to: 'PRO' }] } });
}, 60_000);
afterAll(() => t?.close());

const api = () => t.billing;
type Body = Record<string, any>;

interface Session {
  cookie: string;
  csrf: string;
}

async function openSession(customerId: number, emailLink = false): Promise<Session> {
  const url = emailLink
    ? (await createEmailActionLink(app.ctx, { accountId: api().account.accountId, customerId, flow: 'payInvoices' })).url
    : (await api().call('POST', '/v1/portalSessions', { customerId })).json().url;
  const res = await app.inject({
    method: 'POST',
    url: '/portal/open',
    remoteAddress: freshIp(),
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ token: new URLSearchParams(new URL(url).hash.slice(1)).get('token'), confirmed: true }),
  });
  expect(res.statusCode, res.body).toBe(200);
  return { cookie: String(res.headers['set-cookie']).split(';')[0]!, csrf: res.json().csrfToken };
}

function portal(session: Session | null, method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, options: { csrf?: boolean } = {}) {
  return app.inject({
    method,
    url,
    remoteAddress: freshIp(),
    headers: {
      ...(session ? { cookie: session.cookie } : {}),
      ...(session && options.csrf !== false ? { 'x-portal-csrf': session.csrf } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
  });
}

/** The spec's error body, with its first entry returned. */
function refusal(res: LightMyRequestResponse, status: number): { Key: string; Value: string; Code?: string } {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  expect(body).toMatchObject({ ErrorId: expect.any(Number), HttpStatusCode: status, Errors: [expect.any(Object)] });
  return body.Errors[0];
}

const preview = (session: Session, id: number, body: Body) =>
  portal(session, 'POST', `/portal/api/subscriptions/${id}/changes/preview`, body);
const apply = (session: Session, id: number, body: Body) => portal(session, 'POST', `/portal/api/subscriptions/${id}/changes`, body);
const withdraw = (session: Session | null, id: number, options: { csrf?: boolean } = {}) =>
  portal(session, 'DELETE', `/portal/api/subscriptions/${id}/changes/pending`, undefined, options);

async function options(session: Session): Promise<Body[]> {
  const res = await portal(session, 'GET', '/portal/api/plan-changes');
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

describe('the portal lists the changes the catalogue allows', () => {
  it('BASIC monthly: its yearly frequency and PRO, priced in its currency; PRO: its seats within bounds, and no way back', async () => {
    const basic = await activeCustomer(api());
    const listed = await options(await openSession(basic.customerId));
    expect(listed).toEqual([
      expect.objectContaining({
        subscriptionId: basic.subscriptionIds[0],
        planFrequencyId: BASIC_MONTHLY,
        currency: 'USD',
        amount: 19.99,
        quantities: [],
        pendingChange: null,
        targets: [
          { planFrequencyId: BASIC_YEARLY, planCode: 'BASIC', planName: 'Basic', interval: 'Yearly', numberOfIntervals: 1, amount: 199 },
          // PRO's default products: 5 seats at 8.00 and support at 9.00
          { planFrequencyId: PRO_MONTHLY, planCode: 'PRO', planName: 'Pro', interval: 'Monthly', numberOfIntervals: 1, amount: 49 },
        ],
      }),
    ]);

    const pro = await activeCustomer(api(), { frequencies: [PRO_MONTHLY] });
    const session = await openSession(pro.customerId);
    const [proOptions] = await options(session);
    // PRO → BASIC is not in planChanges.allowed, and PRO has no other frequency.
    expect(proOptions!.targets).toEqual([]);
    expect(proOptions!.quantities).toEqual([
      { productCode: 'SEAT', name: expect.any(String), quantity: 5, minQuantity: 1, maxQuantity: 50 },
    ]);
    // Asked for anyway, the switch is refused, keyed on the field, and nothing changes.
    for (const call of [preview, apply]) {
      const refused = refusal(await call(session, pro.subscriptionIds[0]!, { planFrequencyId: BASIC_MONTHLY }), 400);
      expect(refused.Key).toBe('planFrequencyId');
      expect(refused.Value).toContain('not allowed');
    }
    expect((await api().call('GET', `/v1/subscriptions/${pro.subscriptionIds[0]}`)).json().planCode).toBe('PRO');
  });
});

describe('a change in the portal', () => {
  it('previews an upgrade, and applying it posts exactly the previewed invoice; a retry is refused, not charged again', async () => {
    const { customerId, subscriptionIds } = await activeCustomer(api());
    const id = subscriptionIds[0]!;
    const session = await openSession(customerId);
    const invoicesBefore = (await api().call('GET', `/v1/customers/${customerId}/invoices`)).json();

    const previewed = await preview(session, id, { planFrequencyId: PRO_MONTHLY });
    expect(previewed.statusCode, previewed.body).toBe(200);
    const seen = previewed.json();
    expect(seen).toMatchObject({ subscriptionId: id, timing: 'now', planName: 'Pro', pendingChange: null });
    expect(seen.invoice.id).toBeNull();
    expect(seen.invoice.lines.map((l: Body) => l.chargeType)).toEqual(expect.arrayContaining(['Credit', 'Recurring']));
    // A preview changes nothing.
    expect((await api().call('GET', `/v1/subscriptions/${id}`)).json().planCode).toBe('BASIC');
    expect((await api().call('GET', `/v1/customers/${customerId}/invoices`)).json()).toEqual(invoicesBefore);

    const applied = await apply(session, id, { planFrequencyId: PRO_MONTHLY });
    expect(applied.statusCode, applied.body).toBe(200);
    const made = applied.json();
    expect(made.invoice.id).toEqual(expect.any(Number));
    const { id: _previewId, invoiceNumber: _previewNumber, ...previewedInvoice } = seen.invoice;
    const { id: invoiceId, invoiceNumber: _number, ...postedInvoice } = made.invoice;
    expect(postedInvoice).toEqual(previewedInvoice);
    expect(made.nextRenewal).toEqual(seen.nextRenewal);

    // The invoice as the API shows it: the same lines and total; the subscription on PRO; the audit's source the portal's.
    const posted = (await api().call('GET', `/v1/Invoices/${invoiceId}`)).json();
    expect(posted.charges.map((c: Body) => [c.chargeType, c.productCode, c.quantity, c.amount])).toEqual(
      seen.invoice.lines.map((l: Body) => [l.chargeType, l.productCode, l.quantity, l.amount]),
    );
    expect(posted.invoiceAmount).toBe(seen.invoice.total);
    const subscription = (await api().call('GET', `/v1/subscriptions/${id}`)).json();
    expect(subscription.planFrequency.id).toBe(PRO_MONTHLY);
    const audit = await api()
      .database.db.selectFrom('auditLog')
      .select(['source', 'changes'])
      .where('entityType', '=', 'Subscription')
      .where('entityId', '=', id)
      .execute();
    expect(audit.filter((a) => JSON.stringify(a.changes).includes('planChangeInvoiceId')).map((a) => a.source)).toEqual(['Portal']);

    const retried = refusal(await apply(session, id, { planFrequencyId: PRO_MONTHLY }), 400);
    expect(retried.Key).toBe('planFrequencyId');
    expect((await api().call('GET', `/v1/customers/${customerId}/invoices`)).json()).toHaveLength(invoicesBefore.length + 1);
  });

  it('seats: out of bounds is a 400 keyed on the quantity; more seats apply now; fewer wait for the period end and can be withdrawn', async () => {
    const { customerId, subscriptionIds } = await activeCustomer(api(), { frequencies: [PRO_MONTHLY] });
    const id = subscriptionIds[0]!;
    const session = await openSession(customerId);
    for (const seats of [0, 51, 2.5]) {
      for (const call of [preview, apply])
        expect(refusal(await call(session, id, { quantities: { SEAT: seats } }), 400).Key).toBe('quantities.SEAT');
    }
    expect(refusal(await preview(session, id, { quantities: { SUPPORT: 2 } }), 400).Key).toBe('quantities.SUPPORT');
    expect(refusal(await preview(session, id, { quantities: { SEAT: 'many' } }), 400).Key).toBe('quantities.SEAT');

    const more = await apply(session, id, { quantities: { SEAT: 8 } });
    expect(more.statusCode, more.body).toBe(200);
    expect(more.json()).toMatchObject({ timing: 'now', pendingChange: null, invoice: { id: expect.any(Number) } });
    expect((await options(session))[0]!.quantities[0].quantity).toBe(8);

    const fewerPreview = await preview(session, id, { quantities: { SEAT: 2 } });
    expect(fewerPreview.statusCode, fewerPreview.body).toBe(200);
    const nextPeriodStart = (await api().call('GET', `/v1/subscriptions/${id}`)).json().nextPeriodStartDate;
    // The portal takes no timing: a downgrade waits for the period end whatever the body says.
    const fewer = await apply(session, id, { quantities: { SEAT: 2 }, timing: 'now' });
    expect(fewer.statusCode, fewer.body).toBe(200);
    expect(fewer.json()).toEqual(fewerPreview.json());
    expect(fewer.json()).toMatchObject({
      timing: 'periodEnd',
      invoice: null,
      // 2 seats at 8.00 and support at 9.00, no tax without an address
      nextRenewal: { date: nextPeriodStart, amount: 25 },
      pendingChange: { planFrequencyId: PRO_MONTHLY, planName: 'Pro', quantities: { SEAT: 2, SUPPORT: 1 }, effectiveDate: nextPeriodStart },
    });
    const [scheduled] = await options(session);
    expect(scheduled!.pendingChange).toMatchObject({ quantities: { SEAT: 2 }, effectiveDate: nextPeriodStart });
    expect(scheduled!.quantities[0].quantity).toBe(8);

    // Withdrawing needs the session's CSRF token, like every write.
    refusal(await withdraw(session, id, { csrf: false }), 403);
    const withdrawn = await withdraw(session, id);
    expect(withdrawn.statusCode, withdrawn.body).toBe(200);
    expect(withdrawn.json()[0].pendingChange).toBeNull();
    expect((await api().call('GET', `/v1/subscriptions/${id}`)).json().pendingChange).toBeNull();
    expect(refusal(await withdraw(session, id), 404).Key).toBe('id');
  });
});

describe('who may change a plan in the portal', () => {
  it('no session: 401 on every route; without the CSRF token: 403', async () => {
    const { customerId, subscriptionIds } = await activeCustomer(api());
    const id = subscriptionIds[0]!;
    refusal(await portal(null, 'GET', '/portal/api/plan-changes'), 401);
    refusal(await portal(null, 'POST', `/portal/api/subscriptions/${id}/changes/preview`, { planFrequencyId: PRO_MONTHLY }), 401);
    refusal(await portal(null, 'POST', `/portal/api/subscriptions/${id}/changes`, { planFrequencyId: PRO_MONTHLY }), 401);
    refusal(await withdraw(null, id), 401);
    const session = await openSession(customerId);
    for (const path of ['changes/preview', 'changes'])
      refusal(
        await portal(session, 'POST', `/portal/api/subscriptions/${id}/${path}`, { planFrequencyId: PRO_MONTHLY }, { csrf: false }),
        403,
      );
    expect((await api().call('GET', `/v1/subscriptions/${id}`)).json().planCode).toBe('BASIC');
  });

  it("another customer's subscription is unknown (404), and nothing of theirs changes; an e-mail link's session may not change plans", async () => {
    const mine = await activeCustomer(api());
    const theirs = await activeCustomer(api());
    const theirId = theirs.subscriptionIds[0]!;
    const session = await openSession(mine.customerId);
    refusal(await preview(session, theirId, { planFrequencyId: PRO_MONTHLY }), 404);
    refusal(await apply(session, theirId, { planFrequencyId: PRO_MONTHLY }), 404);
    refusal(await withdraw(session, theirId), 404);
    expect((await options(session)).map((o) => o.subscriptionId)).toEqual(mine.subscriptionIds);
    expect((await api().call('GET', `/v1/subscriptions/${theirId}`)).json().planCode).toBe('BASIC');

    const emailSession = await openSession(mine.customerId, true);
    const refused = refusal(await apply(emailSession, mine.subscriptionIds[0]!, { planFrequencyId: PRO_MONTHLY }), 403);
    expect(refused.Code).toBe('portal_action_not_allowed');
  });
});
