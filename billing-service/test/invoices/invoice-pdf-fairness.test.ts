import { once } from 'node:events';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PDF_LINES } from '../../src/invoices/pdf/invoice-pdf.js';
import { pdfRenderPool } from '../../src/invoices/pdf/pdf-render-pool.js';
import { activeCustomer, customerWithInvoice, newCustomer } from '../helpers/api-fixtures.js';
import { errorsOf, startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.js';

/** Issue 23: one tenant's invoice PDFs stall nobody else, are made once per version, and are bounded. */

let t: TestApp;
let other: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  other = await t.newAccount();
});
afterAll(async () => {
  await t?.close();
});

/** An invoice of `t.account` with `lines` lines: its first charge copied in SQL (making them through the API would take minutes). */
async function invoiceWithLines(lines: number): Promise<number> {
  const { invoiceId } = await customerWithInvoice(t);
  await sql`insert into invoice_charges (invoice_id, subscription_id, position, kind, product_code, name, description, quantity, unit_price, prorated_unit_price, amount, taxable_amount, start_service_date, end_service_date, discounts)
    select c.invoice_id, c.subscription_id, c.position + n, c.kind, c.product_code, c.name || ' #' || n, c.description, c.quantity, c.unit_price, c.prorated_unit_price, c.amount, c.taxable_amount, c.start_service_date, c.end_service_date, c.discounts
    from (select * from invoice_charges where invoice_id = ${invoiceId} order by position limit 1) c, generate_series(1000, 999 + ${lines} - (select count(*)::int from invoice_charges where invoice_id = ${invoiceId})) n`.execute(
    t.database.db,
  );
  const count = await sql<{ n: number }>`select count(*)::int as n from invoice_charges where invoice_id = ${invoiceId}`.execute(
    t.database.db,
  );
  expect(count.rows[0]!.n).toBe(lines);
  return invoiceId;
}

const pdf = (invoiceId: number, as?: TestAccount) => t.call('GET', `/v1/Invoices/pdf/${invoiceId}`, undefined, as ? { as } : {});

describe('invoice PDFs and other tenants', () => {
  it("another tenant is answered while a large PDF renders, and its own PDF does not wait behind the first tenant's backlog", async () => {
    const large = await invoiceWithLines(MAX_PDF_LINES);
    const theirCustomer = await newCustomer(t, { lastName: 'Elsewhere' }, other);
    const theirInvoice = (await activeCustomer(t, { account: other })).invoices[0]!.id;
    const done: string[] = [];
    const rendering = once(pdfRenderPool, 'rendering');
    // Three renders of the large invoice at once: the first tenant's backlog.
    const backlog = [1, 2, 3].map((i) =>
      pdf(large).then((res) => {
        done.push(`A${i}`);
        return res;
      }),
    );
    await rendering;
    const customer = await t.call('GET', `/v1/customers/${theirCustomer}`, undefined, { as: other });
    done.push('B customer');
    const health = await t.app.inject({ method: 'GET', url: '/healthz' });
    done.push('healthz');
    const theirPdf = await pdf(theirInvoice, other);
    done.push('B pdf');
    const answers = await Promise.all(backlog);

    expect(customer.statusCode).toBe(200);
    expect(health.statusCode).toBe(200);
    expect(theirPdf.statusCode, theirPdf.body.slice(0, 300)).toBe(200);
    for (const res of answers) {
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    }
    // B was answered while A's first PDF was still rendering, and B's PDF took its turn before A's backlog was through.
    expect(done.slice(0, 2)).toEqual(['B customer', 'healthz']);
    expect(done.slice(2).sort()).toEqual(['A1', 'A2', 'A3', 'B pdf']);
    expect(done.at(-1)).not.toBe('B pdf');
  });

  it('renders an invoice once while it is unchanged, and again once it changes', async () => {
    const { customerId, invoiceId } = await customerWithInvoice(t);
    let renders = 0;
    const count = () => renders++;
    pdfRenderPool.on('rendering', count);
    try {
      const first = await pdf(invoiceId);
      const again = await pdf(invoiceId);
      expect(first.statusCode).toBe(200);
      expect(again.rawPayload.equals(first.rawPayload)).toBe(true);
      expect(renders).toBe(1);
      expect((await t.call('POST', '/v1/payments', { customerId, amount: 1, paymentMethod: 'Cash' })).statusCode).toBe(200);
      const paid = await pdf(invoiceId);
      expect(paid.statusCode).toBe(200);
      expect(renders).toBe(2);
      expect(paid.rawPayload.equals(first.rawPayload)).toBe(false);
    } finally {
      pdfRenderPool.off('rendering', count);
    }
  });

  it(`refuses a PDF of more than ${MAX_PDF_LINES} lines with the error body, keyed on the invoice id`, async () => {
    const tooLong = await invoiceWithLines(MAX_PDF_LINES + 1);
    const res = await pdf(tooLong);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ HttpStatusCode: 409 });
    expect(errorsOf(res)).toEqual([
      { Key: 'invoiceId', Value: expect.stringContaining(`${MAX_PDF_LINES + 1} lines`), Code: 'state_conflict' },
    ]);
    // Still readable as JSON.
    expect((await t.call('GET', `/v1/Invoices/${tooLong}`)).statusCode).toBe(200);
  });
});
