import { describe, expect, it } from 'vitest';
import { activeCustomer, newCustomer } from '../../billing-service/test/helpers/api-fixtures.js';
import { refusalOf, signInToPortal, portalCaptureTest, type PortalBrowser } from './helpers/portal-session.js';

const env = portalCaptureTest();

const longer = (max: number) => 'x'.repeat(max + 1);

async function expectTooLong(portal: PortalBrowser, method: 'PUT' | 'POST', url: string, body: Record<string, unknown>, key: string) {
  const refusal = refusalOf(await portal.call(method, url, body), 400);
  expect(refusal).toEqual({ Key: key, Code: 'value_invalid' });
}

describe('every portal write checks lengths as the customer schema does (400 with the field, never a 500)', () => {
  it('contact: each field one character past its limit is refused by name; at the limit it is kept', async () => {
    const customerId = await newCustomer(env.t.billing);
    const portal = await signInToPortal(env.t.billing, env.app, customerId);
    await expectTooLong(portal, 'PUT', '/portal/api/contact', { firstName: longer(50) }, 'firstName');
    await expectTooLong(portal, 'PUT', '/portal/api/contact', { lastName: longer(50) }, 'lastName');
    await expectTooLong(portal, 'PUT', '/portal/api/contact', { companyName: longer(50) }, 'companyName');
    await expectTooLong(portal, 'PUT', '/portal/api/contact', { primaryPhone: longer(50) }, 'primaryPhone');
    await expectTooLong(portal, 'PUT', '/portal/api/contact', { primaryEmail: `${'a'.repeat(244)}@example.com` }, 'primaryEmail');
    // 51 to 100 characters answered 500 before (the portal allowed 100, the customer schema 50).
    await expectTooLong(portal, 'PUT', '/portal/api/contact', { firstName: 'A'.repeat(99) }, 'firstName');
    const atLimit = await portal.call('PUT', '/portal/api/contact', { firstName: 'F'.repeat(50), companyName: 'C'.repeat(50) });
    expect(atLimit.statusCode, atLimit.body).toBe(200);
    expect((await env.t.billing.call('GET', `/v1/customers/${customerId}`)).json()).toMatchObject({
      firstName: 'F'.repeat(50),
      companyName: 'C'.repeat(50),
    });
  });

  it('billing address, cancellation reason and a payment challenge id: past their limits, 400 by field', async () => {
    const { customerId, subscriptionIds } = await activeCustomer(env.t.billing);
    const subscriptionId = subscriptionIds[0]!;
    const portal = await signInToPortal(env.t.billing, env.app, customerId);
    for (const [field, max] of [
      ['line1', 60],
      ['line2', 60],
      ['city', 50],
      ['postalZip', 10],
      ['stateId', 10],
    ] as const)
      await expectTooLong(portal, 'PUT', '/portal/api/billing-address', { [field]: longer(max) }, field);
    await expectTooLong(
      portal,
      'POST',
      `/portal/api/subscriptions/${subscriptionId}/cancel`,
      { mode: 'periodEnd', reason: longer(500) },
      'reason',
    );
    await expectTooLong(portal, 'POST', '/portal/api/pay', { authenticatedBy: longer(200) }, 'authenticatedBy');
    const fits = await portal.call('PUT', '/portal/api/billing-address', {
      line1: 'L'.repeat(60),
      city: 'Paris',
      postalZip: '7'.repeat(10),
    });
    expect(fits.statusCode, fits.body).toBe(200);
  });
});
