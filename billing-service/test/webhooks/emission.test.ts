import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBillingClock } from '../../src/lifecycle/billing-clock.js';
import { WebhookDeliveryWorker } from '../../src/webhooks/delivery-worker.js';
import { ACTIVATION_FLAGS, TEST_CARD, activate, newCustomer, newSubscription } from '../helpers/api-fixtures.js';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.js';
import { startReceiver } from './receiver.js';

/** What the service itself emits, end to end: requests and the billing clock, delivered and verified. */

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let account: TestAccount;
let secret: string;
beforeAll(async () => {
  t = await startTestApp({ app: { webhooks: { allowHttp: true, allowPrivate: true }, webhookWorker: false } });
  receiver = await startReceiver();
  account = await t.newAccount();
  const hook = await t.call('POST', '/v1/webhookEndpoints', { url: receiver.url('/hooks'), eventTypes: ['*'] }, { as: account });
  expect(hook.statusCode, hook.body).toBe(200);
  secret = hook.json().secret;
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

const worker = () => new WebhookDeliveryWorker(t.database.db, { allowHttp: true, allowPrivate: true, timeoutMs: 2_000 }, t.app.log);

/** Delivers what is due and returns the verified events received since `from`. */
async function delivered(from: number) {
  while ((await worker().runDue(new Date(Date.now() + 1000))) > 0);
  return receiver.received
    .slice(from)
    .map((r) => new Webhook(secret).verify(r.body, r.headers) as { id: string; type: string; accountId: number; data: any });
}

describe('events the service emits', () => {
  it('tells of a checkout: customer, subscription, activation, invoice, card, payment, paid invoice', async () => {
    const from = receiver.received.length;
    const customerId = await newCustomer(t, {}, account);
    const subscriptionId = await newSubscription(t, customerId, 11, account);
    const card = await t.call('POST', '/v1/paymentmethods/creditcard', { customerId, ...TEST_CARD }, { as: account });
    expect(card.statusCode, card.body).toBe(200);
    expect((await activate(t, customerId, ACTIVATION_FLAGS, '', account)).statusCode).toBe(200);
    const paid = await t.call(
      'POST',
      '/v1/payments',
      { customerId, amount: 29.99, paymentMethod: 'CreditCard', useDefaultPaymentMethod: true },
      { as: account },
    );
    expect(paid.statusCode, paid.body).toBe(200);

    const events = await delivered(from);
    expect(events.map((e) => e.type)).toEqual([
      'customer.created',
      'subscription.created',
      'paymentMethod.created',
      'customer.activated',
      'invoice.posted',
      'payment.succeeded',
      'invoice.paid',
    ]);
    expect(events.every((e) => e.accountId === account.accountId)).toBe(true);
    const byType = Object.fromEntries(events.map((e) => [e.type, e.data]));
    // The resource as the API returns it.
    expect(byType['customer.created']).toMatchObject({ id: customerId, status: 'Draft' });
    expect(byType['customer.activated']).toMatchObject({ id: customerId, status: 'Active' });
    expect(byType['subscription.created']).toMatchObject({ id: subscriptionId, customerId });
    expect(byType['paymentMethod.created']).toMatchObject({ id: card.json().id, maskedCardNumber: '************4242' });
    expect(byType['invoice.posted']).toMatchObject({ customerId, invoiceAmount: 29.99, outstandingBalance: 29.99 });
    expect(byType['payment.succeeded']).toMatchObject({ paymentActivityId: paid.json().paymentActivityId, amount: 29.99 });
    expect(byType['invoice.paid']).toMatchObject({ customerId, status: 'Paid', outstandingBalance: 0 });
  });

  it('sends customer.created with the customer exactly as the create answered it', async () => {
    const from = receiver.received.length;
    const created = await t.call(
      'POST',
      '/v1/customers',
      { firstName: 'Ada', customerReference: { reference1: 'r1' }, customerAcquisition: { source: 'ad' } },
      { as: account },
    );
    expect(created.statusCode, created.body).toBe(200);
    const events = (await delivered(from)).filter((e) => e.type === 'customer.created');
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toEqual(created.json());
  });

  it('tells of the billing clock: renewal, failed collection, overdue, suspension', async () => {
    const at = (date: string) => new Date(`${date}T12:00:00Z`);
    const customerId = await newCustomer(t, {}, account);
    await newSubscription(t, customerId, 11, account);
    const card = await t.call(
      'POST',
      '/v1/paymentmethods/creditcard',
      { customerId, ...TEST_CARD, cardNumber: '4000000000000341' },
      { as: account },
    );
    expect(card.statusCode, card.body).toBe(200);
    const setting = (await t.call('GET', `/v1/customerbillingsetting/${customerId}`, undefined, { as: account })).json();
    expect((await t.call('PUT', '/v1/customerbillingsetting', { ...setting, autoCollect: true }, { as: account })).statusCode).toBe(200);
    const { activateCustomer } = await import('../../src/lifecycle/activation.js');
    const { callerOf } = await import('../lifecycle/lifecycle-fixtures.js');
    await activateCustomer(
      t.app.ctx,
      callerOf(account),
      { customerId, ...ACTIVATION_FLAGS },
      { preview: false, sideEffects: false, now: at('2026-01-05') },
    );
    const from = receiver.received.length;
    await runBillingClock(t.app.ctx, at('2026-02-05'));
    await runBillingClock(t.app.ctx, at('2026-02-14'));
    const events = (await delivered(from)).filter((e) => e.data?.customerId === customerId || e.data?.id === customerId);
    const types = events.map((e) => e.type);
    expect(types).toContain('subscription.renewed');
    expect(types).toContain('payment.failed');
    expect(types).toContain('invoice.overdue');
    expect(types).toContain('customer.suspended');
    expect(types.filter((x) => x === 'customer.suspended')).toHaveLength(1);
  });
});
