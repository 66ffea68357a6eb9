import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestDueGatewayEvents } from '../../src/disputes/event-worker.js';
import { gatewayIdempotencyKey } from '../../src/gateway/payment-gateway.js';
import { ingestGatewayEvent } from '../../src/disputes/ingest.js';
import { SandboxGateway } from '../../src/gateway/sandbox-gateway.js';
import { money } from '../../src/money/money.js';
import { WebhookDeliveryWorker } from '../../src/webhooks/delivery-worker.js';
import {
  ACTIVATION_FLAGS,
  DAY,
  activate,
  cardBody,
  listInvoices,
  newCustomer,
  newSubscription,
  readCustomer,
  readOverview,
} from '../helpers/api-fixtures.js';
import { startSmtpStandIn } from '../helpers/smtp-stand-in.js';
import { errorsOf, startTestApp, testCatalog, type TestAccount, type TestApp } from '../helpers/test-app.js';
import { consoleCall, firstOwner } from '../console/console-helpers.js';
import { startReceiver } from '../webhooks/receiver.js';

/** Disputes (issue 37): a 0259 card's payment disputed at the sandbox, ingested by the worker, answered with evidence. */

const MERCHANT = 'ops@inkwell.test';
const DISPUTED_CARD = '4000000000000259';

let t: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpStandIn>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let hookSecret: string;
beforeAll(async () => {
  smtp = await startSmtpStandIn();
  receiver = await startReceiver();
  t = await startTestApp({
    catalog: testCatalog({ account: { name: 'Inkwell', email: MERCHANT } }),
    app: {
      email: { smtpUrl: smtp.url, from: 'billing@inkwell.test', pollMs: 20 },
      webhooks: { allowHttp: true, allowPrivate: true },
      webhookWorker: false,
      // the test runs the worker's rounds itself
      gatewayEvents: false,
      // an account of its own moves its clock (the overdue story)
      testClocks: true,
    },
  });
  // disputes due at once, and closed at once once decided
  t.app.ctx.payments.gateway = new SandboxGateway(t.database.db, { disputeDelayMs: 0 });
  const hook = await t.call('POST', '/v1/webhookEndpoints', {
    url: receiver.url('/hooks'),
    eventTypes: ['dispute.created', 'dispute.closed'],
  });
  expect(hook.statusCode, hook.body).toBe(200);
  hookSecret = hook.json().secret;
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
  await smtp?.close();
});

const plus = (a: number, b: number) => money(a).plus(b).toNumber();

/** An active customer on BASIC monthly whose first invoice was paid with a card of `cardNumber` (in `account`, default the test's). */
async function paidWithCard(cardNumber = DISPUTED_CARD, account?: TestAccount) {
  const as = account ? { as: account } : {};
  const customerId = await newCustomer(t, { firstName: 'Grace', lastName: 'Hopper', currency: 'USD' }, account);
  await newSubscription(t, customerId, undefined, account);
  const activated = await activate(t, customerId, ACTIVATION_FLAGS, '?view=sideeffects', account);
  expect(activated.statusCode, activated.body).toBe(200);
  const invoice = activated.json().invoices[0] as { id: number; invoiceAmount: number; dueTimestamp: string };
  const card = await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...cardBody({ cardNumber }), isDefault: true }, as);
  expect(card.statusCode, card.body).toBe(200);
  const paid = await t.call('POST', '/v1/payments', { customerId, amount: invoice.invoiceAmount, paymentMethodId: card.json().id }, as);
  expect(paid.statusCode, paid.body).toBe(200);
  expect((await listInvoices(t, customerId, account))[0]).toMatchObject({ status: 'Paid', outstandingBalance: 0 });
  return { customerId, invoice, payment: paid.json() as { id: number; amount: number } };
}

/**
 * The ledger's rule after a dispute moved it: every entry's amount less its open amount is what its
 * allocations moved, no open amount is out of [0, amount].
 */
