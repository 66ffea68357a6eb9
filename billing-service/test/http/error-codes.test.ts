import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/http/error-codes.js';
import { createSubscription, newCustomer, BASIC_MONTHLY } from '../helpers/api-fixtures.js';
import { basicAuth, startTestApp, type TestApp } from '../helpers/test-app.js';

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

  it('a PUT that would move a subscription back to Draft is subscription_not_draft; an unknown id is not_found', async () => {
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
    expect(missing.json().Errors).toEqual([{ Key: 'Api Error', Value: expect.any(String), Code: 'not_found' }]);
  });

  // Every error answer, whoever makes it (the router, the body parser, zod, a service, the
  // idempotency plugin, authentication), carries a declared Code on each item.
  it('every item of a crawl of error answers carries a declared Code', async () => {
    const json = { 'content-type': 'application/json' };
    const auth = { authorization: basicAuth(t.account.apiKey) };
    const keyed = (key: string) => ({ headers: { 'idempotency-key': key } });
    const answers = {
      endpoint: await t.call('GET', '/v1/no-such-thing'),
      badJson: await t.app.inject({ method: 'POST', url: '/v1/customers', headers: { ...auth, ...json }, payload: '{"firstName":' }),
      contentType: await t.app.inject({
        method: 'POST',
        url: '/v1/customers',
        headers: { ...auth, 'content-type': 'text/plain' },
        payload: 'x',
      }),
      missingField: await t.call('POST', '/v1/subscriptions', {}),
      badEnum: await t.call('POST', '/v1/customers', { title: 'Sleeping' }),
      duplicateKey: await t.app.inject({
        method: 'POST',
        url: '/v1/customers',
        headers: { ...auth, ...json },
        payload: '{"firstName":"a","FirstName":"b"}',
      }),
      notFound: await t.call('GET', '/v1/customers/999999999'),
      childListOfUnknown: await t.call('GET', '/v1/customers/999999999/notes'),
      badQuery: await t.call('GET', '/v1/customers?query=noSuchField:1'),
      badPaging: await t.call('GET', '/v1/customers?pageSize=-1'),
      wrongMethod: await t.call('PATCH', '/v1/customers'),
      noKey: await t.app.inject({ method: 'GET', url: '/v1/customers' }),
      wrongKey: await t.app.inject({ method: 'GET', url: '/v1/customers', headers: { authorization: basicAuth('not-a-key') } }),
      keyReused: await (async () => {
        await t.call('POST', '/v1/customers', { firstName: 'Ada' }, keyed('crawl-1'));
        return t.call('POST', '/v1/customers', { firstName: 'Grace' }, keyed('crawl-1'));
      })(),
      keyTooLong: await t.call('POST', '/v1/customers', {}, keyed('k'.repeat(256))),
    };
    const seen: Record<string, unknown[]> = {};
    for (const [name, answer] of Object.entries(answers)) {
      expect(answer.statusCode, `${name}: ${answer.body}`).toBeGreaterThanOrEqual(400);
      const errors = answer.json().Errors as Array<{ Code?: string }>;
      expect(errors.length, name).toBeGreaterThan(0);
      for (const error of errors) expect(codes, `${name}: ${JSON.stringify(error)}`).toContain(error.Code);
      seen[name] = errors.map((e) => e.Code);
    }
    expect(seen).toMatchObject({
      endpoint: ['endpoint_not_found'],
      badJson: ['request_malformed'],
      contentType: ['request_malformed'],
      missingField: expect.arrayContaining(['value_required']),
      badEnum: ['value_invalid'],
      duplicateKey: ['value_invalid'],
      notFound: ['not_found'],
      childListOfUnknown: ['not_found'],
      badQuery: ['request_malformed'],
      badPaging: ['request_malformed'],
      wrongMethod: ['method_not_allowed'],
      noKey: ['unauthenticated'],
      wrongKey: ['unauthenticated'],
      keyReused: ['idempotency_key_reused'],
      keyTooLong: ['value_invalid'],
    });
  });
});
