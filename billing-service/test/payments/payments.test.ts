import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { MemoryRateLimitStore } from '../../src/http/rate-limit.js';
import { SandboxGateway } from '../../src/gateway/sandbox-gateway.js';
import { errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';
import { cardBody, customerWithInvoice } from '../helpers/api-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const card = (cardNumber = '4242424242424242') =>
  cardBody({ cardNumber, lastName: 'L', expirationMonth: 11, expirationYear: 35, cvv: '321' });

describe('payments', () => {
  it('takes cash against the oldest open invoice and keeps the rest as unallocated funds', async () => {
    const { customerId, invoiceId } = await customerWithInvoice(t);
    const res = await t.call('POST', '/v1/payments', {
      customerId,
      amount: 50,
      paymentMethod: 'Cash',
      reference: 'till 3',
      source: 'Manual',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      amount: 50,
      currency: 'USD',
      status: 'Succeeded',
      paymentMethod: 'Cash',
      reference: 'till 3',
      unallocatedAmount: 20.01,
      invoiceAllocations: [{ invoiceId, amount: 29.99, outstandingBalance: 0, invoiceTotal: 29.99 }],
    });
    const invoice = (await t.call('GET', `/v1/Invoices/${invoiceId}`)).json();
    expect(invoice).toMatchObject({ status: 'Paid', totalPayments: 29.99, outstandingBalance: 0 });
    const overview = (await t.call('GET', `/v1/customers/${customerId}/overview`)).json();
    expect(overview).toMatchObject({ arBalance: 0, unallocatedPayments: 20.01, lifetimeValue: 50 });
  });

  it('allocates explicitly when paymentAllocations are given', async () => {
    const { customerId, invoiceId } = await customerWithInvoice(t);
    const res = await t.call('POST', '/v1/payments', {
      customerId,
      amount: '20',
      paymentMethod: 'Check',
      paymentAllocations: [{ invoiceId, amount: 12.5 }],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      unallocatedAmount: 7.5,
      invoiceAllocations: [{ invoiceId, amount: 12.5, outstandingBalance: 17.49 }],
    });
    expect((await t.call('GET', `/v1/Invoices/${invoiceId}`)).json().status).toBe('PartiallyPaid');
  });

  it.each([
    [{ amount: 0 }, 'amount'],
    [{ amount: -5 }, 'amount'],
    [{ amount: '10.001' }, 'amount'],
    [{ paymentMethod: 'Bitcoin' }, 'paymentMethod'],
    [{ source: 'Elsewhere' }, 'source'],
    [{ reference: 'r'.repeat(501) }, 'reference'],
    [{ paymentMethod: 'CreditCard' }, 'paymentMethodId'],
    [{ paymentMethod: 'CreditCard', paymentMethodId: 999999 }, 'paymentMethodId'],
    [{ paymentMethod: 'CreditCard', useDefaultPaymentMethod: true }, 'useDefaultPaymentMethod'],
    [{ paymentMethod: 'Cash', autoAllocate: true, paymentAllocations: [{ invoiceId: 1, amount: 1 }] }, 'autoAllocate'],
    [{ paymentMethod: 'Cash', paymentAllocations: [{ invoiceId: 999999, amount: 1 }] }, 'paymentAllocations[0].invoiceId'],
  ])('refuses %j with 400 keyed on %s', async (change, key) => {
    const customerId = (await t.call('POST', '/v1/customers', {})).json().id;
    const res = await t.call('POST', '/v1/payments', { customerId, amount: 10, paymentMethod: 'Cash', ...change });
    expect(res.statusCode, res.body).toBe(400);
    expect(errorsOf(res).map((e) => e.Key)).toContain(key);
  });

  it('refuses an allocation above what the invoice still owes', async () => {
    const { customerId, invoiceId } = await customerWithInvoice(t);
    const res = await t.call('POST', '/v1/payments', {
      customerId,
      amount: 40,
      paymentMethod: 'Cash',
      paymentAllocations: [{ invoiceId, amount: 30 }],
    });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)[0]!.Key).toBe('paymentAllocations[0].amount');
  });

  it.each([
    ['4000000000000341', 'card_declined'],
    ['4000000000009995', 'insufficient_funds'],
  ])('answers a card whose charges fail (%s) with 402 and %s, recording a failed payment', async (cardNumber, code) => {
    const customerId = (await t.call('POST', '/v1/customers', {})).json().id;
    const method = (await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...card(cardNumber) })).json();
    const res = await t.call('POST', '/v1/payments', { customerId, amount: 5, paymentMethodId: method.id });
    expect(res.statusCode).toBe(402);
    expect(errorsOf(res)).toContainEqual({ Key: 'declineCode', Value: code, Code: 'card_declined' });
    const failedId = Number(errorsOf(res).find((e) => e.Key === 'paymentActivityId')!.Value);
    expect((await t.call('GET', `/v1/payments/${failedId}`)).json()).toMatchObject({
      status: 'Failed',
      declineCode: code,
      unallocatedAmount: 0,
    });
    expect((await t.call('GET', `/v1/customers/${customerId}/overview`)).json().unallocatedPayments).toBe(0);
  });

  it('answers a retry with the same Idempotency-Key with the first result, and another body with 422', async () => {
    const customerId = (await t.call('POST', '/v1/customers', {})).json().id;
    const headers = { 'idempotency-key': `pay-${customerId}` };
    const first = await t.call('POST', '/v1/payments', { customerId, amount: 15, paymentMethod: 'Cash' }, { headers });
    const second = await t.call('POST', '/v1/payments', { customerId, amount: 15, paymentMethod: 'Cash' }, { headers });
    expect(second.body).toBe(first.body);
    expect(second.headers['idempotent-replayed']).toBe('true');
    const different = await t.call('POST', '/v1/payments', { customerId, amount: 16, paymentMethod: 'Cash' }, { headers });
    expect(different.statusCode).toBe(422);
    expect(errorsOf(different)[0]!.Key).toBe('Idempotency-Key');
    // A declined charge is replayed too: the card is not charged again.
    const declined = (
      await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...card('4000000000009995'), isDefault: true })
    ).json();
    const declineHeaders = { 'idempotency-key': `decline-${customerId}` };
    const a = await t.call('POST', '/v1/payments', { customerId, amount: 5, paymentMethodId: declined.id }, { headers: declineHeaders });
    const b = await t.call('POST', '/v1/payments', { customerId, amount: 5, paymentMethodId: declined.id }, { headers: declineHeaders });
    expect([a.statusCode, b.statusCode]).toEqual([402, 402]);
    expect(b.body).toBe(a.body); // the same error body, its ErrorId included
    const failed = await t.database.db
      .selectFrom('payments')
      .select('id')
      .where('customerId', '=', customerId)
      .where('status', '=', 'Failed')
      .execute();
    expect(failed).toHaveLength(1);
  });

  it('forgets an Idempotency-Key after 24 hours: the same key then starts a new payment', async () => {
    const customerId = (await t.call('POST', '/v1/customers', {})).json().id;
    const headers = { 'idempotency-key': `old-${customerId}` };
    const first = await t.call('POST', '/v1/payments', { customerId, amount: 15, paymentMethod: 'Cash' }, { headers });
    expect(first.statusCode).toBe(200);
    const ageKey = (hours: number) =>
      t.database.db
        .updateTable('idempotencyKeys')
        .set({ createdAt: new Date(Date.now() - hours * 3_600_000) } as never)
        .where('accountId', '=', t.account.accountId)
        .where('key', '=', headers['idempotency-key'])
        .execute();
    await ageKey(23);
    expect((await t.call('POST', '/v1/payments', { customerId, amount: 16, paymentMethod: 'Cash' }, { headers })).statusCode).toBe(422);
    await ageKey(25);
    const later = await t.call('POST', '/v1/payments', { customerId, amount: 16, paymentMethod: 'Cash' }, { headers });
    expect(later.statusCode, later.body).toBe(200);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.json().id).not.toBe(first.json().id);
    const replay = await t.call('POST', '/v1/payments', { customerId, amount: 16, paymentMethod: 'Cash' }, { headers });
    expect(replay.json().id).toBe(later.json().id);
  });

  it('charges once when retries with one Idempotency-Key race each other', async () => {
    let charges = 0;
    const sandbox = new SandboxGateway(t.database.db);
    const counting = {
      name: 'counting',
      validateCard: sandbox.validateCard.bind(sandbox),
      resumeCardValidation: sandbox.resumeCardValidation.bind(sandbox),
      dueEvents: sandbox.dueEvents.bind(sandbox),
      acknowledgeEvents: sandbox.acknowledgeEvents.bind(sandbox),
      submitDisputeEvidence: sandbox.submitDisputeEvidence.bind(sandbox),
      refund: sandbox.refund.bind(sandbox),
      findRefund: sandbox.findRefund.bind(sandbox),
      charge: async (request: Parameters<SandboxGateway['charge']>[0]) => {
        charges += 1;
        await new Promise((resolve) => setTimeout(resolve, 50));
        return sandbox.charge(request);
      },
    };
    const app = await buildApp({
      db: t.database.db,
      catalog: t.catalog,
      rateLimitStore: new MemoryRateLimitStore(),
      publicBaseUrl: 'https://billing.test',
      gateway: counting,
    });
    try {
      const customerId = (await t.call('POST', '/v1/customers', {})).json().id;
      const method = (await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...card() })).json();
      const request = () =>
        app.inject({
          method: 'POST',
          url: '/v1/payments',
          headers: { authorization: `Basic ${t.account.apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'race-1' },
          payload: JSON.stringify({ customerId, amount: 42, paymentMethodId: method.id }),
        });
      const responses = await Promise.all([request(), request(), request(), request(), request()]);
      expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
      expect(new Set(responses.map((r) => r.json().id)).size).toBe(1);
      expect(charges).toBe(1);
      const rows = await t.database.db.selectFrom('payments').select('id').where('customerId', '=', customerId).execute();
      expect(rows).toHaveLength(1);
    } finally {
      await app.close();
    }
  });

  it("lists a customer's payments with paging headers and keeps other accounts out", async () => {
    const customerId = (await t.call('POST', '/v1/customers', {})).json().id;
    for (const amount of [1, 2, 3]) await t.call('POST', '/v1/payments', { customerId, amount, paymentMethod: 'Cash' });
    const page = await t.call('GET', `/v1/customers/${customerId}/payments?pageSize=2&sortOrder=Descending&sortExpression=Id`);
    expect(page.json().map((p: { amount: number }) => p.amount)).toEqual([3, 2]);
    expect(page.headers).toMatchObject({ 'x-count': '3', 'x-nextpage': '1', 'x-maxpageindex': '1' });
    const other = await t.newAccount();
    expect((await t.call('GET', `/v1/payments/${page.json()[0].id}`, undefined, { as: other })).statusCode).toBe(404);
    expect((await t.call('POST', '/v1/payments', { customerId, amount: 1, paymentMethod: 'Cash' }, { as: other })).statusCode).toBe(404);
  });
});
