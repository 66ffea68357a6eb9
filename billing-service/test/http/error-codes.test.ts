import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/http/error-codes.js';
import { createSubscription, newCustomer, BASIC_MONTHLY } from '../helpers/api-fixtures.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

// Error codes: declared once (src/http/error-codes.ts), documented in the README's table and the
// OpenAPI document, and carried by the refusals a client acts on.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const codes = Object.keys(ERROR_CODES).sort();

describe('error codes', () => {
  it("the README's table lists exactly the declared codes", () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('### Error codes'), readme.indexOf('\n## ', readme.indexOf('### Error codes')));
    const documented = [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]).sort();
    expect(documented).toEqual(codes);
  });

  it('the OpenAPI document gives the error body, with Code as an enum of the declared codes', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const item = doc.components.schemas.ErrorBody.properties.Errors.items;
    expect(item.required).toEqual(['Key', 'Value']);
    expect([...item.properties.Code.enum].sort()).toEqual(codes);
  });

  it('an unknown coupon is coupon_unknown and a coupon listed twice coupon_inapplicable, keyed on the coupon', async () => {
    const customerId = await newCustomer(t);
    const subscription = await createSubscription(t, { customerId, planFrequencyId: BASIC_MONTHLY });
    const unknown = await t.call('PUT', '/v1/subscriptions', { ...subscription, coupons: [{ code: 'NOPE' }] });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().Errors).toEqual([{ Key: 'coupons[0].code', Value: expect.any(String), Code: 'coupon_unknown' }]);
    const twice = await t.call('PUT', '/v1/subscriptions', { ...subscription, coupons: [{ code: 'WELCOME10' }, { code: 'welcome10' }] });
    expect(twice.json().Errors).toEqual([{ Key: 'coupons[1].code', Value: expect.any(String), Code: 'coupon_inapplicable' }]);
  });

  it('a PUT that would move a subscription back to Draft is subscription_not_draft; other refusals carry no code', async () => {
    const customerId = await newCustomer(t);
    const subscription = await createSubscription(t, { customerId, planFrequencyId: BASIC_MONTHLY });
    const activated = await t.call('POST', '/v1/customeractivation', {
      customerId,
      activateAllSubscriptions: true,
      activateAllDraftPurchases: false,
      temporarilyDisableAutoPost: false,
    });
    expect(activated.statusCode, activated.body).toBe(200);
    const back = await t.call('PUT', '/v1/subscriptions', { ...subscription, status: 'Draft' });
    expect(back.statusCode).toBe(400);
    expect(back.json().Errors).toEqual([{ Key: 'status', Value: expect.any(String), Code: 'subscription_not_draft' }]);
    const missing = await t.call('GET', '/v1/customers/999999999');
    expect(missing.json().Errors[0]).not.toHaveProperty('Code');
  });
});
