import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACTIVATION_FLAGS,
  BASIC_MONTHLY,
  DAY,
  activate,
  cardBody,
  listInvoices,
  newCustomer,
  newSubscription,
  readOverview,
} from '../helpers/api-fixtures.js';
import { accountOnClock, advanceClock, CLOCK_START, WITH_OUTBOXES } from '../helpers/clock-accounts.js';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.js';
import { modelCatalog } from '../ledger-model/harness.js';
import { expectError, ledgerRows } from '../lifecycle/lifecycle-fixtures.js';

/**
 * Issue 40: credit notes (POST /v1/creditNotes). The model catalogue prices BASIC monthly in USD (19.99 + 10.00
 * setup), JPY (2980 + 1500) and BHD (7.125 + 3.750); a customer billed in Ontario pays GST 5 % and HST 8 %. The
 * expected figures are worked out here in integers of the minor unit (half up), not with the service's helpers.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ catalog: modelCatalog(), app: { testClocks: true, backgroundTasks: false, ...WITH_OUTBOXES } });
});
afterAll(async () => t?.close());

type Body = Record<string, any>;
const START = CLOCK_START;
const DIGITS: Record<string, number> = { USD: 2, JPY: 0, BHD: 3 };

const newAccount = () => accountOnClock(t);

const advance = (account: TestAccount, to: Date) => advanceClock(t, account, to);

/** A customer billed in Ontario on BASIC monthly in `currency`, activated now: its posted invoice (unpaid). */
async function activated(account: TestAccount, currency: string, options: { card?: string; language?: string } = {}) {
  const language = options.language ? { language: options.language } : {};
  const email = { primaryEmail: `credit.${account.accountId}@example.com` };
  const customerId = await newCustomer(t, { currency, billing: { country: 'CA', state: 'ON' }, ...email, ...language }, account);
  await newSubscription(t, customerId, BASIC_MONTHLY, account);
  let cardId: number | null = null;
  if (options.card) {
    const res = await t.call('POST', '/v1/paymentmethods/creditcard', cardBody({ customerId, cardNumber: options.card }), { as: account });
    expect(res.statusCode, res.body).toBe(200);
    cardId = res.json().id;
  }
  const res = await activate(t, customerId, ACTIVATION_FLAGS, '?view=sideeffects', account);
  expect(res.statusCode, res.body).toBe(200);
  return { customerId, cardId, invoice: (res.json().invoices as Body[])[0]! };
}

const credit = (account: TestAccount, body: Body, key?: string, path = '/v1/creditNotes') =>
  t.call('POST', path, body, { as: account, ...(key ? { headers: { 'idempotency-key': key } } : {}) });

/** An amount in minor units (integers) from the API's number. */
const minor = (amount: number, currency: string) => BigInt(Math.round(amount * 10 ** DIGITS[currency]!));
const major = (units: bigint, currency: string) => Number(units) / 10 ** DIGITS[currency]!;
/** a × b / c rounded half up, all in integers. */
const shareHalfUp = (a: bigint, b: bigint, c: bigint) => (2n * a * b + c) / (2n * c);

