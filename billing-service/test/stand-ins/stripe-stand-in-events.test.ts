import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StripeStandIn, startStripeStandIn } from './stripe/index.js';
import { customerWithCard, failureOf, pay, savedCard, sdkFor, startReceiver } from './stripe-sdk.js';

/** Refunds, disputes and the signed webhook events the adapter verifies with the SDK's constructEvent. */
describe('the Stripe stand-in: refunds, disputes and webhooks', () => {
  let standIn: StripeStandIn;
  let stripe: Stripe;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    standIn = await startStripeStandIn({ disputeDelayMs: 20 });
    stripe = sdkFor(standIn);
    receiver = await startReceiver();
    standIn.setWebhookEndpoint(receiver.url);
  });
  afterAll(async () => {
    await standIn.close();
    await receiver.close();
  });

  it('refunds in parts, refuses more than is left, and reports each refund with charge.refunded', async () => {
    const card = await customerWithCard(stripe, '4242424242424242');
    const paid = await pay(stripe, card, 5000, 'eur');
    const part = await stripe.refunds.create({ payment_intent: paid.id, amount: 2000 });
    expect([part.status, part.amount, part.charge, part.payment_intent]).toEqual(['succeeded', 2000, paid.latest_charge, paid.id]);
    expect((await stripe.refunds.retrieve(part.id)).amount).toBe(2000);
    const tooMuch = await failureOf(stripe.refunds.create({ payment_intent: paid.id, amount: 3001 }));
    expect([tooMuch.code, tooMuch.message]).toEqual([
      'amount_too_large',
      'Refund amount (30.01 eur) is greater than unrefunded amount on charge (30.00 eur)',
    ]);
    const rest = await stripe.refunds.create({ payment_intent: paid.id });
    expect(rest.amount).toBe(3000);
    const again = await failureOf(stripe.refunds.create({ payment_intent: paid.id }));
    expect(again.code).toBe('charge_already_refunded');
    const refunded = standIn.events().filter((event) => event.type === 'charge.refunded' && event.data.object.id === paid.latest_charge);
    expect(
      refunded.map((event) => [(event.data.object as Stripe.Charge).amount_refunded, (event.data.object as Stripe.Charge).refunded]),
    ).toEqual([
      [2000, false],
      [5000, true],
    ]);
  });

  it('opens a fraudulent dispute shortly after a 0259 payment, and closes it when told', async () => {
    const card = await savedCard(standIn, stripe, '4000000000000259');
    const paid = await pay(stripe, card, 4200, 'usd', { off_session: true });
    expect(paid.status).toBe('succeeded');
    const created = await standIn.waitForEvent(
      'charge.dispute.created',
      (event) => (event.data.object as Stripe.Dispute).charge === paid.latest_charge,
    );
    const dispute = created.data.object as Stripe.Dispute;
    expect([dispute.amount, dispute.currency, dispute.reason, dispute.status, dispute.payment_intent]).toEqual([
      4200,
      'usd',
      'fraudulent',
      'needs_response',
      paid.id,
    ]);
    expect(dispute.evidence_details.due_by).toBeGreaterThan(created.created);
    expect((await stripe.charges.retrieve(String(paid.latest_charge))).disputed).toBe(true);
    const refund = await failureOf(stripe.refunds.create({ payment_intent: paid.id }));
    expect(refund.code).toBe('charge_disputed');

    standIn.closeDispute(dispute.id, 'won');
    const closed = await standIn.waitForEvent('charge.dispute.closed', (event) => event.data.object.id === dispute.id);
    expect((closed.data.object as Stripe.Dispute).status).toBe('won');
    expect((await stripe.disputes.retrieve(dispute.id)).status).toBe('won');
    expect(() => standIn.closeDispute(dispute.id, 'lost')).toThrow(/already closed/);
  });

  it('signs every event so that constructEvent accepts it, and a tampered body or another secret is rejected', async () => {
    const card = await customerWithCard(stripe, '4000002760003184');
    const intent = await pay(stripe, card, 990, 'eur', { return_url: 'https://capture.example/back' });
    standIn.completeChallenge(intent.id, 'succeed');
    await standIn.webhooksDelivered();
    const events = receiver.received.map(({ body, headers }) =>
      stripe.webhooks.constructEvent(body, String(headers['stripe-signature']), standIn.webhookSecret),
    );
    const mine = events.filter((event) => (event.data.object as { id: string }).id === intent.id).map((event) => event.type);
    expect(mine).toEqual(['payment_intent.requires_action', 'payment_intent.succeeded']);
    expect(events.every((event) => event.api_version === Stripe.API_VERSION && /^evt_/.test(event.id))).toBe(true);
    expect(standIn.deliveries.every((delivery) => delivery.status === 200)).toBe(true);

    const last = receiver.received.at(-1);
    if (!last) throw new Error('no webhook received');
    const signature = String(last.headers['stripe-signature']);
    const tampered = last.body.replace('"amount": 990', '"amount": 1');
    expect(tampered).not.toBe(last.body);
    expect(() => stripe.webhooks.constructEvent(tampered, signature, standIn.webhookSecret)).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
    expect(() => stripe.webhooks.constructEvent(last.body, signature, 'whsec_other')).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
  });

  it('reports setup, decline and refund events with the request and idempotency key that caused them', async () => {
    const card = await customerWithCard(stripe, '4000000000009995');
    const failed = await failureOf(
      stripe.setupIntents.create(
        { customer: card.customer, payment_method: card.paymentMethod, confirm: true },
        { idempotencyKey: 'setup-9995' },
      ),
    );
    const event = await standIn.waitForEvent(
      'setup_intent.setup_failed',
      (candidate) => candidate.data.object.id === failed.setup_intent?.id,
    );
    expect(event.request.idempotency_key).toBe('setup-9995');
    expect(event.request.id).toMatch(/^req_/);
    const saved = await savedCard(standIn, stripe, '4242424242424242');
    const succeeded = await standIn.waitForEvent(
      'setup_intent.succeeded',
      (candidate) => (candidate.data.object as Stripe.SetupIntent).payment_method === saved.paymentMethod,
    );
    expect((succeeded.data.object as Stripe.SetupIntent).usage).toBe('off_session');
  });
});

describe('the Stripe stand-in run on its own', () => {
  it('listens on the port of STRIPE_STAND_IN_PORT and prints its url and keys', async () => {
    const script = new URL('./stripe/start-stripe-stand-in.ts', import.meta.url).pathname;
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      env: { ...process.env, STRIPE_STAND_IN_PORT: '0' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const firstLine = await createInterface({ input: child.stdout })[Symbol.asyncIterator]().next();
      const started = JSON.parse(String(firstLine.value)) as { url: string; secretKey: string; webhookSecret: string };
      expect(started.secretKey).toMatch(/^sk_test_/);
      expect(started.webhookSecret).toMatch(/^whsec_/);
      const url = new URL(started.url);
      const client = new Stripe(started.secretKey, { host: url.hostname, port: url.port, protocol: 'http' });
      expect((await client.customers.create({ email: 'cli@example.com' })).email).toBe('cli@example.com');
    } finally {
      child.kill('SIGTERM');
    }
  });
});