async function expectBalancedLedger(customerId: number) {
  const db = t.app.ctx.db;
  const entries = await db.selectFrom('ledgerEntries').selectAll().where('customerId', '=', customerId).execute();
  const allocations = await db
    .selectFrom('ledgerAllocations')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb(
          'sourceEntryId',
          'in',
          entries.map((e) => e.id),
        ),
        eb(
          'invoiceEntryId',
          'in',
          entries.map((e) => e.id),
        ),
      ]),
    )
    .execute();
  expect(entries.map((e) => e.entryType)).toContain('dispute');
  for (const e of entries) {
    const moved = allocations
      .filter((a) => a.sourceEntryId === e.id || a.invoiceEntryId === e.id)
      .reduce((sum, a) => sum.plus(a.amount), money(0));
    expect(moved.toString(), `entry ${e.id} (${e.entryType})`).toBe(money(e.amount).minus(e.openAmount).toString());
    expect(money(e.openAmount).greaterThanOrEqualTo(0) && money(e.openAmount).lessThanOrEqualTo(e.amount)).toBe(true);
  }
}

/** One round of the gateway event worker, as every instance runs it. */
const runWorker = () => ingestDueGatewayEvents(t.app.ctx, t.app.log);

async function disputesOf(paymentId: number) {
  const res = await t.call('GET', `/v1/disputes?query=PaymentId:${paymentId}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Array<Record<string, any>>;
}

async function disputeOf(paymentId: number) {
  await runWorker();
  const [dispute] = await disputesOf(paymentId);
  expect(dispute, 'the dispute of the payment').toBeDefined();
  return dispute as Record<string, any>;
}

function evidence(disputeId: number, text: unknown, key = `evidence-${disputeId}-${String(text).slice(0, 20)}`) {
  return t.call('POST', `/v1/disputes/${disputeId}/evidence`, { text }, { headers: { 'idempotency-key': key } });
}

/** The webhook events delivered since `from` about dispute `id`. */
async function disputeEvents(from: number, id: number) {
  const worker = new WebhookDeliveryWorker(t.database.db, { allowHttp: true, allowPrivate: true, timeoutMs: 2_000 }, t.app.log);
  while ((await worker.runDue(new Date(Date.now() + 1000))) > 0);
  return receiver.received
    .slice(from)
    .map((r) => new Webhook(hookSecret).verify(r.body, r.headers) as { type: string; data: any })
    .filter((e) => e.data.id === id);
}

async function mailsAbout(paymentId: number, atLeast: number, waitMs = 20_000) {
  const deadline = Date.now() + waitMs; // a wait for the outbox worker, not a timing
  for (;;) {
    const mails = smtp.received.filter((m) => m.to.includes(MERCHANT) && m.subject.includes(`payment ${paymentId} is disputed`));
    if (mails.length >= atLeast || Date.now() > deadline) return mails;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('a 0259 payment is disputed', () => {
  it('records the dispute, reopens the invoice, raises AR and records the fee', async () => {
    const { customerId, invoice, payment } = await paidWithCard();
    const before = await readOverview(t, customerId);
    expect(before.arBalance).toBe(0);

    const dispute = await disputeOf(payment.id);
    expect(dispute).toMatchObject({
      customerId,
      paymentId: payment.id,
      amount: invoice.invoiceAmount,
      currency: 'USD',
      reason: 'fraudulent',
      status: 'NeedsResponse',
      fee: 15,
      invoiceUnallocations: [{ invoiceId: invoice.id, amount: invoice.invoiceAmount }],
      evidenceSubmittedTimestamp: null,
      closedTimestamp: null,
    });
    expect(dispute.gatewayDisputeId).toMatch(/^sbxdp_/);
    const evidenceDue = new Date(dispute.evidenceDueTimestamp).getTime() - Date.now();
    expect(evidenceDue).toBeGreaterThan(6.9 * 86_400_000);
    expect(evidenceDue).toBeLessThan(7.1 * 86_400_000);
    expect(dispute.uri).toBe(`https://billing.test/v1/disputes/${dispute.id}`);

    const byId = await t.call('GET', `/v1/disputes/${dispute.id}`);
    expect(byId.statusCode).toBe(200);
    expect(byId.json()).toEqual(dispute);
    const byCustomer = await t.call('GET', `/v1/customers/${customerId}/disputes?query=Status:NeedsResponse`);
    expect(byCustomer.json()).toEqual([dispute]);
    expect(byCustomer.headers['x-count']).toBe('1');

    expect((await listInvoices(t, customerId))[0]).toMatchObject({ status: 'Posted', outstandingBalance: invoice.invoiceAmount });
    const after = await readOverview(t, customerId);
    expect(after.arBalance).toBe(invoice.invoiceAmount);
    // the fee is the merchant's: the customer owes only the invoice again
    expect(after.arBalance).toBe(plus(before.arBalance, invoice.invoiceAmount));
    expect(after.lifetimeValue).toBe(money(before.lifetimeValue).minus(invoice.invoiceAmount).toNumber());

    // the processor took the money back: nothing is left to refund
    expect((await t.call('GET', `/v1/payments/${payment.id}`)).json()).toMatchObject({
      refundableAmount: 0,
      unallocatedAmount: 0,
      disputedAmount: invoice.invoiceAmount,
      invoiceAllocations: [],
    });
    await expectBalancedLedger(customerId);
    const refund = await t.call('POST', '/v1/refunds', { originalPaymentId: payment.id, amount: 1 });
    expect(refund.statusCode).toBe(400);
    expect(errorsOf(refund)[0]).toMatchObject({ Key: 'amount', Code: 'value_invalid' });

    const audit = await t.app.ctx.db
      .selectFrom('auditLog')
      .selectAll()
      .where('entityType', '=', 'Dispute')
      .where('entityId', '=', dispute.id)
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]!.source).toBe('gateway events');
  });

  it('sends dispute.created and the merchant e-mail once, even when the event is ingested twice', async () => {
    const { payment } = await paidWithCard();
    const from = receiver.received.length;
    const gateway = t.app.ctx.payments.gateway;
    const signal = new AbortController().signal;
    const due = (await gateway.dueEvents(100, signal)).filter((e) => e.kind === 'disputeOpened');
    expect(due.length).toBeGreaterThan(0);
    // two instances fetched the same events and ingest them at once, before either acknowledged them
    const first = await Promise.all(due.flatMap((event) => [ingestGatewayEvent(t.app.ctx, event), ingestGatewayEvent(t.app.ctx, event)]));
    expect(first.filter((r) => r === 'recorded')).toHaveLength(due.length);
    expect(first.filter((r) => r === 'already')).toHaveLength(due.length);
    const second = await Promise.all(due.map((event) => ingestGatewayEvent(t.app.ctx, event)));
    expect(second.every((r) => r === 'already')).toBe(true);
    // and the worker fetches them once more (not acknowledged yet): nothing changes
    expect(await runWorker()).toBeGreaterThan(0);
    expect(await gateway.dueEvents(100, signal)).toEqual([]);

    const disputes = await disputesOf(payment.id);
    expect(disputes).toHaveLength(1);
    const dispute = disputes[0]!;
    const events = await disputeEvents(from, dispute.id);
    expect(events.map((e) => e.type)).toEqual(['dispute.created']);
    expect(events[0]!.data).toMatchObject({ id: dispute.id, status: 'NeedsResponse', paymentId: payment.id });

    const mails = await mailsAbout(payment.id, 1);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain(`POST /v1/disputes/${dispute.id}/evidence`);
    expect(mails[0]!.text).toContain('dispute fee of 15.00 USD');
    // no second one arrives later (the outbox polls every 20 ms)
    expect(await mailsAbout(payment.id, 2, 1_000)).toHaveLength(1);
  });

  it('an invoice it reopens past its due date puts the customer in PoorStanding, and winning takes it out', async () => {
    const account = await t.newAccount();
    const { customerId, invoice, payment } = await paidWithCard(DISPUTED_CARD, account);
    expect((await readCustomer(t, customerId, account)).customerAccountStatus).toBe('Good');
    // the processor's dispute arrives ten days later on the account's clock
    const later = new Date(new Date(invoice.dueTimestamp).getTime() + 10 * DAY);
    const advanced = await t.call('POST', '/v1/testclock/advance', { to: later.toISOString() }, { as: account });
    expect(advanced.statusCode, advanced.body).toBe(200);
    await runWorker();
    const [dispute] = (await t.call('GET', `/v1/disputes?query=PaymentId:${payment.id}`, undefined, { as: account })).json();
    expect(dispute).toMatchObject({ status: 'NeedsResponse', createdTimestamp: later.toISOString() });
    expect((await readCustomer(t, customerId, account)).customerAccountStatus).toBe('PoorStanding');
    expect((await readOverview(t, customerId, account)).arBalance).toBe(invoice.invoiceAmount);

    const won = await t.call(
      'POST',
      `/v1/disputes/${dispute.id}/evidence`,
      { text: 'winning_evidence' },
      { as: account, headers: { 'idempotency-key': 'won' } },
    );
    expect(won.statusCode, won.body).toBe(200);
    await runWorker();
    expect((await readCustomer(t, customerId, account)).customerAccountStatus).toBe('Good');
    expect((await readOverview(t, customerId, account)).arBalance).toBe(0);
  });

  it('a card that is not 0259 is never disputed', async () => {
    const { payment } = await paidWithCard('4242424242424242');
    await runWorker();
    expect(await disputesOf(payment.id)).toEqual([]);
  });
});

