import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newCustomer } from '../helpers/api-fixtures.js';
import { errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';

/** Found by the fuzz campaign: inputs that reached the database, or Fastify's own error body. */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const body = (text: string) => ({
  payload: text,
  headers: { authorization: `Basic ${t.account.apiKey}`, 'content-type': 'application/json' },
});

describe('one rule for every text field: storable Unicode', () => {
  it('refuses a lone surrogate in a note with 400 keyed on the field (it was a 500)', async () => {
    const customerId = await newCustomer(t);
    const res = await t.app.inject({ method: 'POST', url: '/v1/customernotes', ...body(`{"customerId":${customerId},"note":"\\ud800"}`) });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)).toEqual([{ Key: 'note', Value: 'must be valid Unicode text (a lone surrogate is not)', Code: 'value_invalid' }]);
    expect(await t.database.db.selectFrom('customerNotes').select('id').where('customerId', '=', customerId).execute()).toEqual([]);
  });

  it('refuses it in any other text field the same way, nested ones included', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/customers',
      ...body('{"firstName":"Ada","customerAcquisition":{"source":"x\\udc00y"}}'),
    });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)[0]!.Key).toBe('customerAcquisition.source');
    // A well-formed pair (an emoji) is fine.
    const emoji = await t.app.inject({ method: 'POST', url: '/v1/customers', ...body('{"firstName":"\\ud83d\\ude00"}') });
    expect(emoji.statusCode, emoji.body).toBe(200);
    expect(emoji.json().firstName).toBe('😀');
  });
});

describe('bodies nested deeper than any request needs', () => {
  it('are refused with 400, not a stack overflow (a 500), and cheaply', async () => {
    const customerId = await newCustomer(t);
    const deep = await t.app.inject({ method: 'POST', url: '/v1/customernotes', ...body(`${'['.repeat(6000)}${']'.repeat(6000)}`) });
    expect(deep.statusCode).toBe(400);
    const nested = await t.app.inject({
      method: 'POST',
      url: '/v1/customernotes',
      ...body(`{"customerId":${customerId},"note":"x","extra":${'{"a":'.repeat(100)}1${'}'.repeat(100)}}`),
    });
    expect(nested.statusCode).toBe(400);
    expect(errorsOf(nested)[0]!.Value).toMatch(/nested too deeply/);
  });
});

describe('errors Fastify answers before any route', () => {
  it('answers a path id over 100 characters with the spec error body', async () => {
    const res = await t.call('GET', `/v1/customers/${'9'.repeat(150)}`);
    expect(res.statusCode).toBe(414);
    expect(errorsOf(res)[0]!.Key).toBe('Api Error');
    expect(res.body).not.toContain('FST_ERR');
  });
});
