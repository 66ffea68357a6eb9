import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIVATION_FLAGS, activate, newCustomer, newSubscription, readOverview } from '../helpers/api-fixtures.js';
import type { TestAccount } from '../helpers/test-app.js';
import { deposit } from '../lifecycle/lifecycle-fixtures.js';
import { startConsoleReadsApp, type ConsoleReadsApp } from './console-reads-app.js';

/*
 * The console's lists (payments, dunning, a customer's audit trail and webhook events, webhook deliveries and
 * resend, the e-mail outbox) over one story on an account's own test clock: a customer who pays by card, and one
 * whose card declines its first renewal (README "Test cards": 4000 0000 0000 0341).
 */

let t: ConsoleReadsApp;
let account: TestAccount;
let payer: number;
let decliner: number;
let endpointId: number;

beforeAll(async () => {
  t = await startConsoleReadsApp({
    app: {
      testClocks: true,
      backgroundTasks: false,
      webhookWorker: false,
      webhooks: { allowHttp: true, allowPrivate: true },
      // E-mails are written to the outbox (no worker sends them here).
      email: { smtpUrl: 'smtp://127.0.0.1:9', from: 'billing@inkwell.test' },
    },
  });
  account = await t.newAccount();
  await advance('2027-01-05T10:00:00Z');
  const hook = await t.call('POST', '/v1/webhookEndpoints', { url: 'http://127.0.0.1:9/hooks', eventTypes: ['*'] }, { as: account });
  expect(hook.statusCode, hook.body).toBe(200);
  endpointId = hook.json().id;
  payer = await cardCustomer('Pat', '4242424242424242');
  decliner = await cardCustomer('Dee', '4000000000000341', '29.99');
  // The renewal of 2027-02-05: the payer's card pays it, the decliner's is declined; overdue from 2027-02-06.
  await advance('2027-02-05T12:00:00Z');
  await advance('2027-02-07T00:30:00Z');
  // A success newer than every failure: failures first is an order of its own, not the ids'.
  const paid = await t.call('POST', '/v1/payments', { customerId: payer, amount: 5, useDefaultPaymentMethod: true }, { as: account });
  expect(paid.statusCode, paid.body).toBe(200);
}, 120_000);
afterAll(async () => t?.close());

async function advance(to: string) {
  const res = await t.call('POST', '/v1/testclock/advance', { to }, { as: account });
  expect(res.statusCode, res.body).toBe(200);
}

/** A customer on Basic monthly with a card and automatic collection, activated now; `funds` paid in advance pay the activation. */
async function cardCustomer(firstName: string, cardNumber: string, funds?: string): Promise<number> {
  const customerId = await newCustomer(
    t,
    { firstName, lastName: 'Example', primaryEmail: `${firstName.toLowerCase()}@example.test` },
    account,
  );
  await newSubscription(t, customerId, undefined, account);
  const card = await t.call(
    'POST',
    '/v1/paymentmethods/creditcard',
    { customerId, cardNumber, firstName, lastName: 'Example', expirationMonth: 12, expirationYear: 40, cvv: '123' },
    { as: account },
  );
  expect(card.statusCode, card.body).toBe(200);
  const setting = (await t.call('GET', `/v1/customerbillingsetting/${customerId}`, undefined, { as: account })).json();
  const put = await t.call('PUT', '/v1/customerbillingsetting', { ...setting, autoCollect: true }, { as: account });
  expect(put.statusCode, put.body).toBe(200);
  if (funds) await deposit(t, customerId, funds, account);
  const note = await t.call('POST', '/v1/customernotes', { customerId, note: `${firstName} called` }, { as: account });
  expect(note.statusCode, note.body).toBe(200);
  const activated = await activate(t, customerId, ACTIVATION_FLAGS, '', account);
  expect(activated.statusCode, activated.body).toBe(200);
  return customerId;
}