describe('POST /v1/creditNotes', () => {
  for (const currency of ['JPY', 'BHD'] as const) {
    it(`credits one line of a taxed invoice in ${currency}: tax in proportion in the minor unit, balance and AR fall by the total; preview = posted`, async () => {
      const account = await newAccount();
      const { customerId, invoice } = await activated(account, currency);
      const [recurring, setup] = invoice.charges as Body[];
      const taxable = minor(invoice.subtotal - invoice.totalDiscount, currency);
      const taxes = minor(invoice.totalTaxes, currency);
      expect(taxes).toBeGreaterThan(0n);
      // half of the setup fee's net, by amount
      const net = minor(setup!.taxableAmount, currency) / 2n;
      const tax = shareHalfUp(net, taxes, taxable);
      const body = {
        invoiceId: invoice.id,
        lines: [{ invoiceLineId: setup!.id, amount: major(net, currency) }],
        reason: 'setup done in half the time',
      };

      const preview = await credit(account, body, undefined, '/v1/creditNotes/preview');
      expect(preview.statusCode, preview.body).toBe(200);
      const res = await credit(account, body, `cn-${currency}`);
      expect(res.statusCode, res.body).toBe(200);
      const note = res.json();
      expect(note).toMatchObject({
        number: 1,
        status: 'Issued',
        currency,
        invoiceId: invoice.id,
        invoiceNumber: invoice.invoiceNumber,
        subtotal: major(net, currency),
        taxTotal: major(tax, currency),
        total: major(net + tax, currency),
        appliedToInvoice: major(net + tax, currency),
        creditedToCustomer: 0,
        refunded: 0,
        refundIds: [],
        lines: [
          {
            invoiceLineId: setup!.id,
            quantity: null,
            amount: major(net, currency),
            taxAmount: major(tax, currency),
            total: major(net + tax, currency),
          },
        ],
      });
      const { id, number, uri, pdfUri, createdTimestamp, status, ...figures } = note;
      expect(preview.json()).toMatchObject({ ...figures, id: null, number: null, status: 'Preview', uri: null });

      const owed = minor(invoice.invoiceAmount, currency) - net - tax;
      const after = (await listInvoices(t, customerId, account))[0]!;
      expect([after.outstandingBalance, after.status]).toEqual([major(owed, currency), 'PartiallyPaid']);
      expect((await readOverview(t, customerId, account)).arBalance).toBe(major(owed, currency));
      expect((await t.call('GET', `/v1/creditNotes/${id}`, undefined, { as: account })).json()).toEqual(note);
      const again = await credit(account, body, `cn-${currency}`);
      expect([again.statusCode, again.json().id]).toEqual([200, id]);

      // the recurring line in full by quantity fits; the setup fee's other half and one minor unit more does not
      const full = await credit(account, {
        invoiceId: invoice.id,
        lines: [{ invoiceLineId: recurring!.id, quantity: 1 }],
        reason: 'no service',
      });
      expect(full.statusCode, full.body).toBe(200);
      expect(full.json()).toMatchObject({ number: 2, subtotal: recurring!.taxableAmount });
      const rest = minor(setup!.taxableAmount, currency) - net + 1n;
      expectError(
        await credit(account, { invoiceId: invoice.id, lines: [{ invoiceLineId: setup!.id, amount: major(rest, currency) }], reason: 'x' }),
        409,
        {
          Key: 'lines[0].amount',
          Code: 'credit_exceeds_line',
        },
      );
      const listed = await t.call('GET', `/v1/customers/${customerId}/creditNotes`, undefined, { as: account });
      expect(listed.json().map((n: Body) => n.number)).toEqual([1, 2]);
      const entries = (await ledgerRows(t, customerId)).map((e) => e.entryType);
      expect(entries).toEqual(['invoice', 'credit', 'credit']);
    });
  }

  it('refunds a paid invoice on its card payment once with refund: true; a retry with its key refunds nothing more', async () => {
    const account = await newAccount();
    const { customerId, cardId, invoice } = await activated(account, 'USD', { card: '4242424242424242' });
    const paid = await t.call(
      'POST',
      '/v1/payments',
      { customerId, amount: invoice.invoiceAmount, paymentMethodId: cardId },
      { as: account },
    );
    expect(paid.statusCode, paid.body).toBe(200);
    const [recurring, setup] = invoice.charges as Body[];
    const body = {
      invoiceId: invoice.id,
      lines: [
        { invoiceLineId: recurring!.id, quantity: 1 },
        { invoiceLineId: setup!.id, quantity: 1 },
      ],
      reason: 'cancelled before the service started',
      refund: true,
    };
    const res = await credit(account, body, 'refund-all');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      total: invoice.invoiceAmount,
      appliedToInvoice: 0,
      refunded: invoice.invoiceAmount,
      creditedToCustomer: 0,
    });
    expect(res.json().refundIds).toHaveLength(1);
    const again = await credit(account, body, 'refund-all');
    expect(again.json()).toEqual(res.json());
    const refunds = await t.call('GET', `/v1/payments/${paid.json().id}/refunds`, undefined, { as: account });
    expect(refunds.json().map((r: Body) => [r.status, r.amount])).toEqual([['Succeeded', invoice.invoiceAmount]]);
    // the refund reopened the invoice and the credit paid it: nothing owed, nothing held
    expect((await listInvoices(t, customerId, account))[0]).toMatchObject({ status: 'Paid', outstandingBalance: 0 });
    expect(await readOverview(t, customerId, account)).toMatchObject({ arBalance: 0, unallocatedPayments: 0 });
    // nothing is left to credit on either line
    expectError(await credit(account, { ...body, lines: [{ invoiceLineId: setup!.id, amount: 0.01 }] }), 409, {
      Code: 'credit_exceeds_line',
    });
  });

  it('without refund, the excess on a paid invoice is the customer credit that pays the next invoice', async () => {
    const account = await newAccount();
    const { customerId, invoice } = await activated(account, 'USD');
    expect(
      (await t.call('POST', '/v1/payments', { customerId, amount: invoice.invoiceAmount, paymentMethod: 'Check' }, { as: account }))
        .statusCode,
    ).toBe(200);
    const setup = (invoice.charges as Body[])[1]!;
    const res = await credit(account, { invoiceId: invoice.id, lines: [{ invoiceLineId: setup.id, amount: 10 }], reason: 'setup waived' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      subtotal: 10,
      taxTotal: 1.3,
      total: 11.3,
      appliedToInvoice: 0,
      creditedToCustomer: 11.3,
      refunded: 0,
    });
    const mails = await t.database.db
      .selectFrom('emailOutbox')
      .select(['emailType', 'content'])
      .where('customerId', '=', customerId)
      .execute();
    expect(mails.find((m) => m.emailType === 'CreditNote')?.content).toMatchObject({
      event: {
        type: 'CreditNote',
        number: 1,
        invoiceNumber: invoice.invoiceNumber,
        total: '11.3',
        applied: '0',
        credited: '11.3',
        refunded: '0',
      },
    });
    await advance(account, new Date(START.getTime() + 32 * DAY));
    const renewal = (await listInvoices(t, customerId, account))[1]!;
    expect(renewal.totalPayments).toBe(11.3);
  });

  it('brings a Suspended customer whose only overdue invoice it credits to nothing back to Active; a webhook announces it', async () => {
    const account = await newAccount();
    const { customerId, invoice } = await activated(account, 'USD');
    await advance(account, new Date(START.getTime() + 9 * DAY));
    expect((await readOverview(t, customerId, account)).status).toBe('Suspended');
    const lines = (invoice.charges as Body[]).map((c) => ({ invoiceLineId: c.id, quantity: c.quantity }));
    const res = await credit(account, { invoiceId: invoice.id, lines, reason: 'never delivered' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ total: invoice.invoiceAmount, appliedToInvoice: invoice.invoiceAmount });
    expect(await readOverview(t, customerId, account)).toMatchObject({ status: 'Active', arBalance: 0 });
    const events = await t.database.db.selectFrom('webhookEvents').select('eventType').where('customerId', '=', customerId).execute();
    expect(events.map((e) => e.eventType)).toContain('creditNote.created');
    expect(events.map((e) => e.eventType)).toContain('invoice.paid');
  });

  it('refuses a Draft, a Void invoice, a line of another invoice, amount and quantity together, too many decimals, an unknown invoice', async () => {
    const account = await newAccount();
    const { customerId, invoice } = await activated(account, 'USD');
    const line = (invoice.charges as Body[])[0]!;
    const other = await newCustomer(t, { currency: 'USD' }, account);
    await newSubscription(t, other, BASIC_MONTHLY, account);
    const drafted = await activate(t, other, { ...ACTIVATION_FLAGS, temporarilyDisableAutoPost: true }, '?view=sideeffects', account);
    const draft = (drafted.json().invoices as Body[])[0]!;
    const ask = (invoiceId: number, l: Body) => credit(account, { invoiceId, lines: [l], reason: 'r' });
    expectError(await ask(draft.id, { invoiceLineId: draft.charges[0].id, amount: 1 }), 409, {
      Key: 'invoiceId',
      Code: 'invoice_not_posted',
    });
    expectError(await ask(invoice.id, { invoiceLineId: draft.charges[0].id, amount: 1 }), 400, { Key: 'lines[0].invoiceLineId' });
    expectError(await ask(invoice.id, { invoiceLineId: line.id, amount: 1, quantity: 1 }), 400, { Key: 'lines[0].amount' });
    expectError(await ask(invoice.id, { invoiceLineId: line.id, amount: 1.001 }), 400, { Key: 'lines[0].amount' });
    expectError(await ask(invoice.id, { invoiceLineId: line.id, quantity: 2 }), 400, { Key: 'lines[0].quantity' });
    expectError(await ask(2_000_000_000, { invoiceLineId: line.id, amount: 1 }), 404);
    expectError(await credit(account, { invoiceId: invoice.id, lines: [{ invoiceLineId: line.id, amount: 1 }] }), 400, { Key: 'reason' });
    expect((await t.call('POST', `/v1/Invoices/${invoice.id}/void`, {}, { as: account })).statusCode).toBe(200);
    expectError(await ask(invoice.id, { invoiceLineId: line.id, amount: 1 }), 409, { Key: 'invoiceId', Code: 'invoice_closed' });
    const stranger = await t.newAccount();
    expectError(await credit(stranger, { invoiceId: invoice.id, lines: [{ invoiceLineId: line.id, amount: 1 }], reason: 'r' }), 404);
    expect((await t.call('GET', `/v1/customers/${customerId}/creditNotes`, undefined, { as: account })).json()).toEqual([]);
  });
});