describe('answering a dispute with evidence', () => {
  it('winning_evidence: the dispute is won, the invoice paid again and AR back', async () => {
    const { customerId, invoice, payment } = await paidWithCard();
    const dispute = await disputeOf(payment.id);
    await disputeEvents(0, dispute.id); // dispute.created delivered before
    const from = receiver.received.length;

    const res = await evidence(dispute.id, 'Signed delivery receipt attached. winning_evidence');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id: dispute.id, status: 'UnderReview' });
    expect(res.json().evidenceSubmittedTimestamp).not.toBeNull();

    await runWorker();
    const won = (await t.call('GET', `/v1/disputes/${dispute.id}`)).json();
    expect(won).toMatchObject({ status: 'Won', fee: 15 });
    expect(won.closedTimestamp).not.toBeNull();
    expect((await listInvoices(t, customerId))[0]).toMatchObject({ id: invoice.id, status: 'Paid', outstandingBalance: 0 });
    expect((await readOverview(t, customerId)).arBalance).toBe(0);
    const paymentNow = (await t.call('GET', `/v1/payments/${payment.id}`)).json();
    expect(paymentNow).toMatchObject({
      unallocatedAmount: 0,
      refundableAmount: invoice.invoiceAmount,
      disputedAmount: 0,
      invoiceAllocations: [{ invoiceId: invoice.id, amount: invoice.invoiceAmount }],
    });

    await expectBalancedLedger(customerId);
    // ingested again (another instance): nothing moves twice
    await runWorker();
    expect((await readOverview(t, customerId)).arBalance).toBe(0);
    const events = await disputeEvents(from, dispute.id);
    expect(events.map((e) => e.type)).toEqual(['dispute.closed']);
    expect(events[0]!.data).toMatchObject({ status: 'Won' });
  });

  it('losing_evidence: the dispute is lost and the money stays taken back', async () => {
    const { customerId, invoice, payment } = await paidWithCard();
    const dispute = await disputeOf(payment.id);
    expect((await evidence(dispute.id, 'losing_evidence')).statusCode).toBe(200);
    await runWorker();
    expect((await t.call('GET', `/v1/disputes/${dispute.id}`)).json()).toMatchObject({ status: 'Lost' });
    expect((await listInvoices(t, customerId))[0]).toMatchObject({ status: 'Posted', outstandingBalance: invoice.invoiceAmount });
    expect((await readOverview(t, customerId)).arBalance).toBe(invoice.invoiceAmount);
  });

  it('other evidence leaves it under review, still open to more evidence', async () => {
    const { payment } = await paidWithCard();
    const dispute = await disputeOf(payment.id);
    expect((await evidence(dispute.id, 'Our terms of service.')).json()).toMatchObject({ status: 'UnderReview' });
    await runWorker();
    expect((await t.call('GET', `/v1/disputes/${dispute.id}`)).json()).toMatchObject({ status: 'UnderReview', closedTimestamp: null });
    expect((await evidence(dispute.id, 'winning_evidence')).statusCode).toBe(200);
    await runWorker();
    expect((await t.call('GET', `/v1/disputes/${dispute.id}`)).json()).toMatchObject({ status: 'Won' });
  });

  it('refuses: an unknown dispute (404), a closed one (409), a bad body (400), another account’s (404)', async () => {
    const { payment } = await paidWithCard();
    const dispute = await disputeOf(payment.id);

    const unknown = await evidence(2_000_000_000, 'winning_evidence');
    expect(unknown.statusCode).toBe(404);
    expect(errorsOf(unknown)[0]).toMatchObject({ Code: 'not_found' });
    const unknownRead = await t.call('GET', '/v1/disputes/2000000000');
    expect(unknownRead.statusCode).toBe(404);
    expect(errorsOf(unknownRead)[0]).toMatchObject({ Code: 'not_found' });

    for (const body of [{}, { text: '' }, { text: 42 }]) {
      const bad = await t.call('POST', `/v1/disputes/${dispute.id}/evidence`, body, {
        headers: { 'idempotency-key': `bad-${JSON.stringify(body)}` },
      });
      expect(bad.statusCode, JSON.stringify(body)).toBe(400);
      expect(errorsOf(bad)[0]).toMatchObject({ Key: 'text' });
    }
    const badId = await t.call('GET', '/v1/disputes/abc');
    expect(badId.statusCode).toBe(400);
    expect(errorsOf(badId)[0]).toMatchObject({ Key: 'disputeId' });

    const other = await t.newAccount();
    const stranger = await t.call('GET', `/v1/disputes/${dispute.id}`, undefined, { as: other });
    expect(stranger.statusCode).toBe(404);
    expect((await t.call('GET', '/v1/disputes', undefined, { as: other })).json()).toEqual([]);

    expect((await evidence(dispute.id, 'losing_evidence')).statusCode).toBe(200);
    await runWorker();
    const closed = await evidence(dispute.id, 'winning_evidence after all');
    expect(closed.statusCode).toBe(409);
    expect(errorsOf(closed)[0]).toMatchObject({ Key: 'disputeId', Code: 'dispute_closed' });
    expect((await t.call('GET', `/v1/disputes/${dispute.id}`)).json()).toMatchObject({ status: 'Lost' });
  });
});