describe('payments', () => {
  it('lists failures first, newest first, with the decline code and the customer’s name; `failed` alone, paged, with a total', async () => {
    const all = await t.consoleRead('/console/api/payments?outcome=all&limit=100', { as: account });
    const statuses = all.payments.map((p: { status: string }) => p.status);
    expect(statuses).toContain('Failed');
    expect(statuses).toContain('Succeeded');
    // Every failure before every success, each group newest first.
    expect(statuses).toEqual([...statuses].sort((a: string, b: string) => (a === b ? 0 : a === 'Failed' ? -1 : 1)));
    const failed = all.payments.filter((p: { status: string }) => p.status === 'Failed');
    expect(failed.map((p: { id: number }) => p.id)).toEqual([...failed.map((p: { id: number }) => p.id)].sort((a, b) => b - a));
    expect(failed[0]).toMatchObject({
      customerId: decliner,
      customerName: 'Dee Example',
      status: 'Failed',
      declineCode: 'card_declined',
      amount: '19.99',
      currency: 'USD',
    });
    expect(typeof failed[0].declineMessage).toBe('string');
    expect(all.total).toBe(all.payments.length);

    const onlyFailed = await t.consoleRead('/console/api/payments?outcome=failed', { as: account });
    expect(onlyFailed.payments.map((p: { id: number }) => p.id)).toEqual(failed.map((p: { id: number }) => p.id));
    expect(onlyFailed.total).toBe(failed.length);

    const second = await t.consoleRead('/console/api/payments?limit=1&offset=1', { as: account });
    expect(second.payments.map((p: { id: number }) => p.id)).toEqual([all.payments[1].id]);
    expect(second.total).toBe(all.total);

    // Another account's console sees none of them; a limit above 100 is refused.
    expect(await t.consoleRead('/console/api/payments')).toEqual({ payments: [], total: 0 });
    expect((await t.consoleCall('GET', '/console/api/payments?limit=101', { as: account })).statusCode).toBe(400);
  });
});

describe('dunning', () => {
  it('shows the customer whose renewal failed, PoorStanding, with the days to suspension the overview counts', async () => {
    const body = await t.consoleRead('/console/api/dunning', { as: account });
    expect(body.customers.map((c: { id: number }) => c.id)).toEqual([decliner]);
    const overview = await readOverview(t, decliner, account);
    expect(body.customers[0]).toEqual({
      id: decliner,
      name: 'Dee Example',
      email: 'dee@example.test',
      status: 'Active',
      accountStatus: 'PoorStanding',
      balance: '19.99',
      currency: 'USD',
      poorStandingSince: '2027-02-06T00:00:00.000Z',
      // 7 days of grace from 2027-02-06, one of them gone at 2027-02-07 00:30.
      daysToSuspension: 6,
    });
    expect(overview.daysUntilSuspension).toBe(6);
    expect(await t.consoleRead('/console/api/dunning')).toEqual({ customers: [] });
  });
});

describe('a customer’s audit trail', () => {
  it('holds the customer’s entries and its rows’ (subscription, note, settings), newest first, and no other customer’s', async () => {
    const body = await t.consoleRead(`/console/api/customers/${decliner}/audit?limit=100`, { as: account });
    const entries = body.entries as Array<{ id: number; entityType: string; entityId: number; actor: string; source: string; at: string }>;
    const types = new Set(entries.map((e) => e.entityType));
    for (const type of ['Customer', 'Subscription', 'CustomerNote', 'CustomerBillingSetting']) expect(types).toContain(type);
    expect(entries.map((e) => e.id)).toEqual([...entries.map((e) => e.id)].sort((a, b) => b - a));

    const subscriptionIds = (await t.call('GET', `/v1/customers/${decliner}/subscriptions`, undefined, { as: account }))
      .json()
      .map((s: { id: number }) => s.id);
    const noteIds = (await t.call('GET', `/v1/customers/${decliner}/notes`, undefined, { as: account }))
      .json()
      .map((n: { id: number }) => n.id);
    for (const entry of entries) {
      if (entry.entityType === 'Customer' || entry.entityType === 'CustomerBillingSetting') expect(entry.entityId).toBe(decliner);
      if (entry.entityType === 'Subscription') expect(subscriptionIds).toContain(entry.entityId);
      if (entry.entityType === 'CustomerNote') expect(noteIds).toContain(entry.entityId);
    }
    // The payer's rows are its own.
    const payers = await t.consoleRead(`/console/api/customers/${payer}/audit?limit=100`, { as: account });
    const ids = new Set(entries.map((e) => e.id));
    expect(payers.entries.length).toBeGreaterThan(0);
    expect(payers.entries.filter((e: { id: number }) => ids.has(e.id))).toEqual([]);

    const page = await t.consoleRead(`/console/api/customers/${decliner}/audit?limit=2&offset=1`, { as: account });
    expect(page.entries.map((e: { id: number }) => e.id)).toEqual(entries.slice(1, 3).map((e) => e.id));
    // Another account's customer, or none: 404.
    expect((await t.consoleCall('GET', `/console/api/customers/${decliner}/audit`)).statusCode).toBe(404);
    expect((await t.consoleCall('GET', '/console/api/customers/99999999/audit', { as: account })).statusCode).toBe(404);
  });
});

