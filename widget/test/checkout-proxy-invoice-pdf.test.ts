import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_HEADER } from '../src/checkout-contract.js';
import { completedCheckout as completeCheckout, errorsOf, startCheckoutHarness, type CheckoutHarness } from './helpers/checkout-harness.js';

let h: CheckoutHarness;
beforeAll(async () => {
  h = await startCheckoutHarness();
});
afterAll(async () => h?.close());

const completedCheckout = () => completeCheckout(h);

/** Over a real port, through the Fastify adapter, as a browser would ask. */
const downloadPdf = (customerId: number, invoiceId: number, session?: string) =>
  fetch(`${h.proxyUrl}/customers/${customerId}/invoices/${invoiceId}/pdf`, { headers: session ? { [SESSION_HEADER]: session } : {} });

describe("the checkout's invoice PDF", () => {
  it("answers the session's own invoice as a PDF attachment, byte for byte the billing API's", async () => {
    const { customerId, session, invoice } = await completedCheckout();
    const res = await downloadPdf(customerId, invoice.id, session);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="invoice-${invoice.number}.pdf"`);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const fromBillingApi = await h.billing.call('GET', `/v1/Invoices/pdf/${invoice.id}`);
    expect(bytes.equals(fromBillingApi.rawPayload)).toBe(true);
  });

  it("answers 404 for another customer's invoice asked with this session, as for an invoice that does not exist", async () => {
    const mine = await completedCheckout();
    const theirs = await completedCheckout();
    for (const invoiceId of [theirs.invoice.id, 2 ** 31 - 1]) {
      const res = await downloadPdf(mine.customerId, invoiceId, mine.session);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({
        ErrorId: expect.any(Number),
        HttpStatusCode: 404,
        Errors: [{ Key: 'Api Error', Value: `invoice with id ${invoiceId} not found`, Code: 'not_found' }],
      });
    }
  });

  it('answers 403 without a session, or with the session of another customer', async () => {
    const mine = await completedCheckout();
    const theirs = await completedCheckout();
    for (const session of [undefined, theirs.session]) {
      const res = await downloadPdf(mine.customerId, mine.invoice.id, session);
      expect(res.status).toBe(403);
      const body = await res.json();
      expect(body.HttpStatusCode).toBe(403);
      expect(body.Errors[0].Value).toMatch(/checkout session/);
    }
    // Their own session on their own customer id, naming my invoice: not theirs, so not found.
    expect((await downloadPdf(theirs.customerId, mine.invoice.id, theirs.session)).status).toBe(404);
  });

  it('refuses an invoice id that is not a positive whole number on the field', async () => {
    const { customerId, session } = await completedCheckout();
    const res = await h.proxy('GET', `/customers/${customerId}/invoices/abc/pdf`, undefined, session);
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)[0]!.Key).toBe('invoiceId');
  });
});
