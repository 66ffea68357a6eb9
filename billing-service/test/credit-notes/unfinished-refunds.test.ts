import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishCreditNoteRefunds } from '../../src/credit-notes/refund-worker.js';
import { ACTIVATION_FLAGS, activate, cardBody, listInvoices, newCustomer, newSubscription, readOverview } from '../helpers/api-fixtures.js';
import { type CrashingSandbox, crashingInstance } from '../helpers/crashing-sandbox.js';
import { basicAuth, startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * A credit note with `refund: true` whose request ended before its refund did (here the gateway refunded and the
 * answer was lost, as when the process dies): the note is committed, its refund unfinished. Without a retry of the
 * request, the credit note refunds task finishes it (credit-notes/refund-worker.ts).
 */
let t: TestApp;
let gateway: CrashingSandbox;
/** A second instance on the same database whose gateway calls can "crash". */
let crashing: FastifyInstance;
beforeAll(async () => {
  t = await startTestApp();
  ({ gateway, app: crashing } = await crashingInstance(t, { bulkWorker: false }));
});
afterAll(async () => {
  await crashing?.close();
  await t?.close();
});

type Body = Record<string, any>;

describe('credit note refunds left unfinished by their request', () => {
  it('are finished by the background task: refunded once at the gateway, and the credit pays what the refund reopened', async () => {
    const customerId = await newCustomer(t, {});
    const card = await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...cardBody({}), isDefault: true });
    expect(card.statusCode, card.body).toBe(200);
    await newSubscription(t, customerId);
    expect((await activate(t, customerId, ACTIVATION_FLAGS)).statusCode).toBe(200);
    const invoice = (await listInvoices(t, customerId))[0]!;
    const paid = await t.call('POST', '/v1/payments', {
      customerId,
      amount: invoice.invoiceAmount,
      paymentMethod: 'CreditCard',
      paymentMethodId: card.json().id,
    });
    expect(paid.statusCode, paid.body).toBe(200);
    const paymentId = paid.json().id as number;

    gateway.crashAfterRefund = true;
    const lost = await crashing.inject({
      method: 'POST',
      url: '/v1/creditNotes',
      headers: { authorization: basicAuth(t.account.apiKey), 'content-type': 'application/json' },
      payload: JSON.stringify({
        invoiceId: invoice.id,
        lines: (invoice.charges as Body[]).map((c) => ({ invoiceLineId: c.id, quantity: 1 })),
        reason: 'never delivered',
        refund: true,
      }),
    });
    expect(lost.statusCode, lost.body).toBe(502);
    const [note] = (await t.call('GET', `/v1/customers/${customerId}/creditNotes`)).json() as Body[];
    expect(note).toMatchObject({ total: invoice.invoiceAmount, refundIds: [], refunded: 0 });

    expect(await finishCreditNoteRefunds(t.app.ctx, t.app.log, 0)).toBeGreaterThanOrEqual(1);
    const finished = (await t.call('GET', `/v1/creditNotes/${note!.id}`)).json();
    expect(finished).toMatchObject({ refunded: invoice.invoiceAmount, creditedToCustomer: 0 });
    expect(finished.refundIds).toHaveLength(1);
    const refunds = (await t.call('GET', `/v1/payments/${paymentId}/refunds`)).json() as Body[];
    expect(refunds.map((r) => [r.id, r.status, r.amount])).toEqual([[finished.refundIds[0], 'Succeeded', invoice.invoiceAmount]]);
    // once at the gateway, under the note's key for this payment
    const key = `acct_${t.account.accountId}:credit-note-${note!.id}-payment-${paymentId}`;
    const atGateway = await t.database.db.selectFrom('sandboxGatewayOperations').selectAll().where('idempotencyKey', '=', key).execute();
    expect(atGateway.map((o) => o.kind)).toEqual(['refund']);
    // the refund reopened the invoice and the note's credit paid it: nothing owed, nothing held
    expect((await listInvoices(t, customerId))[0]).toMatchObject({ status: 'Paid', outstandingBalance: 0 });
    expect(await readOverview(t, customerId)).toMatchObject({ arBalance: 0, unallocatedPayments: 0 });
    // nothing left for another pass
    expect(await finishCreditNoteRefunds(t.app.ctx, t.app.log, 0)).toBe(0);
  });
});
