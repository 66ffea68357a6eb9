import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { money } from '../../src/money/money.js';
import { type CrashingSandbox, crashingInstance } from '../helpers/crashing-sandbox.js';
import { settlePendingRefunds } from '../../src/refunds/settlement-worker.js';
import { cardBody, newCustomer } from '../helpers/api-fixtures.js';
import { basicAuth, startTestApp, type TestApp } from '../helpers/test-app.js';

/** Charge once (issue 22): money moves once at the gateway across retries, instances and crashes, over HTTP on a real database. */

let t: TestApp;
let gateway: CrashingSandbox;
/** A second instance on the same database, with its own sandbox gateway (records shared through the database). */
let crashing: FastifyInstance;
beforeAll(async () => {
  t = await startTestApp();
  ({ gateway, app: crashing } = await crashingInstance(t));
});
afterAll(async () => {
  await crashing?.close();
  await t?.close();
});

function post(app: FastifyInstance, url: string, body: unknown, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url,
    headers: { authorization: basicAuth(t.account.apiKey), 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
}

async function customerWithCard(cardNumber = '4242424242424242') {
  const customerId = await newCustomer(t, {});
  const res = await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...cardBody({ cardNumber }), isDefault: true });
  expect(res.statusCode, res.body).toBe(200);
  return { customerId, cardId: res.json().id as number };
}

function sandboxOperations(kind: 'charge' | 'refund', idempotencyKey: string) {
  return t.database.db
    .selectFrom('sandboxGatewayOperations')
    .selectAll()
    .where('kind', '=', kind)
    .where('idempotencyKey', '=', idempotencyKey)
    .execute();
}

describe('the gateway recognises a retry', () => {
  it("sends the client's Idempotency-Key, namespaced by account, and a retry on another instance charges once", async () => {
    const { customerId, cardId } = await customerWithCard();
    const key = `order-${customerId}`;
    const body = { customerId, amount: 42.5, paymentMethod: 'CreditCard', paymentMethodId: cardId };
    gateway.crashAfterCharge = true;
    const lost = await post(crashing, '/v1/payments', body, { 'idempotency-key': key });
    expect(lost.statusCode, lost.body).toBe(502);
    expect(gateway.chargeKeys.at(-1)).toBe(`acct_${t.account.accountId}:${key}`);

    // The retry reaches the gateway again, on the other instance (its own sandbox gateway object).
    const retried = await post(t.app, '/v1/payments', body, { 'idempotency-key': key });
    expect(retried.statusCode, retried.body).toBe(200);
    const charges = await sandboxOperations('charge', `acct_${t.account.accountId}:${key}`);
    expect(charges).toHaveLength(1);
    expect(charges[0]!.amount).toBe('42.5');
    const payment = await t.database.db
      .selectFrom('payments')
      .select('gatewayTransactionId')
      .where('id', '=', retried.json().id)
      .executeTakeFirstOrThrow();
    expect(payment.gatewayTransactionId).toBe(charges[0]!.resultId);
    const stored = await t.call('GET', `/v1/customers/${customerId}/payments`);
    expect(stored.json()).toHaveLength(1);
  });

  it("keeps two accounts' equal keys apart", async () => {
    const { customerId, cardId } = await customerWithCard();
    const other = await t.newAccount();
    const otherCustomer = (await t.call('POST', '/v1/customers', {}, { as: other })).json().id as number;
    const otherCard = (
      await t.call('POST', '/v1/paymentmethods/creditcard', { customerId: otherCustomer, ...cardBody(), isDefault: true }, { as: other })
    ).json().id as number;
    const headers = { 'idempotency-key': 'same-key-everywhere' };
    const mine = await t.call(
      'POST',
      '/v1/payments',
      { customerId, amount: 10, paymentMethod: 'CreditCard', paymentMethodId: cardId },
      { headers },
    );
    const theirs = await t.call(
      'POST',
      '/v1/payments',
      { customerId: otherCustomer, amount: 11, paymentMethod: 'CreditCard', paymentMethodId: otherCard },
      { as: other, headers },
    );
    expect([mine.statusCode, theirs.statusCode]).toEqual([200, 200]);
    expect((await sandboxOperations('charge', `acct_${t.account.accountId}:same-key-everywhere`))[0]!.amount).toBe('10');
    expect((await sandboxOperations('charge', `acct_${other.accountId}:same-key-everywhere`))[0]!.amount).toBe('11');
  });
});