describe('the gateway events task on several instances', () => {
  it('two instances running rounds at once record each dispute once', async () => {
    const another = await t.buildAnotherApp();
    const payments = [await paidWithCard(), await paidWithCard()];
    const rounds = await Promise.all([ingestDueGatewayEvents(t.app.ctx, t.app.log), ingestDueGatewayEvents(another.ctx, another.log)]);
    expect(rounds[0] + rounds[1]).toBeGreaterThanOrEqual(2);
    for (const { payment, customerId, invoice } of payments) {
      expect(await disputesOf(payment.id)).toHaveLength(1);
      expect((await readOverview(t, customerId)).arBalance).toBe(invoice.invoiceAmount);
    }
    expect(await t.app.ctx.payments.gateway.dueEvents(100, new AbortController().signal)).toEqual([]);
  });

  it('acknowledges an event about a charge Renew never recorded, and records nothing', async () => {
    const gateway = t.app.ctx.payments.gateway;
    const signal = new AbortController().signal;
    // charged at the processor by something else than Renew (no payment names it)
    const charged = await gateway.charge(
      {
        token: 'sbx_dispute_0123456789abcdef',
        amount: money(12),
        currency: 'USD',
        idempotencyKey: gatewayIdempotencyKey(0, 'elsewhere'),
        offSession: true,
      },
      signal,
    );
    expect(charged.status).toBe('succeeded');
    const before = (await t.call('GET', '/v1/disputes')).headers['x-count'];
    expect(await runWorker()).toBe(1);
    expect((await t.call('GET', '/v1/disputes')).headers['x-count']).toBe(before);
    expect(await gateway.dueEvents(100, signal)).toEqual([]);
  });
});

describe('the console', () => {
  it('shows a payment’s dispute, its audit entries, and takes evidence through its proxy', async () => {
    const { customerId, payment } = await paidWithCard();
    const dispute = await disputeOf(payment.id);
    const owner = await firstOwner(t, 'owner@disputes.example');
    const listed = await consoleCall(t, owner, 'GET', `/console/api/v1/customers/${customerId}/disputes`);
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json()).toMatchObject([{ id: dispute.id, paymentId: payment.id, status: 'NeedsResponse' }]);
    const audit = await consoleCall(t, owner, 'GET', `/console/api/customers/${customerId}/audit?limit=100`);
    expect(audit.statusCode, audit.body).toBe(200);
    expect(audit.json().entries).toContainEqual(
      expect.objectContaining({ entityType: 'Dispute', entityId: dispute.id, source: 'gateway events' }),
    );
    const answered = await consoleCall(
      t,
      owner,
      'POST',
      `/console/api/v1/disputes/${dispute.id}/evidence`,
      { text: 'winning_evidence' },
      {
        headers: { 'idempotency-key': `console-${dispute.id}` },
      },
    );
    expect(answered.statusCode, answered.body).toBe(200);
    expect(answered.json()).toMatchObject({ status: 'UnderReview' });
  });
});
