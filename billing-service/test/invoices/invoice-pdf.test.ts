import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatAmount, formatDate, formatMoney, formatRate } from '../../src/invoices/pdf/pdf-formats.js';
import { ACTIVATION_FLAGS, activate, newCustomer, newSubscription, readSubscription } from '../helpers/api-fixtures.js';
import { startSmtpStandIn } from '../helpers/smtp-stand-in.js';
import { errorsOf, startTestApp, testCatalog, type TestApp } from '../helpers/test-app.js';

/** Invoice PDFs (issue 16): GET /v1/Invoices/pdf/{id} and the PDF the InvoicePost e-mail carries. */

let t: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpStandIn>>;
beforeAll(async () => {
  smtp = await startSmtpStandIn();
  const demo = testCatalog();
  t = await startTestApp({
    catalog: testCatalog({
      seller: undefined, // the account's own address, as before the catalogue's seller
      account: {
        ...demo.account,
        name: 'Inkwell Café GmbH',
        email: 'billing@inkwell.test',
        address: { line1: 'Große Straße 5', city: 'Berlin', postalZip: '10115', country: 'Germany' },
      },
    }),
    app: { email: { smtpUrl: smtp.url, from: 'billing@inkwell.test', pollMs: 20 } },
  });
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
});

/** The PDF's text, pages joined, whitespace runs as one space (text items of one line may be split at font changes). */
async function pdfText(pdf: Buffer): Promise<{ pages: number; text: string }> {
  const document = await getDocumentProxy(new Uint8Array(pdf));
  const { totalPages, text } = await extractText(document, { mergePages: true });
  return { pages: totalPages, text: text.replace(/\s+/g, ' ') };
}

