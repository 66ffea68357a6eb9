import { beforeAll, describe, expect, it } from 'vitest';
import { listInvoices, readOverview } from '../helpers/api-fixtures.js';
import { errorsOf, type TestApp } from '../helpers/test-app.js';
import {
  disputeEvents,
  disputeOf,
  evidence,
  expectBalancedLedger,
  paidWithCard,
  receivedCount,
  runWorker,
  useDisputesApp,
} from './dispute-fixtures.js';

/** Disputes (issue 37): the merchant's evidence, decided by the sandbox as Stripe's test evidence is; the refusals. */

const app = useDisputesApp();
let t: TestApp;
beforeAll(() => {
  t = app();
});

describe('answering a dispute with evidence', () => {
  it('winning_evidence: the dispute is won, the invoice paid again and AR back', async () => {
    const { customerId, invoice, payment } = await paidWithCard();
    const dispute = await disputeOf(payment.id);
    await disputeEvents(0, dispute.id); // dispute.created delivered before
    const from = receivedCount();

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
