import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCaptureToken, spendCaptureGrant } from '../../src/capture-tokens/service.js';
import { errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const newCustomer = async () => (await t.call('POST', '/v1/customers', {})).json().id as number;

describe('POST /v1/captureTokens', () => {
  it('mints a token for one customer, shown once and stored only as a hash', async () => {
    const customerId = await newCustomer();
    const before = Date.now();
    const res = await t.call('POST', '/v1/captureTokens', { customerId, maxCollectionAmount: 29.99 });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ customerId, maxCollectionAmount: 29.99 });
    expect(body.token).toMatch(/^ct_[A-Za-z0-9_-]{43}$/);
    const expires = Date.parse(body.expiresTimestamp);
    expect(expires - before).toBeGreaterThanOrEqual(899_000);
    expect(expires - before).toBeLessThanOrEqual(901_000);
    const rows = await t.database.db.selectFrom('captureTokens').selectAll().where('customerId', '=', customerId).execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(body.token);
  });

  it('refuses what it cannot honour, keyed on the field', async () => {
    const customerId = await newCustomer();
    const tooLong = await t.call('POST', '/v1/captureTokens', { customerId, expiresInSeconds: 3601 });
    expect(tooLong.statusCode).toBe(400);
    expect(errorsOf(tooLong)[0]!.Key).toBe('expiresInSeconds');
    const tooFine = await t.call('POST', '/v1/captureTokens', { customerId, maxCollectionAmount: '10.001' });
    expect(tooFine.statusCode).toBe(400);
    expect(errorsOf(tooFine)[0]!.Key).toBe('maxCollectionAmount');
    expect((await t.call('POST', '/v1/captureTokens', { customerId: 987654 })).statusCode).toBe(404);
    const other = await t.newAccount();
    expect((await t.call('POST', '/v1/captureTokens', { customerId }, { as: other })).statusCode).toBe(404);
  });

  it('serves its customer once, until it expires', async () => {
    const customerId = await newCustomer();
    const { token } = (await t.call('POST', '/v1/captureTokens', { customerId, expiresInSeconds: 60 })).json();
    const db = t.database.db;
    const other = await newCustomer();
    await expect(checkCaptureToken(db, t.account.accountId, token, other)).rejects.toMatchObject({ kind: 'invalid' });
    await expect(checkCaptureToken(db, t.account.accountId, 'ct_forged', customerId)).rejects.toMatchObject({ kind: 'invalid' });
    const stranger = await t.newAccount();
    await expect(checkCaptureToken(db, stranger.accountId, token, customerId)).rejects.toMatchObject({ kind: 'invalid' });
    await expect(checkCaptureToken(db, t.account.accountId, token, customerId, new Date(Date.now() + 61_000))).rejects.toMatchObject({
      kind: 'invalid',
    });

    const grant = await checkCaptureToken(db, t.account.accountId, token, customerId);
    expect(grant).toMatchObject({ customerId, maxCollectionAmount: null });
    // Two captures racing with one token: one spends it, the other is refused.
    const results = await Promise.allSettled([
      db.transaction().execute((trx) => spendCaptureGrant(trx, grant)),
      db.transaction().execute((trx) => spendCaptureGrant(trx, grant)),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    await expect(checkCaptureToken(db, t.account.accountId, token, customerId)).rejects.toMatchObject({ kind: 'invalid' });
  });
});
