import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBillingClock } from '../../src/lifecycle/billing-clock.js';
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
  readOverview,
} from '../helpers/api-fixtures.js';
import { startSmtpStandIn } from '../helpers/smtp-stand-in.js';
import { errorsOf, startTestApp, testCatalog, type TestApp } from '../helpers/test-app.js';
import { startReceiver } from '../webhooks/receiver.js';

/** Refunds (issue 16): a payment paid back in part or whole, the ledger following, over real HTTP on a real database. */

/** Exact sums of JSON amounts (decimal arithmetic, as the service does), back as JSON numbers. */
const plus = (...amounts: Array<number | string>) => amounts.reduce<ReturnType<typeof money>>((sum, a) => sum.plus(a), money(0)).toNumber();
const minus = (a: number, b: number) => money(a).minus(b).toNumber();

let t: TestApp;
let smtp: Awaited<ReturnType<typeof startSmtpStandIn>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let hookSecret: string;
beforeAll(async () => {
  smtp = await startSmtpStandIn();
  receiver = await startReceiver();
  t = await startTestApp({
    catalog: testCatalog({ currencies: { default: 'USD', allowed: ['USD', 'JPY', 'BHD'] } }),
    app: {
      email: { smtpUrl: smtp.url, from: 'billing@inkwell.test', pollMs: 20 },
      webhooks: { allowHttp: true, allowPrivate: true },
      webhookWorker: false,
    },
  });
  const hook = await t.call('POST', '/v1/webhookEndpoints', { url: receiver.url('/hooks'), eventTypes: ['payment.refunded'] });
  expect(hook.statusCode, hook.body).toBe(200);
  hookSecret = hook.json().secret;
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
  await smtp?.close();
});

let n = 0;
/** A customer in USD (or the given currency) with an e-mail address. */
async function customer(currency = 'USD') {
  n += 1;
  const email = `margaret.${n}@example.com`;
  const id = await newCustomer(t, { firstName: 'Margaret', lastName: 'Hamilton', primaryEmail: email, currency });
  return { id, email };
}

async function pay(customerId: number, amount: number | string, extra: Record<string, unknown> = { paymentMethod: 'Cash' }) {
  const res = await t.call('POST', '/v1/payments', { customerId, amount, ...extra });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Record<string, any>;
}

async function addCard(customerId: number, cardNumber = '4242424242424242') {
  const res = await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...cardBody({ cardNumber }), isDefault: true });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().id as number;
}

function refund(body: Record<string, unknown>, headers?: Record<string, string>) {
  return t.call('POST', '/v1/refunds', body, headers ? { headers } : {});
}

