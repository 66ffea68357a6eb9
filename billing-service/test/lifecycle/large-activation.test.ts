import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIVATION_FLAGS, BASIC_MONTHLY, activate, listInvoices, newCustomer, readSubscription } from '../helpers/api-fixtures.js';
import { startTestApp, testCatalog, type TestApp } from '../helpers/test-app.js';

/** More Draft subscriptions than one statement could bind as separate parameters (PostgreSQL stops at 65,535). */
const SUBSCRIPTIONS = 2_400;

let t: TestApp;
beforeAll(async () => {
  // Room for the 2,400 creations within a minute.
  t = await startTestApp({ catalog: testCatalog({ rateLimits: { perMinute: 10_000, perDay: 100_000 } }) });
});
afterAll(async () => t?.close());

describe('a customer with thousands of Draft subscriptions', () => {
  it('activates with 200 and one invoice charging every subscription', async () => {
    const customerId = await newCustomer(t);
    const ids: number[] = [];
    for (let start = 0; start < SUBSCRIPTIONS; start += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, SUBSCRIPTIONS - start) }, () =>
          t.call('POST', '/v1/subscriptions', { customerId, planFrequencyId: BASIC_MONTHLY }),
        ),
      );
      for (const res of batch) {
        expect(res.statusCode, res.body).toBe(200);
        ids.push(res.json().id);
      }
    }
    const preview = await activate(t, customerId, {}, '?preview=true');
    expect(preview.statusCode, preview.body).toBe(200);

    const res = await activate(t, customerId, ACTIVATION_FLAGS);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().status).toBe('Active');
    const invoices = await listInvoices(t, customerId);
    expect(invoices).toHaveLength(1);
    // Each subscription: 19.99 for the month plus the 10.00 setup fee (no taxes at the default address).
    expect(new Decimal(invoices[0]!.subtotal).toString()).toBe(new Decimal('29.99').times(SUBSCRIPTIONS).toString());
    expect(invoices[0]!.invoiceAmount).toBe(preview.json().invoicePreview.total);
    expect(invoices[0]!.status).toBe('Posted');
    for (const id of [ids[0]!, ids[1_234]!, ids[SUBSCRIPTIONS - 1]!]) expect((await readSubscription(t, id)).status).toBe('Active');
  }, 300_000);
});