describe('GET /v1/creditNotes/pdf/{id}', () => {
  it("prints the credit note in its invoice's layout and the customer's language, amounts with the currency's decimals", async () => {
    const account = await newAccount();
    const { invoice } = await activated(account, 'BHD', { language: 'fr' });
    const setup = (invoice.charges as Body[])[1]!;
    const res = await credit(account, {
      invoiceId: invoice.id,
      lines: [{ invoiceLineId: setup.id, quantity: 1 }],
      reason: 'Installation offerte',
    });
    expect(res.statusCode, res.body).toBe(200);
    const pdf = await t.call('GET', `/v1/creditNotes/pdf/${res.json().id}`, undefined, { as: account });
    expect(pdf.statusCode, pdf.body.slice(0, 200)).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toBe('inline; filename="credit-note-1.pdf"');
    const document = await getDocumentProxy(new Uint8Array(pdf.rawPayload));
    const text = (await extractText(document, { mergePages: true })).text.replace(/\s+/g, ' ');
    for (const words of [
      'AVOIR',
      `Sur la facture n° ${invoice.invoiceNumber}`,
      'Installation offerte',
      'Imputé sur la facture',
      'Avoir 1 · page 1 sur 1',
    ])
      expect(text).toContain(words);
    // 3.750 BHD net, in the French way with three decimals
    expect(text).toContain('3,750');
    expect(text).not.toContain('FACTURE');
    expect((await t.call('GET', '/v1/creditNotes/pdf/2000000000', undefined, { as: account })).statusCode).toBe(404);
  });
});