async function readPayment(id: number) {
  const res = await t.call('GET', `/v1/payments/${id}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Record<string, any>;
}

/** An active customer on BASIC monthly whose first invoice is posted and open (no deposit). */
async function activeWithOpenInvoice(currency = 'USD') {
  const c = await customer(currency);
  await newSubscription(t, c.id);
  const res = await activate(t, c.id, ACTIVATION_FLAGS, '?view=sideeffects');
  expect(res.statusCode, res.body).toBe(200);
  const invoice = res.json().invoices[0] as { id: number; invoiceAmount: number };
  return { ...c, invoice };
}

async function mailTo(address: string, subjectEnd: string) {
  const deadline = Date.now() + 30_000; // a wait, not a timing: the outbox also sends the file's earlier e-mails (with PDFs) first
  for (;;) {
    const mails = smtp.received.filter((m) => m.to.includes(address) && m.subject.endsWith(subjectEnd));
    if (mails.length > 0 || Date.now() > deadline) return mails;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('refunding a payment', () => {
  it('pays back a deposit: the payment, the overview and the lists follow, with an audit entry', async () => {
    const c = await customer();
    const payment = await pay(c.id, '50.00');
    const before = await readOverview(t, c.id);

    const res = await refund({ originalPaymentId: payment.id, amount: '20.05', reference: 'goodwill' });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      originalPaymentId: payment.id,
      customerId: c.id,
      amount: 20.05,
      currency: 'USD',
      method: 'Cash',
      status: 'Succeeded',
      reference: 'goodwill',
      declineCode: null,
      invoiceUnallocations: [],
    });
    expect(body.uri).toBe(`https://billing.test/v1/refunds/${body.id}`);
    expect(body.paymentUri).toBe(payment.uri);

    expect(await readPayment(payment.id)).toMatchObject({
      amount: 50,
      unallocatedAmount: 29.95,
      refundedAmount: 20.05,
      refundableAmount: 29.95,
      refunds: [{ id: body.id, amount: 20.05, status: 'Succeeded', uri: body.uri }],
    });
    const after = await readOverview(t, c.id);
    expect(after.unallocatedPayments).toBe(29.95);
    expect(after.lifetimeValue).toBe(minus(before.lifetimeValue, 20.05));

    expect((await t.call('GET', `/v1/refunds/${body.id}`)).json()).toEqual(body);
    const byPayment = await t.call('GET', `/v1/payments/${payment.id}/refunds`);
    expect(byPayment.statusCode).toBe(200);
    expect(byPayment.json()).toEqual([body]);
    expect(byPayment.headers['x-count']).toBe('1');
    const byCustomer = await t.call('GET', `/v1/customers/${c.id}/refunds?query=Status:Succeeded;Reference:good*`);
    expect(byCustomer.json()).toEqual([body]);
    expect((await t.call('GET', `/v1/customers/${c.id}/refunds?query=Method:CreditCard`)).json()).toEqual([]);

    const audit = await t.database.db
      .selectFrom('auditLog')
      .selectAll()
      .where('entityType', '=', 'Refund')
      .where('entityId', '=', body.id)
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]!.changes).toMatchObject({ status: 'Succeeded', amount: '20.05', originalPaymentId: payment.id, method: 'Cash' });
  });

  it('takes back the unallocated part first, then reopens the invoice the payment paid', async () => {
    const c = await activeWithOpenInvoice();
    const total = c.invoice.invoiceAmount;
    const cardId = await addCard(c.id);
    const payment = await pay(c.id, plus(total, 10), { paymentMethodId: cardId });
    expect(payment.unallocatedAmount).toBe(10);
    expect((await listInvoices(t, c.id))[0]).toMatchObject({ status: 'Paid', outstandingBalance: 0 });

    const first = await refund({ originalPaymentId: payment.id, amount: 15 });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({
      method: 'CreditCard',
      status: 'Succeeded',
      invoiceUnallocations: [{ invoiceId: c.invoice.id, amount: 5 }],
    });
    expect((await listInvoices(t, c.id))[0]).toMatchObject({
      status: 'PartiallyPaid',
      outstandingBalance: 5,
      totalPayments: minus(total, 5),
    });
    expect(await readOverview(t, c.id)).toMatchObject({ arBalance: 5, unallocatedPayments: 0 });
    expect(await readPayment(payment.id)).toMatchObject({
      unallocatedAmount: 0,
      refundedAmount: 15,
      invoiceAllocations: [{ invoiceId: c.invoice.id, amount: minus(total, 5) }],
    });

    const rest = await refund({ originalPaymentId: payment.id, amount: minus(total, 5) });
    expect(rest.statusCode, rest.body).toBe(200);
    expect((await listInvoices(t, c.id))[0]).toMatchObject({ status: 'Posted', outstandingBalance: total, totalPayments: 0 });
    expect(await readPayment(payment.id)).toMatchObject({ refundedAmount: plus(total, 10), refundableAmount: 0, invoiceAllocations: [] });
    expect((await readOverview(t, c.id)).arBalance).toBe(total);

    const more = await refund({ originalPaymentId: payment.id, amount: '0.01' });
    expect(more.statusCode).toBe(400);
    expect(errorsOf(more)[0]).toMatchObject({ Key: 'amount', Code: 'value_invalid' });
    // the words are the point here: they tell the operator how much is left
    expect(errorsOf(more)[0]!.Value).toContain('0.00 USD left to refund');
  });

  it('reopens the newest invoice a payment paid first', async () => {
    const c = await activeWithOpenInvoice();
    const first = c.invoice;
    await runBillingClock(t.app.ctx, new Date(Date.now() + 32 * DAY));
    const invoices = await listInvoices(t, c.id);
    expect(invoices).toHaveLength(2);
    const second = invoices[1]!;
    const payment = await pay(c.id, plus(first.invoiceAmount, second.invoiceAmount), { paymentMethod: 'Check' });
    expect(payment.invoiceAllocations.map((a: any) => a.invoiceId)).toEqual([first.id, second.id]);

    const res = await refund({ originalPaymentId: payment.id, amount: plus(second.invoiceAmount, 1) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().method).toBe('Check');
    expect(res.json().invoiceUnallocations).toEqual([
      { invoiceId: second.id, invoiceNumber: second.invoiceNumber, amount: second.invoiceAmount, uri: second.uri },
      { invoiceId: first.id, invoiceNumber: invoices[0]!.invoiceNumber, amount: 1, uri: invoices[0]!.uri },
    ]);
    const after = await listInvoices(t, c.id);
    expect(after.map((i) => [i.status, i.outstandingBalance])).toEqual([
      ['PartiallyPaid', 1],
      ['Posted', second.invoiceAmount],
    ]);
  });

  it('records a refund the gateway refuses as failed and answers 402 with its code', async () => {
    const c = await customer();
    const cardId = await addCard(c.id, '4000000000005126');
    const payment = await pay(c.id, 30, { paymentMethodId: cardId });
    const res = await refund({ originalPaymentId: payment.id, amount: 10 });
    expect(res.statusCode).toBe(402);
    const errors = errorsOf(res);
    expect(errors).toContainEqual({ Key: 'declineCode', Value: 'refund_failed', Code: 'refund_declined' });
    expect(errors.find((e) => e.Key === 'Api Error')).toMatchObject({ Code: 'refund_declined' });
    const refundId = Number(errors.find((e) => e.Key === 'refundId')!.Value);
    expect((await t.call('GET', `/v1/refunds/${refundId}`)).json()).toMatchObject({
      status: 'Failed',
      declineCode: 'refund_failed',
      amount: 10,
    });
    expect(await readPayment(payment.id)).toMatchObject({ unallocatedAmount: 30, refundedAmount: 0, refundableAmount: 30 });
    expect((await readOverview(t, c.id)).unallocatedPayments).toBe(30);
    // Paid back another way: recorded by check, no gateway involved.
    const byCheck = await refund({ originalPaymentId: payment.id, amount: 10, method: 'Check' });
    expect(byCheck.statusCode, byCheck.body).toBe(200);
    expect(byCheck.json()).toMatchObject({ method: 'Check', status: 'Succeeded' });
    expect(await readPayment(payment.id)).toMatchObject({ refundedAmount: 10, refundableAmount: 20 });
  });

  it('sends the Refund e-mail and the payment.refunded webhook with the payment as it is now', async () => {
    const c = await customer();
    const payment = await pay(c.id, '12.50', { paymentMethod: 'Check', reference: 'chq 1' });
    const from = receiver.received.length;
    const res = await refund({ originalPaymentId: payment.id, amount: '2.50', reference: 'overpaid' });
    expect(res.statusCode, res.body).toBe(200);

    const [mail] = await mailTo(c.email, 'refund of $2.50');
    expect(mail, 'the Refund e-mail').toBeDefined();
    const paidOn = new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone: 'UTC' }).format(
      new Date(payment.effectiveTimestamp.slice(0, 10)),
    );
    expect(mail!.text).toContain(`We have refunded $2.50 of your payment of $12.50 made on ${paidOn}, by check (overpaid).`);

    const worker = new WebhookDeliveryWorker(t.database.db, { allowHttp: true, allowPrivate: true, timeoutMs: 2_000 }, t.app.log);
    while ((await worker.runDue(new Date(Date.now() + 1000))) > 0);
    const events = receiver.received
      .slice(from)
      .map((r) => new Webhook(hookSecret).verify(r.body, r.headers) as { type: string; data: any })
      .filter((e) => e.data.id === payment.id);
    expect(events.map((e) => e.type)).toEqual(['payment.refunded']);
    expect(events[0]!.data).toMatchObject({
      id: payment.id,
      refundedAmount: 2.5,
      refundableAmount: 10,
      refunds: [{ id: res.json().id, amount: 2.5 }],
    });
  });

  it('honours the currency: JPY has no decimals, BHD three', async () => {
    const yen = await customer('JPY');
    const yenPayment = await pay(yen.id, 1000);
    const fraction = await refund({ originalPaymentId: yenPayment.id, amount: '10.5' });
    expect(fraction.statusCode).toBe(400);
    expect(errorsOf(fraction)).toEqual([{ Key: 'amount', Value: 'JPY amounts have at most 0 decimals', Code: 'value_invalid' }]);
    expect((await refund({ originalPaymentId: yenPayment.id, amount: 333 })).json()).toMatchObject({ amount: 333, currency: 'JPY' });

    const dinar = await customer('BHD');
    const dinarPayment = await pay(dinar.id, '10.125');
    const ok = await refund({ originalPaymentId: dinarPayment.id, amount: '0.125' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(await readPayment(dinarPayment.id)).toMatchObject({ refundedAmount: 0.125, unallocatedAmount: 10 });
    expect(errorsOf(await refund({ originalPaymentId: dinarPayment.id, amount: '0.0001' }))).toEqual([
      { Key: 'amount', Value: 'BHD amounts have at most 3 decimals', Code: 'value_invalid' },
    ]);
  });
});

