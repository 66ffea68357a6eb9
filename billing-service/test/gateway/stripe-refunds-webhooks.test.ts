import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StripeGateway } from '../../src/gateway/stripe/stripe-gateway.js';
import { StripeWebhookSignatureError } from '../../src/gateway/stripe/stripe-webhooks.js';
import { money } from '../../src/money/money.js';
import { signatureHeader, type StripeStandIn } from '../stand-ins/stripe/index.js';
import { startReceiver } from '../stand-ins/stripe-sdk.js';
import { chargeOf, savedToken, signal, stripeFixture, succeeded } from './stripe-fixture.js';

/** Refunds (and finding one whose answer was lost), webhooks verified and read as disputes, dispute evidence. */
describe('Stripe adapter: refunds, webhooks, disputes', () => {
  let standIn: StripeStandIn;
  let gateway: StripeGateway;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const refundOf = (transactionId: string, amount: string, idempotencyKey = `refund-${randomUUID()}`) => ({
    transactionId,
    amount: money(amount),
    currency: 'EUR',
    idempotencyKey,
  });

  beforeAll(async () => {
    ({ standIn, gateway } = await stripeFixture({ disputeDelayMs: 20 }));
    receiver = await startReceiver();
    standIn.setWebhookEndpoint(receiver.url);
  });
  afterAll(async () => {
    await standIn.close();
    await receiver.close();
  });

  async function paid(number: string, amount: string): Promise<string> {
    const token = await savedToken(standIn, gateway, number);
    return succeeded(await gateway.charge(chargeOf(token, amount, { offSession: true }), signal)).transactionId;
  }

  it('refunds a part, then the rest, in minor units; more than is left is refund_failed', async () => {
    const transactionId = await paid('4242424242424242', '20.00');
    const part = refundOf(transactionId, '5.25');
    const first = succeeded(await gateway.refund(part, signal));
    expect(first.refundId).toMatch(/^re_/);
    const sent = standIn.requests.filter((r) => r.path === '/v1/refunds' && r.method === 'POST').at(-1);
    expect(sent?.body).toMatchObject({
      payment_intent: transactionId,
      amount: '525',
      metadata: { renew_idempotency_key: part.idempotencyKey },
    });
    expect(sent?.idempotencyKey).toBe(part.idempotencyKey);
    succeeded(await gateway.refund(refundOf(transactionId, '14.75'), signal));
    expect(await gateway.refund(refundOf(transactionId, '0.01'), signal)).toMatchObject({ status: 'declined', code: 'refund_failed' });
  });

  it('a refund retried under one key pays back once; findRefund finds it by its key after a lost answer', async () => {
    const transactionId = await paid('4242424242424242', '40.00');
    const request = refundOf(transactionId, '10.00');
    const first = succeeded(await gateway.refund(request, signal));
    expect(succeeded(await gateway.refund(request, signal)).refundId).toBe(first.refundId);
    succeeded(await gateway.refund(refundOf(transactionId, '1.00'), signal));
    expect(await gateway.findRefund(request.idempotencyKey, signal, transactionId)).toEqual({
      status: 'succeeded',
      value: { refundId: first.refundId },
    });
    expect(await gateway.findRefund('refund-never-sent', signal, transactionId)).toBeNull();
    await expect(gateway.findRefund(request.idempotencyKey, signal)).rejects.toThrow(/PaymentIntent/);
    const refunds = standIn.requests.filter(
      (r) => r.method === 'POST' && r.path === '/v1/refunds' && r.body.payment_intent === transactionId,
    );
    expect(refunds.map((r) => r.replayed)).toEqual([false, true, false]);
  });

  it('findRefund pages through a payment with many refunds', async () => {
    const transactionId = await paid('4242424242424242', '200.00');
    const keys = Array.from({ length: 105 }, () => `refund-${randomUUID()}`);
    for (const key of keys) succeeded(await gateway.refund(refundOf(transactionId, '1.00', key), signal));
    const oldest = await gateway.findRefund(keys[0] ?? '', signal, transactionId);
    expect(oldest?.status).toBe('succeeded');
  });

  it('reads a signed dispute webhook as disputeOpened, then disputeClosed (won), naming the PaymentIntent', async () => {
    const transactionId = await paid('4000000000000259', '25.00');
    const created = await standIn.waitForEvent('charge.dispute.created', (e) => JSON.stringify(e.data.object).includes(transactionId));
    await standIn.webhooksDelivered();
    const delivery = receiver.received.find((r) => r.body.includes(created.id));
    if (!delivery) throw new Error('the dispute event was not delivered');
    const [opened] = gateway.parseWebhook(Buffer.from(delivery.body), String(delivery.headers['stripe-signature']));
    if (opened?.kind !== 'disputeOpened') throw new Error(`expected disputeOpened, got ${JSON.stringify(opened)}`);
    expect(opened).toMatchObject({ eventId: created.id, transactionId, currency: 'EUR', reason: 'fraudulent', fee: null });
    expect(opened.amount.equals(money('25.00'))).toBe(true);
    expect(opened.evidenceDueAt?.getTime()).toBeGreaterThan(Date.now());
    standIn.closeDispute(opened.disputeId, 'won');
    const closed = await standIn.waitForEvent('charge.dispute.closed', (e) => e.data.object.id === opened.disputeId);
    const body = JSON.stringify(closed, null, 2);
    expect(gateway.parseWebhook(body, signatureHeader(body, standIn.webhookSecret))).toEqual([
      { kind: 'disputeClosed', eventId: closed.id, disputeId: opened.disputeId, transactionId, outcome: 'won' },
    ]);
  });

  it('refuses a forged or stale signature, and reads other event types as nothing', async () => {
    await paid('4242424242424242', '3.00');
    const event = await standIn.waitForEvent('payment_intent.succeeded');
    const body = JSON.stringify(event, null, 2);
    expect(gateway.parseWebhook(body, signatureHeader(body, standIn.webhookSecret))).toEqual([]);
    expect(() => gateway.parseWebhook(body, signatureHeader(body, 'whsec_someone_else'))).toThrow(StripeWebhookSignatureError);
    const stale = signatureHeader(body, standIn.webhookSecret, Math.floor(Date.now() / 1000) - 3600);
    expect(() => gateway.parseWebhook(body, stale)).toThrow(StripeWebhookSignatureError);
    expect(() => gateway.parseWebhook(`${body} `, signatureHeader(body, standIn.webhookSecret))).toThrow(StripeWebhookSignatureError);
  });

  it('submits dispute evidence once; a dispute under review takes no more (evidence_refused)', async () => {
    const transactionId = await paid('4000000000000259', '11.00');
    const created = await standIn.waitForEvent('charge.dispute.created', (e) => JSON.stringify(e.data.object).includes(transactionId));
    const disputeId = created.data.object.id;
    const request = { disputeId, text: 'The customer used the service all month.', idempotencyKey: `evidence-${randomUUID()}` };
    expect(await gateway.submitDisputeEvidence(request, signal)).toEqual({ status: 'succeeded', value: { disputeId } });
    const sent = standIn.requests.filter((r) => r.path === `/v1/disputes/${disputeId}`).at(-1);
    expect(sent?.body).toMatchObject({ evidence: { uncategorized_text: request.text }, submit: 'true' });
    const again = await gateway.submitDisputeEvidence({ ...request, idempotencyKey: `evidence-${randomUUID()}` }, signal);
    expect(again).toMatchObject({ status: 'declined', code: 'evidence_refused' });
  });

  it('asks Stripe for no events (Stripe pushes them) and sent an Idempotency-Key on every POST it made', async () => {
    expect(await gateway.dueEvents(10, signal)).toEqual([]);
    await gateway.acknowledgeEvents(['evt_1'], signal);
    const posts = standIn.requests.filter((r) => r.method === 'POST');
    expect(posts.length).toBeGreaterThan(20);
    expect(posts.filter((r) => !r.idempotencyKey)).toEqual([]);
    // None is the SDK's own random key (stripe-node-retry-…): each one is the caller's, so a retry of the call replays it.
    expect(posts.filter((r) => r.idempotencyKey?.startsWith('stripe-node-retry-'))).toEqual([]);
  });
});