async function downloadPdf(invoiceId: number) {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v1/Invoices/pdf/${invoiceId}`,
    headers: { authorization: `Basic ${t.account.apiKey}` },
  });
  expect(res.statusCode, res.body.slice(0, 500)).toBe(200);
  expect(res.headers['content-type']).toBe('application/pdf');
  expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
  return res;
}

/** A customer with é, ß and 中文 in its names and an Ontario billing address, activated on BASIC monthly with a coupon. */
async function internationalCustomer() {
  const customerId = await newCustomer(t, {
    firstName: 'Zoë',
    lastName: 'Weiß',
    companyName: '北京科技有限公司',
    primaryEmail: `zoe.${Date.now()}@example.com`,
    billing: { line1: '1 Rue de l’Église', city: 'Toronto', postalZip: 'M5V 2T6', country: 'CA', state: 'ON' },
  });
  const subscription = await readSubscription(t, await newSubscription(t, customerId));
  expect((await t.call('PUT', '/v1/subscriptions', { ...subscription, coupons: [{ code: 'WELCOME10' }] })).statusCode).toBe(200);
  const res = await activate(t, customerId, ACTIVATION_FLAGS, '?view=sideeffects');
  expect(res.statusCode, res.body).toBe(200);
  return { customerId, invoice: res.json().invoices[0] as Record<string, any> };
}

describe('the invoice PDF', () => {
  it('shows the account, the customer, the dates, every line with its discount and taxes, and the totals', async () => {
    const { invoice } = await internationalCustomer();
    const res = await downloadPdf(invoice.id);
    expect(res.headers['content-disposition']).toBe(`inline; filename="invoice-${invoice.invoiceNumber}.pdf"`);
    const { pages, text } = await pdfText(res.rawPayload);
    expect(pages).toBe(1);
    for (const expected of [
      'Inkwell Café GmbH',
      'Große Straße 5',
      'Berlin 10115',
      'Germany',
      'Zoë Weiß',
      '北京科技有限公司',
      '1 Rue de l’Église',
      'Toronto, Ontario M5V 2T6',
      'Canada',
      `No. ${invoice.invoiceNumber}`,
      formatDate(invoice.dueTimestamp),
      'Due on receipt',
      'USD',
      'Discount: 10% off the first period',
      'GST 5%',
      'HST 8%',
      formatMoney(String(invoice.invoiceAmount), 'USD', 2),
    ]) {
      expect(text, expected).toContain(expected);
    }
    for (const charge of invoice.charges) {
      expect(text).toContain(charge.name);
      expect(text).toContain(`Service period ${formatDate(charge.startServiceDate)} – ${formatDate(charge.endServiceDate)}`);
      expect(text).toContain(formatAmount(String(charge.amount), 2));
    }
    for (const tax of invoice.taxes) expect(text).toContain(formatAmount(String(tax.amount), 2));
    expect(text).toContain(`Outstanding ${formatMoney(String(invoice.invoiceAmount), 'USD', 2)}`);
  });

  it('follows payments: paid and outstanding as the ledger says', async () => {
    const { customerId, invoice } = await internationalCustomer();
    const paid = await t.call('POST', '/v1/payments', { customerId, amount: 10, paymentMethod: 'Cash' });
    expect(paid.statusCode).toBe(200);
    const { text } = await pdfText((await downloadPdf(invoice.id)).rawPayload);
    expect(text).toContain('Paid $10.00');
    expect(text).toContain(`Outstanding ${formatMoney(String(invoice.invoiceAmount - 10), 'USD', 2)}`);
    expect(text).toContain('Partly paid');
  });

  it('paginates a 200-line invoice, repeating the table header and numbering the pages', async () => {
    const customerId = await newCustomer(t, { lastName: 'Many' });
    for (let i = 0; i < 100; i++) await newSubscription(t, customerId);
    const res = await activate(t, customerId, ACTIVATION_FLAGS, '?view=sideeffects');
    expect(res.statusCode, res.body).toBe(200);
    const invoice = res.json().invoices[0];
    expect(invoice.charges).toHaveLength(200);
    const { pages, text } = await pdfText((await downloadPdf(invoice.id)).rawPayload);
    expect(pages).toBeGreaterThan(3);
    expect(text.match(/Service period/g)).toHaveLength(200);
    expect(text.match(/Description Qty Unit price/g)).toHaveLength(pages);
    expect(text).toContain(`Invoice ${invoice.invoiceNumber} · page ${pages} of ${pages}`);
    expect(text).toContain(`Total ${formatMoney(String(invoice.invoiceAmount), 'USD', 2)}`);
  });

  it("is 404 for an unknown invoice and for another account's", async () => {
    const { invoice } = await internationalCustomer();
    const other = await t.newAccount();
    const theirs = await t.call('GET', `/v1/Invoices/pdf/${invoice.id}`, undefined, { as: other });
    expect(theirs.statusCode).toBe(404);
    expect(errorsOf(theirs)[0]!.Value).toContain(`invoice with id ${invoice.id}`);
    expect((await t.call('GET', '/v1/Invoices/pdf/999999999')).statusCode).toBe(404);
    expect((await t.call('GET', '/v1/invoices/PDF/abc')).statusCode).toBe(400);
  });
});

describe('the InvoicePost e-mail', () => {
  it('carries the invoice PDF as an attachment', async () => {
    const { invoice } = await internationalCustomer();
    const filename = `invoice-${invoice.invoiceNumber}.pdf`;
    const deadline = Date.now() + 60_000; // a wait, not a timing: a busy machine is slow
    const find = () => smtp.received.find((m) => m.attachments.some((a) => a.filename === filename));
    while (!find() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    const mail = find();
    expect(mail, 'the InvoicePost e-mail with its PDF').toBeDefined();
    expect(mail!.to).toEqual([expect.stringMatching(/^zoe\./)]);
    expect(mail!.text).toContain(`Invoice ${invoice.invoiceNumber} for $${formatAmount(String(invoice.invoiceAmount), 2)} has been issued`);
    expect(mail!.text).toContain('The invoice is attached as a PDF.');
    const [attachment] = mail!.attachments;
    expect(attachment).toMatchObject({ filename, contentType: 'application/pdf' });
    const { text } = await pdfText(attachment!.content);
    expect(text).toContain(`No. ${invoice.invoiceNumber}`);
    expect(text).toContain('Zoë Weiß');
    // Activation applied nothing here: the PDF is made when the e-mail is sent, with the ledger of that moment.
    expect(text).toContain(`Outstanding ${formatMoney(String(invoice.invoiceAmount), 'USD', 2)}`);
  });
});

describe('amounts as the PDF prints them', () => {
  it("uses the currency's minor units exactly, with thousands separators", () => {
    expect(formatAmount('1234567.5', 2)).toBe('1,234,567.50');
    expect(formatAmount('1000', 0)).toBe('1,000');
    expect(formatAmount('75.455', 3)).toBe('75.455');
    expect(formatAmount('-246.9', 2)).toBe('-246.90');
    expect(formatAmount('0.0125', 2)).toBe('0.0125');
    expect(formatRate('0.05')).toBe('5%');
    expect(formatRate('0.09975')).toBe('9.975%');
    expect(formatAmount('1234567.5', 2, 'de')).toBe('1.234.567,50');
    expect(formatMoney('1234.56', 'EUR', 2, 'fr')).toBe('1\u202f234,56\u00a0€');
    expect(formatMoney('0.0125', 'EUR', 2, 'de')).toBe('0,0125\u00a0€');
    expect(formatRate('0.09975', 'fr')).toBe('9,975\u00a0%');
  });
});