describe('refunds that cannot be made', () => {
  it('answers 400 with the field for amounts and methods a client can get wrong, writing nothing', async () => {
    const c = await customer();
    const payment = await pay(c.id, 20);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ originalPaymentId: payment.id, amount: 0 }, 'amount'],
      [{ originalPaymentId: payment.id, amount: -5 }, 'amount'],
      [{ originalPaymentId: payment.id, amount: '1.001' }, 'amount'],
      [{ originalPaymentId: payment.id, amount: 'ten' }, 'amount'],
      [{ originalPaymentId: payment.id, amount: '1e3' }, 'amount'],
      [{ originalPaymentId: payment.id, amount: '20.01' }, 'amount'],
      [{ originalPaymentId: payment.id }, 'amount'],
      [{ amount: 1 }, 'originalPaymentId'],
      [{ originalPaymentId: 'x', amount: 1 }, 'originalPaymentId'],
      [{ originalPaymentId: payment.id, amount: 1, method: 'CreditCard' }, 'method'],
      [{ originalPaymentId: payment.id, amount: 1, method: 'Gold' }, 'method'],
      [{ originalPaymentId: payment.id, amount: 1, reference: 'r'.repeat(501) }, 'reference'],
    ];
    const countRows = async () =>
      (
        await t.database.db
          .selectFrom('refunds')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n;
    const before = await countRows();
    for (const [body, key] of cases) {
      const res = await refund(body);
      expect(res.statusCode, `${JSON.stringify(body)}: ${res.body}`).toBe(400);
      expect(
        errorsOf(res).map((e) => e.Key),
        JSON.stringify(body),
      ).toContain(key);
    }
    expect(await countRows()).toBe(before);
    expect(await readPayment(payment.id)).toMatchObject({ refundedAmount: 0, unallocatedAmount: 20 });
  });

  it("refuses a declined payment (400) and an unknown or other account's payment (404)", async () => {
    const c = await customer();
    const cardId = await addCard(c.id, '4000000000000341');
    const declined = await t.call('POST', '/v1/payments', { customerId: c.id, amount: 10, paymentMethodId: cardId });
    expect(declined.statusCode).toBe(402);
    const failedId = Number(errorsOf(declined).find((e) => e.Key === 'paymentActivityId')!.Value);
    const res = await refund({ originalPaymentId: failedId, amount: 10 });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)[0]).toMatchObject({ Key: 'originalPaymentId' });

    expect((await refund({ originalPaymentId: 2_000_000_000, amount: 1 })).statusCode).toBe(404);
    expect((await refund({ originalPaymentId: 2 ** 40, amount: 1 })).statusCode).toBeLessThan(500);

    const other = await t.newAccount();
    const stranger = await newCustomer(t, { currency: 'USD' }, other);
    const theirs = (
      await t.call('POST', '/v1/payments', { customerId: stranger, amount: 10, paymentMethod: 'Cash' }, { as: other })
    ).json();
    const mine = await pay(c.id, 10);
    const mineRefund = (await refund({ originalPaymentId: mine.id, amount: 1 })).json();
    const notFound = await refund({ originalPaymentId: theirs.id, amount: 1 });
    expect(notFound.statusCode).toBe(404);
    expect(errorsOf(notFound)).toEqual([
      { Key: 'Api Error', Value: expect.stringContaining(`payment with id ${theirs.id}`), Code: 'not_found' },
    ]);
    expect((await t.call('GET', `/v1/refunds/${mineRefund.id}`, undefined, { as: other })).statusCode).toBe(404);
    expect((await t.call('GET', `/v1/payments/${mine.id}/refunds`, undefined, { as: other })).statusCode).toBe(404);
    expect((await t.call('GET', `/v1/customers/${c.id}/refunds`, undefined, { as: other })).statusCode).toBe(404);
    expect((await t.call('GET', '/v1/refunds/999999999')).statusCode).toBe(404);
  });
});

