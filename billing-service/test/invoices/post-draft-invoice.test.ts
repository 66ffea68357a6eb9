import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIVATION_FLAGS, DAY, activate, newCustomer, newSubscription, readOverview } from '../helpers/api-fixtures.js';
import { basicAuth, startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.js';
import { expectError, ledgerRows } from '../lifecycle/lifecycle-fixtures.js';

/**
 * POST /v1/Invoices/{id}/post (issue 24, item 5): a Draft invoice (activation with
 * temporarilyDisableAutoPost) is posted with its own dates, is owed from then on, and takes the
 * money the customer holds; until then the overview counts it as pending, not owed.
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    app: {
      testClocks: true,
      // the e-mail and webhook outboxes are written; nothing sends them in this app
      backgroundTasks: false,
      email: { smtpUrl: 'smtp://127.0.0.1:9', from: 'billing@inkwell.test' },
      webhooks: { allowHttp: true, allowPrivate: true },
    },
  });
});
afterAll(async () => t?.close());

type Body = Record<string, any>;
const as = (account: TestAccount) => ({ as: account });

/** An account of its own (its own clock), subscribed to every webhook event. */
async function accountWithWebhooks(): Promise<TestAccount> {
  const account = await t.newAccount();
  const hook = await t.call('POST', '/v1/webhookEndpoints', { url: 'http://127.0.0.1:9/hooks', eventTypes: ['*'] }, as(account));
  expect(hook.statusCode, hook.body).toBe(200);
  return account;
}

/** A customer on BASIC monthly (19.99 + 10.00 setup fee, no tax) activated without posting: its Draft invoice. */
async function customerWithDraft(account: TestAccount, options: { held?: number } = {}) {
  const customerId = await newCustomer(t, { primaryEmail: `drafts.${account.accountId}@example.com` }, account);
  await newSubscription(t, customerId, undefined, account);
  if (options.held) {
    const paid = await t.call('POST', '/v1/payments', { customerId, amount: options.held, paymentMethod: 'Check' }, as(account));
    expect(paid.statusCode, paid.body).toBe(200);
  }
  const res = await activate(t, customerId, { ...ACTIVATION_FLAGS, temporarilyDisableAutoPost: true }, '?view=sideeffects', account);
  expect(res.statusCode, res.body).toBe(200);
  const [draft] = res.json().invoices as Body[];
  expect(draft).toMatchObject({ status: 'Draft', postedTimestamp: null, invoiceAmount: 29.99 });
  return { customerId, draft: draft! };
}

function post(account: TestAccount, invoiceId: number, headers?: Record<string, string>) {
  return t.call('POST', `/v1/Invoices/${invoiceId}/post`, undefined, { as: account, ...(headers ? { headers } : {}) });
}

async function advance(account: TestAccount, to: Date) {
  const res = await t.call('POST', '/v1/testclock/advance', { to: to.toISOString() }, as(account));
  expect(res.statusCode, res.body).toBe(200);
}

const invoiceEntries = async (customerId: number) => (await ledgerRows(t, customerId)).filter((e) => e.entryType === 'invoice');

describe('POST /v1/Invoices/{id}/post', () => {
  it('posts a Draft with its own dates, applies the money held, tells webhooks and e-mail, and the overview moves it from pending to owed', async () => {
    const account = await accountWithWebhooks();
    const { customerId, draft } = await customerWithDraft(account, { held: 50 });
    // a draft is not owed: pending in the overview, nothing on the ledger, the money held left alone
    expect(await readOverview(t, customerId, account)).toMatchObject({ pendingCharges: 29.99, arBalance: 0, unallocatedPayments: 50 });
    expect(await invoiceEntries(customerId)).toEqual([]);

    const postedAt = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 3 * DAY);
    await advance(account, postedAt);
    const res = await post(account, draft.id);
    expect(res.statusCode, res.body).toBe(200);
    const posted = res.json();
    expect(posted).toEqual({
      ...draft,
      status: 'Paid',
      postedTimestamp: postedAt.toISOString(),
      totalPayments: 29.99,
      outstandingBalance: 0,
    });
    // its dates are the draft's: effective and due on the activation day, the same service period
    expect(posted.effectiveTimestamp).toBe(draft.effectiveTimestamp);
    expect(posted.dueTimestamp).toBe(draft.dueTimestamp);
    expect((await t.call('GET', `/v1/Invoices/${draft.id}`, undefined, as(account))).json()).toEqual(posted);

    expect(await readOverview(t, customerId, account)).toMatchObject({
      pendingCharges: 0,
      arBalance: 0,
      unallocatedPayments: 20.01,
      customerAccountStatus: 'Good',
    });
    const [entry] = await invoiceEntries(customerId);
    expect(entry).toMatchObject({
      invoiceId: draft.id,
      dueAt: new Date(draft.dueTimestamp),
      effectiveAt: new Date(draft.effectiveTimestamp),
    });
    expect([Number(entry!.amount), Number(entry!.openAmount)]).toEqual([29.99, 0]);

    const db = t.database.db;
    const events = await db
      .selectFrom('webhookEvents')
      .select(['eventType', 'payload'])
      .where('customerId', '=', customerId)
      .orderBy('id')
      .execute();
    const invoiceEvents = events.filter((e) => e.eventType.startsWith('invoice.'));
    expect(invoiceEvents.map((e) => [e.eventType, (e.payload as Body).data.id, (e.payload as Body).timestamp])).toEqual([
      ['invoice.posted', draft.id, postedAt.toISOString()],
      ['invoice.paid', draft.id, postedAt.toISOString()],
    ]);
    const emails = await db
      .selectFrom('emailOutbox')
      .select(['emailType', 'attachedInvoiceId'])
      .where('customerId', '=', customerId)
      .where('emailType', '=', 'InvoicePost')
      .execute();
    expect(emails).toEqual([{ emailType: 'InvoicePost', attachedInvoiceId: draft.id }]);
    const audit = await db
      .selectFrom('auditLog')
      .select(['action', 'changes'])
      .where('accountId', '=', account.accountId)
      .where('entityType', '=', 'Invoice')
      .where('entityId', '=', draft.id)
      .execute();
    expect(audit).toMatchObject([
      { action: 'update', changes: { status: ['Draft', 'Posted'], postedTimestamp: [null, postedAt.toISOString()] } },
    ]);
  });

  it('makes a draft owed from then on: not overdue while a draft, overdue at once when posted after its due date', async () => {
    const account = await t.newAccount();
    const { customerId, draft } = await customerWithDraft(account);
    await advance(account, new Date(Date.now() + 3 * DAY));
    expect(await readOverview(t, customerId, account)).toMatchObject({
      pendingCharges: 29.99,
      arBalance: 0,
      customerAccountStatus: 'Good',
    });

    const res = await post(account, draft.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'Posted', totalPayments: 0, outstandingBalance: 29.99, dueTimestamp: draft.dueTimestamp });
    expect(await readOverview(t, customerId, account)).toMatchObject({
      pendingCharges: 0,
      arBalance: 29.99,
      customerAccountStatus: 'PoorStanding',
    });
  });

  it("refuses an invoice that is not a Draft (409 keyed invoiceId), and answers 404 for an unknown id or another account's", async () => {
    const account = await t.newAccount();
    const { customerId, draft } = await customerWithDraft(account);
    expect((await post(account, draft.id)).statusCode).toBe(200);
    expectError(await post(account, draft.id), 409, { Key: 'invoiceId', Value: /is Posted: only a Draft invoice can be posted/ });
    expect(await invoiceEntries(customerId)).toHaveLength(1);

    const posted = await activate(t, await newCustomerWithSubscription(account), ACTIVATION_FLAGS, '?view=sideeffects', account);
    expectError(await post(account, posted.json().invoices[0].id), 409, { Key: 'invoiceId' });

    const other = await t.newAccount();
    const { draft: othersDraft } = await customerWithDraft(other);
    expectError(await post(account, othersDraft.id), 404);
    expect(
      (await t.call('GET', `/v1/Invoices/${othersDraft.id}`, undefined, as(other))).json().status,
      'another account cannot post it',
    ).toBe('Draft');
    expectError(await post(account, 99_999_999), 404);
    expectError(await post(account, 99_999_999_999), 404);
    expectError(await t.call('POST', '/v1/Invoices/abc/post', undefined, as(account)), 400);
  });

  it('answers a body nested thousands of levels deep with 400, not 500, and posts nothing (the fuzzer found it)', async () => {
    const account = await t.newAccount();
    const { draft } = await customerWithDraft(account);
    const deep = await t.app.inject({
      method: 'POST',
      url: `/v1/Invoices/${draft.id}/post`,
      headers: { authorization: basicAuth(account.apiKey), 'content-type': 'application/json', 'idempotency-key': 'deep-body' },
      payload: '['.repeat(5000) + ']'.repeat(5000),
    });
    expect(deep.statusCode, deep.body).toBe(400);
    expect((await t.call('GET', `/v1/Invoices/${draft.id}`, undefined, as(account))).json().status).toBe('Draft');
  });

  it('posts a draft once when posted several times at once', async () => {
    const account = await t.newAccount();
    const { customerId, draft } = await customerWithDraft(account, { held: 10 });
    const answers = await Promise.all([post(account, draft.id), post(account, draft.id), post(account, draft.id)]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409, 409]);
    const entries = await invoiceEntries(customerId);
    expect(entries.map((e) => [e.invoiceId, Number(e.amount), Number(e.openAmount)])).toEqual([[draft.id, 29.99, 19.99]]);
  });

  it('answers a retry with the same Idempotency-Key as the first time, also while the first runs; the key names one invoice', async () => {
    const account = await t.newAccount();
    const { customerId, draft } = await customerWithDraft(account);
    const key = { 'idempotency-key': `post-${draft.id}` };
    const [first, second] = await Promise.all([post(account, draft.id, key), post(account, draft.id, key)]);
    expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
    expect(second.json()).toEqual(first.json());
    const later = await post(account, draft.id, key);
    expect(later.statusCode, later.body).toBe(200);
    expect(later.headers['idempotent-replayed']).toBe('true');
    expect(later.json()).toEqual(first.json());
    expect(await invoiceEntries(customerId)).toHaveLength(1);

    const { draft: another } = await customerWithDraft(account);
    expectError(await post(account, another.id, key), 422, { Key: 'Idempotency-Key' });
    expect((await t.call('GET', `/v1/Invoices/${another.id}`, undefined, as(account))).json().status).toBe('Draft');
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await t.call('GET', '/v1/openapi.json')).json();
    const operation = doc.paths['/v1/Invoices/{invoiceId}/post']?.post;
    expect(operation?.summary).toMatch(/Post a Draft invoice/);
    expect(Object.keys(operation?.responses ?? {})).toContain('200');
  });
});

async function newCustomerWithSubscription(account: TestAccount) {
  const customerId = await newCustomer(t, {}, account);
  await newSubscription(t, customerId, undefined, account);
  return customerId;
}
