import { beforeAll, describe, expect, it } from 'vitest';
import { ingestGatewayEvent } from '../../src/disputes/ingest.js';
import { ingestDueGatewayEvents } from '../../src/disputes/event-worker.js';
import { gatewayIdempotencyKey } from '../../src/gateway/payment-gateway.js';
import { money } from '../../src/money/money.js';
import { consoleCall, firstOwner } from '../console/console-helpers.js';
import { DAY, listInvoices, readCustomer, readOverview } from '../helpers/api-fixtures.js';
import { errorsOf, type TestApp } from '../helpers/test-app.js';
import {
  DISPUTED_CARD,
  disputeEvents,
  disputeOf,
  disputesOf,
  expectBalancedLedger,
  mailsAbout,
  paidWithCard,
  receivedCount,
  runWorker,
  useDisputesApp,
} from './dispute-fixtures.js';

/** Disputes (issue 37): a 0259 card's payment disputed at the sandbox, ingested by the gateway events task, once. */

const app = useDisputesApp();
let t: TestApp;
beforeAll(() => {
  t = app();
});

const plus = (a: number, b: number) => money(a).plus(b).toNumber();

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
    const from = receivedCount();
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