describe('refunds and retries', () => {
  it('replays the first answer for one Idempotency-Key, also when the retries race', async () => {
    const c = await customer();
    const cardId = await addCard(c.id);
    const payment = await pay(c.id, 40, { paymentMethodId: cardId });
    const headers = { 'idempotency-key': `refund-${payment.id}` };
    const responses = await Promise.all([1, 2, 3, 4].map(() => refund({ originalPaymentId: payment.id, amount: 25 }, headers)));
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    expect(new Set(responses.map((r) => r.json().id)).size).toBe(1);
    expect(await readPayment(payment.id)).toMatchObject({ refundedAmount: 25, refundableAmount: 15 });
    const other = await refund({ originalPaymentId: payment.id, amount: 1 }, headers);
    expect(other.statusCode).toBe(422);
  });

  it('never refunds more than the payment when refunds run in parallel (card and cash)', async () => {
    for (const method of ['card', 'cash'] as const) {
      const c = await activeWithOpenInvoice();
      const paid = plus(c.invoice.invoiceAmount, 20);
      const payment = method === 'card' ? await pay(c.id, paid, { paymentMethodId: await addCard(c.id) }) : await pay(c.id, paid);
      const part = money(paid).times(0.3).toDecimalPlaces(2).toNumber();
      const responses = await Promise.all(Array.from({ length: 6 }, () => refund({ originalPaymentId: payment.id, amount: part })));
      const statuses = responses.map((r) => r.statusCode).sort();
      expect(statuses, `${method}: ${responses.map((r) => r.body).join('\n')}`).toEqual([200, 200, 200, 400, 400, 400]);
      for (const r of responses.filter((r) => r.statusCode === 400)) expect(errorsOf(r)[0]!.Key).toBe('amount');
      const after = await readPayment(payment.id);
      expect(after.refundedAmount).toBe(plus(part, part, part));
      expect(after.refundableAmount).toBe(minus(paid, plus(part, part, part)));
      // The ledger agrees: allocated + unallocated + refunded = paid, and the invoice owes what is no longer allocated.
      const allocated = plus(...after.invoiceAllocations.map((a: any) => a.amount));
      expect(plus(allocated, after.unallocatedAmount, after.refundedAmount)).toBe(paid);
      const [invoice] = await listInvoices(t, c.id);
      expect(invoice!.outstandingBalance).toBe(minus(c.invoice.invoiceAmount, allocated));
    }
  });
});