describe('webhooks', () => {
  it('lists a customer’s events with their deliveries, and only that customer’s', async () => {
    const decliners = await t.consoleRead(`/console/api/customers/${decliner}/webhook-events`, { as: account });
    const payers = await t.consoleRead(`/console/api/customers/${payer}/webhook-events`, { as: account });
    expect(decliners.events.length).toBeGreaterThan(0);
    expect(payers.events.length).toBeGreaterThan(0);
    const mine = new Set(decliners.events.map((e: { id: string }) => e.id));
    expect(payers.events.filter((e: { id: string }) => mine.has(e.id))).toEqual([]);
    const stored = await t.database.db
      .selectFrom('webhookEvents')
      .select(['publicId', 'customerId'])
      .where('accountId', '=', account.accountId)
      .where('customerId', '=', decliner)
      .execute();
    expect([...mine].sort()).toEqual(stored.map((e) => e.publicId).sort());
    for (const event of decliners.events) {
      expect(event.deliveries).toEqual([{ endpointId, status: 'Pending', attempts: 0, lastResponseStatus: null, lastAttemptAt: null }]);
    }
    expect((await t.consoleCall('GET', `/console/api/customers/${decliner}/webhook-events`)).statusCode).toBe(404);
  });

  it('lists every delivery, filtered by status or endpoint, and resends one now as the same delivery', async () => {
    const all = await t.consoleRead('/console/api/webhook-deliveries?limit=100', { as: account });
    expect(all.total).toBeGreaterThan(1);
    expect(all.deliveries).toHaveLength(all.total);
    expect(all.deliveries[0]).toMatchObject({ endpointId, endpointUrl: 'http://127.0.0.1:9/hooks', status: 'Pending', attempts: 0 });
    expect(all.deliveries.map((d: { id: number }) => d.id)).toEqual(
      [...all.deliveries.map((d: { id: number }) => d.id)].sort((a, b) => b - a),
    );
    expect((await t.consoleRead(`/console/api/webhook-deliveries?endpointId=${endpointId}&status=Pending`, { as: account })).total).toBe(
      all.total,
    );
    expect(await t.consoleRead('/console/api/webhook-deliveries?status=Succeeded', { as: account })).toEqual({ deliveries: [], total: 0 });
    expect((await t.consoleRead('/console/api/webhook-deliveries?endpointId=99999', { as: account })).total).toBe(0);

    // One was delivered (as the worker records it); the owner resends it: the same row, Pending, due now.
    const chosen = all.deliveries.at(-1);
    await t.database.db
      .updateTable('webhookDeliveries')
      .set({
        status: 'Succeeded',
        attempts: 1,
        lastStatusCode: 200,
        deliveredAt: new Date(),
        nextAttemptAt: new Date('2030-01-01T00:00:00Z'),
      })
      .where('id', '=', chosen.id)
      .execute();
    expect((await t.consoleRead('/console/api/webhook-deliveries?status=Succeeded', { as: account })).deliveries).toMatchObject([
      { id: chosen.id, status: 'Succeeded', lastResponseStatus: 200, nextAttemptAt: null },
    ]);
    const before = Date.now();
    const resent = await t.consoleCall('POST', `/console/api/webhook-deliveries/${chosen.id}/resend`, { as: account, role: 'owner' });
    expect(resent.statusCode, resent.body).toBe(202);
    const { delivery } = resent.json();
    expect(delivery).toMatchObject({ id: chosen.id, eventId: chosen.eventId, status: 'Pending', attempts: 0 });
    expect(new Date(delivery.nextAttemptAt).getTime()).toBeLessThanOrEqual(Date.now());
    expect(new Date(delivery.nextAttemptAt).getTime()).toBeGreaterThanOrEqual(before - 1000);
    // Resending a Pending one again adds no delivery.
    expect(
      (await t.consoleCall('POST', `/console/api/webhook-deliveries/${chosen.id}/resend`, { as: account, role: 'owner' })).statusCode,
    ).toBe(202);
    expect((await t.consoleRead('/console/api/webhook-deliveries', { as: account })).total).toBe(all.total);
    const rows = await t.database.db
      .selectFrom('webhookDeliveries')
      .select('id')
      .where('eventId', '=', await eventRowId(chosen.eventId))
      .execute();
    expect(rows).toHaveLength(1);
    // Audited as the operator, from the console.
    const audit = await t.database.db
      .selectFrom('auditLog')
      .select(['actor', 'source'])
      .where('entityType', '=', 'WebhookDelivery')
      .where('entityId', '=', chosen.id)
      .execute();
    const owner = `owner-${account.accountId}@example.test`; // the operator the reads app signed in for this account
    expect(audit).toEqual([
      { actor: owner, source: 'Console' },
      { actor: owner, source: 'Console' },
    ]);

    // Owner only; another account's delivery, or none: 404.
    expect(
      (await t.consoleCall('POST', `/console/api/webhook-deliveries/${chosen.id}/resend`, { as: account, role: 'billing' })).statusCode,
    ).toBe(403);
    expect((await t.consoleCall('POST', `/console/api/webhook-deliveries/${chosen.id}/resend`, { role: 'owner' })).statusCode).toBe(404);
    expect(
      (await t.consoleCall('POST', '/console/api/webhook-deliveries/99999999/resend', { as: account, role: 'owner' })).statusCode,
    ).toBe(404);
  });
});