describe('refunds', () => {
  it('20 concurrent refunds mixing card and check on one payment: no 500, never more than the payment', async () => {
    const { customerId, cardId } = await customerWithCard();
    const paid = await t.call('POST', '/v1/payments', { customerId, amount: 100, paymentMethod: 'CreditCard', paymentMethodId: cardId });
    expect(paid.statusCode, paid.body).toBe(200);
    const paymentId = paid.json().id as number;
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.call('POST', '/v1/refunds', { originalPaymentId: paymentId, amount: 7.5, method: i % 2 === 0 ? 'CreditCard' : 'Check' }),
      ),
    );
    const statuses = responses.map((r) => r.statusCode);
    expect(
      statuses.filter((s) => s >= 500),
      responses
        .filter((r) => r.statusCode >= 500)
        .map((r) => r.body)
        .join('\n'),
    ).toEqual([]);
    // 100 / 7.5: thirteen fit, the rest are the 400 on amount.
    expect(statuses.filter((s) => s === 200)).toHaveLength(13);
    expect(statuses.filter((s) => s === 400)).toHaveLength(7);
    const payment = (await t.call('GET', `/v1/payments/${paymentId}`)).json();
    expect(payment.refundedAmount).toBe(97.5);
    expect(money(payment.refundedAmount).lessThanOrEqualTo(100)).toBe(true);
    const cardRefunds = responses.filter((r, i) => r.statusCode === 200 && i % 2 === 0).length;
    const gatewayRefunds = await t.database.db
      .selectFrom('sandboxGatewayOperations')
      .select('idempotencyKey')
      .where('kind', '=', 'refund')
      .where(
        'transactionId',
        '=',
        (await t.database.db.selectFrom('payments').select('gatewayTransactionId').where('id', '=', paymentId).executeTakeFirstOrThrow())
          .gatewayTransactionId,
      )
      .execute();
    expect(gatewayRefunds).toHaveLength(cardRefunds);
  });

  it('settles a card refund left Pending: Succeeded when the gateway paid it, Failed (amount released) when it never got it', async () => {
    const { customerId, cardId } = await customerWithCard();
    const paid = await t.call('POST', '/v1/payments', { customerId, amount: 50, paymentMethod: 'CreditCard', paymentMethodId: cardId });
    const paymentId = paid.json().id as number;

    gateway.crashAfterRefund = true;
    const answered = await post(crashing, '/v1/refunds', { originalPaymentId: paymentId, amount: 20 });
    expect(answered.statusCode, answered.body).toBe(502);
    gateway.crashBeforeRefund = true;
    const unanswered = await post(crashing, '/v1/refunds', { originalPaymentId: paymentId, amount: 5 });
    expect(unanswered.statusCode, unanswered.body).toBe(502);

    const refunds = async () =>
      (await t.call('GET', `/v1/payments/${paymentId}/refunds`)).json() as Array<{
        id: number;
        amount: number;
        status: string;
        declineCode: string | null;
      }>;
    expect((await refunds()).map((r) => [r.amount, r.status])).toEqual([
      [20, 'Pending'],
      [5, 'Pending'],
    ]);
    expect((await t.call('GET', `/v1/payments/${paymentId}`)).json()).toMatchObject({ refundedAmount: 0, refundableAmount: 25 });

    const settled = await settlePendingRefunds(t.app.ctx, t.app.log, 0);
    expect(settled).toBeGreaterThanOrEqual(2);
    const after = await refunds();
    expect(after.map((r) => [r.amount, r.status, r.declineCode])).toEqual([
      [20, 'Succeeded', null],
      [5, 'Failed', 'refund_not_received'],
    ]);
    expect((await t.call('GET', `/v1/payments/${paymentId}`)).json()).toMatchObject({ refundedAmount: 20, refundableAmount: 30 });
    // The gateway refunded once, under the key the refund was reserved with.
    const reserved = await t.database.db
      .selectFrom('refunds')
      .select('gatewayIdempotencyKey')
      .where('id', '=', after[0]!.id)
      .executeTakeFirstOrThrow();
    expect(await sandboxOperations('refund', reserved.gatewayIdempotencyKey!)).toHaveLength(1);
    // Settled once: another pass changes nothing.
    await settlePendingRefunds(t.app.ctx, t.app.log, 0);
    expect((await t.call('GET', `/v1/payments/${paymentId}`)).json()).toMatchObject({ refundedAmount: 20, refundableAmount: 30 });
  });

  it('a retry with the same Idempotency-Key resumes the Pending refund and refunds the card once', async () => {
    const { customerId, cardId } = await customerWithCard();
    const paymentId = (
      await t.call('POST', '/v1/payments', { customerId, amount: 30, paymentMethod: 'CreditCard', paymentMethodId: cardId })
    ).json().id as number;
    const headers = { 'idempotency-key': `refund-once-${paymentId}` };
    gateway.crashAfterRefund = true;
    const lost = await post(crashing, '/v1/refunds', { originalPaymentId: paymentId, amount: 12 }, headers);
    expect(lost.statusCode, lost.body).toBe(502);
    const retried = await post(t.app, '/v1/refunds', { originalPaymentId: paymentId, amount: 12 }, headers);
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json().status).toBe('Succeeded');
    expect((await t.call('GET', `/v1/payments/${paymentId}/refunds`)).json()).toHaveLength(1);
    expect((await t.call('GET', `/v1/payments/${paymentId}`)).json()).toMatchObject({ refundedAmount: 12, refundableAmount: 18 });
    expect(await sandboxOperations('refund', `acct_${t.account.accountId}:refund-once-${paymentId}`)).toHaveLength(1);
  });
});
