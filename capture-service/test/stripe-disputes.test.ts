import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { customerWithInvoice } from '../../billing-service/test/helpers/api-fixtures.js';
import { signatureHeader, type StripeStandIn } from '../../billing-service/test/stand-ins/stripe/index.js';
import { errorsOf, freshIp, type CaptureTest } from './helpers/capture-test.js';
import { startStripeCaptureTest } from './helpers/stripe-capture-test.js';

/**
 * Stripe's disputes (issue 37): the stand-in disputes a 0259 charge a moment after it succeeds and posts the signed
 * `charge.dispute.created` to the capture host's webhook endpoint (a real port), which verifies it and ingests it:
 * the invoice reopens; evidence goes to Stripe; the network's ruling (`charge.dispute.closed`, won) restores it.
 */
let standIn: StripeStandIn;
let t: CaptureTest;
let app: FastifyInstance;
let endpoint: string;

let close: () => Promise<void>;

beforeAll(async () => {
  // Disputed a moment after the charge (Stripe takes days): long enough for Renew to have recorded the payment.
  ({ standIn, t, app, close } = await startStripeCaptureTest({ standIn: { disputeDelayMs: 1000 } }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('the capture host is not listening on a port');
  endpoint = `http://127.0.0.1:${address.port}/api/gateway/stripe/webhooks`;
  standIn.setWebhookEndpoint(endpoint);
});
afterAll(() => close?.());

async function api(method: 'GET' | 'POST', url: string, body?: unknown) {
  const res = await t.billing.call(method, url, body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** The customer's disputes, once there are `count` in `status` (or what there is after 10 s: the caller's check then fails). */
async function disputesOf(customerId: number, status: string, count = 1) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = ((await api('GET', `/v1/customers/${customerId}/disputes`)) as Array<{ status: string }>).filter(
      (d) => d.status === status,
    );
    if (found.length >= count || Date.now() > deadline) return found as Array<Record<string, any>>;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("Stripe's disputes at the capture host", () => {
  it('a paid invoice whose 0259 charge is disputed reopens; a duplicate delivery records nothing more; won, it is paid again', async () => {
    const { customerId, invoiceId, total } = await customerWithInvoice(t.billing);
    const captureToken = await t.captureToken(customerId);
    const saved = await t.post(t.params(customerId, { cardNumber: '4000000000000259', captureToken }), { app });
    expect(saved.statusCode, saved.body).toBe(200);
    const paid = await api('POST', '/v1/payments', {
      customerId,
      amount: total,
      paymentMethod: 'CreditCard',
      useDefaultPaymentMethod: true,
    });
    expect((await api('GET', `/v1/Invoices/${invoiceId}`)).outstandingBalance).toBe(0);

    const [dispute] = await disputesOf(customerId, 'NeedsResponse');
    expect(dispute).toMatchObject({ paymentId: paid.paymentActivityId, amount: total, reason: 'fraudulent' });
    expect((await api('GET', `/v1/Invoices/${invoiceId}`)).outstandingBalance).toBe(total);

    // Stripe delivers at least once: the same event again changes nothing.
    const created = standIn.events().find((e) => e.type === 'charge.dispute.created' && e.data.object.id === dispute?.gatewayDisputeId);
    expect(created).toBeDefined();
    const payload = JSON.stringify(created, null, 2);
    const again = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signatureHeader(payload, standIn.webhookSecret) },
      body: payload,
    });
    expect(again.status).toBe(200);
    expect(await api('GET', `/v1/customers/${customerId}/disputes`)).toHaveLength(1);

    // The merchant answers; the network rules for them.
    const evidence = await t.billing.call('POST', `/v1/disputes/${dispute?.id}/evidence`, {
      text: 'winning_evidence: signed delivery receipt',
    });
    expect(evidence.statusCode, evidence.body).toBe(200);
    standIn.closeDispute(String(dispute?.gatewayDisputeId), 'won');
    await disputesOf(customerId, 'Won');
    expect((await api('GET', `/v1/Invoices/${invoiceId}`)).outstandingBalance).toBe(0);
  });

  it('refuses a forged or unsigned delivery with 400 signature_invalid, and ingests nothing', async () => {
    const forged = JSON.stringify({ id: 'evt_forged', type: 'charge.dispute.created', data: { object: { id: 'dp_forged' } } });
    for (const signature of [signatureHeader(forged, 'whsec_not_the_secret'), undefined]) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/gateway/stripe/webhooks',
        remoteAddress: freshIp(),
        headers: { 'content-type': 'application/json', ...(signature ? { 'stripe-signature': signature } : {}) },
        payload: forged,
      });
      expect(res.statusCode).toBe(400);
      expect(errorsOf(res)).toEqual([expect.objectContaining({ Key: 'Stripe-Signature', Code: 'signature_invalid' })]);
    }
  });
});