async function eventRowId(publicId: string): Promise<number> {
  const row = await t.database.db.selectFrom('webhookEvents').select('id').where('publicId', '=', publicId).executeTakeFirstOrThrow();
  return Number(row.id);
}

describe('e-mails', () => {
  it('lists the outbox newest first with status and attempts, filtered by status, and only the account’s', async () => {
    const body = await t.consoleRead('/console/api/emails?limit=100', { as: account });
    expect(body.total).toBeGreaterThan(0);
    expect(body.emails).toHaveLength(body.total);
    const addresses = new Set(body.emails.map((e: { to: string }) => e.to));
    expect(addresses).toContain('dee@example.test');
    const first = body.emails.find((e: { to: string }) => e.to === 'dee@example.test');
    expect(first).toMatchObject({ customerId: decliner, language: 'en', status: 'Pending', attempts: 0, lastError: null, sentAt: null });
    expect(typeof first.type).toBe('string');
    expect(body.emails.map((e: { id: number }) => e.id)).toEqual([...body.emails.map((e: { id: number }) => e.id)].sort((a, b) => b - a));

    await t.database.db
      .updateTable('emailOutbox')
      .set({ status: 'Failed', attempts: 5, lastError: '550 mailbox unavailable' })
      .where('id', '=', first.id)
      .execute();
    expect(await t.consoleRead('/console/api/emails?status=Failed', { as: account })).toMatchObject({
      emails: [{ id: first.id, status: 'Failed', attempts: 5, lastError: '550 mailbox unavailable' }],
      total: 1,
    });
    expect((await t.consoleRead('/console/api/emails?status=Pending', { as: account })).total).toBe(body.total - 1);
    expect(await t.consoleRead('/console/api/emails')).toEqual({ emails: [], total: 0 });
    expect((await t.consoleCall('GET', '/console/api/emails?status=Lost', { as: account })).statusCode).toBe(400);
  });
});
