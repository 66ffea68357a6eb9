import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACTIVATION_FLAGS,
  BASIC_MONTHLY,
  activate,
  listInvoices,
  newCustomer,
  newSubscription,
  readCustomer,
} from '../helpers/api-fixtures.js';
import { errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const deposit = (customerId: number, amount: number) => t.call('POST', '/v1/payments', { customerId, amount, paymentMethod: 'Check' });

describe('activation with requireFullPayment (an extension of the spec)', () => {
  it('activates when the money the customer holds covers the first invoice', async () => {
    const customerId = await newCustomer(t);
    await newSubscription(t, customerId, BASIC_MONTHLY);
    expect((await deposit(customerId, 29.99)).statusCode).toBe(200);
    const res = await activate(t, customerId, { ...ACTIVATION_FLAGS, requireFullPayment: true }, '?view=sideeffects');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().invoices.map((i: { status: string }) => i.status)).toEqual(['Paid']);
  });

  it('refuses with 402, changing nothing, when a subscription was added after the payment', async () => {
    const customerId = await newCustomer(t);
    await newSubscription(t, customerId, BASIC_MONTHLY);
    expect((await deposit(customerId, 29.99)).statusCode).toBe(200);
    // Between the checkout's payment and its activation, a second subscription appears.
    await newSubscription(t, customerId, BASIC_MONTHLY);
    const res = await activate(t, customerId, { ...ACTIVATION_FLAGS, requireFullPayment: true });
    expect(res.statusCode).toBe(402);
    expect(errorsOf(res)).toEqual([
      { Key: 'requireFullPayment', Value: 'the customer holds 29.99, less than the 59.98 activation would post', Code: 'state_conflict' },
    ]);
    expect((await readCustomer(t, customerId)).status).toBe('Draft');
    expect(await listInvoices(t, customerId)).toEqual([]);
  });

  it('never activates unpaid, whichever way a racing subscription falls', async () => {
    const customerId = await newCustomer(t);
    await newSubscription(t, customerId, BASIC_MONTHLY);
    expect((await deposit(customerId, 29.99)).statusCode).toBe(200);
    const [a, b] = await Promise.all([
      activate(t, customerId, { ...ACTIVATION_FLAGS, requireFullPayment: true }),
      newSubscription(t, customerId, BASIC_MONTHLY).then(() => activate(t, customerId, { ...ACTIVATION_FLAGS, requireFullPayment: true })),
    ]);
    // Either the first activation ran before the second subscription (it activates, the second call
    // finds the customer Active: 400), or after it (both refused: 402). Never an unpaid activation.
    const outcomes = [a.statusCode, b.statusCode].sort().join(',');
    expect(['200,400', '402,402']).toContain(outcomes);
    const invoices = await listInvoices(t, customerId);
    expect(invoices.every((i) => i.outstandingBalance === 0)).toBe(true);
    expect((await readCustomer(t, customerId)).status).toBe(outcomes === '200,400' ? 'Active' : 'Draft');
  });
});
