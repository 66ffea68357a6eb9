import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

describe('authentication', () => {
  it('accepts the raw private key after Basic', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/customers', headers: { authorization: `Basic ${t.account.apiKey}` } });
    expect(res.statusCode).toBe(200);
  });

  it('accepts the standard base64 of "key:" as HTTP clients send it', async () => {
    const encoded = Buffer.from(`${t.account.apiKey}:`).toString('base64');
    const res = await t.app.inject({ method: 'GET', url: '/v1/customers', headers: { authorization: `Basic ${encoded}` } });
    expect(res.statusCode).toBe(200);
  });

  it('answers 401 without a key, naming what to send', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/customers' });
    expect(res.statusCode).toBe(401);
    expect(errorsOf(res)[0]).toMatchObject({ Key: 'Api Error' });
  });

  it('answers 401 for an unknown key', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/v1/customers',
      headers: { authorization: 'Basic sk_not_a_real_key_000000000000' },
    });
    expect(res.statusCode).toBe(401);
  });

  it.each(['Bearer abc', 'Basic', 'Basic two words', 'Basic <script>', 'sk_live_without_scheme'])(
    'answers 400 "key not in correct format" for the header %j',
    async (header) => {
      const res = await t.app.inject({ method: 'GET', url: '/v1/customers', headers: { authorization: header } });
      expect(res.statusCode).toBe(400);
      expect(errorsOf(res)).toEqual([{ Key: 'Api Error', Value: 'key not in correct format', Code: 'unauthenticated' }]);
    },
  );

  it('refuses the public key on the private API', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/customers', headers: { authorization: `Basic ${t.account.publicApiKey}` } });
    expect(res.statusCode).toBe(401);
    expect(errorsOf(res)[0]!.Value).toMatch(/public API key/);
  });

  it("never lets one account reach another account's customer (404, not 403)", async () => {
    const created = await t.call('POST', '/v1/customers', { firstName: 'Mine' });
    expect(created.statusCode).toBe(200);
    const other = await t.newAccount();
    const res = await t.call('GET', `/v1/customers/${created.json().id}`, undefined, { as: other });
    expect(res.statusCode).toBe(404);
    const list = await t.call('GET', '/v1/customers', undefined, { as: other });
    expect(list.json()).toEqual([]);
  });

  it('records x-audit-source (default API) in the audit log with what changed', async () => {
    const labelled = await t.call('POST', '/v1/customers', { firstName: 'Audited' }, { headers: { 'x-audit-source': 'Checkout widget' } });
    const plain = await t.call('POST', '/v1/customers', { firstName: 'Plain' });
    const rows = await t.database.db
      .selectFrom('auditLog')
      .select(['entityId', 'source', 'action', 'changes', 'actor'])
      .where('entityType', '=', 'Customer')
      .where('entityId', 'in', [labelled.json().id, plain.json().id])
      .orderBy('entityId')
      .execute();
    expect(rows.map((r) => r.source)).toEqual(['Checkout widget', 'API']);
    expect(rows[0]).toMatchObject({ action: 'create', actor: 'private API key', changes: { firstName: 'Audited' } });
  });
});
