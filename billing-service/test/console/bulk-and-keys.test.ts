import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/accounts/api-keys.js';
import { newCustomer } from '../helpers/api-fixtures.js';
import { basicAuth, startTestApp, type TestAccount, type TestApp } from '../helpers/test-app.js';
import { codesOf, consoleCall, firstOwner, invitedOperator, type ConsoleAgent } from './console-helpers.js';

/*
 * The console's bulk-job list (the API has none) and the owner's API keys: reading when they were rolled,
 * and rolling one (the old key refused at once on this instance, the new one working, audited as the operator).
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ app: { backgroundTasks: false } });
}, 60_000);
afterAll(async () => t?.close());

const submit = async (account: TestAccount, data: unknown[], reference: string) => {
  const res = await t.call('POST', '/v1/bulkPaymentSubmit', { accountUploadType: 'bulkPayment', data, reference }, { as: account });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().id as number;
};

describe('GET /console/api/bulk-jobs', () => {
  let account: TestAccount;
  let owner: ConsoleAgent;
  let viewer: ConsoleAgent;
  let older: number;
  let newer: number;

  beforeAll(async () => {
    account = await t.newAccount();
    owner = await firstOwner(t, 'bulk-owner@example.test', account);
    viewer = await invitedOperator(t, owner, 'bulk-viewer@example.test', 'viewer');
    const customerId = await newCustomer(t, {}, account);
    // Two valid records and one refused at submission (an unknown customer).
    older = await submit(
      account,
      [
        { customerId, reference: 'A-1', amount: 5, paymentMethod: 'Check' },
        { customerId, reference: 'A-2', amount: 6, paymentMethod: 'Check' },
        { customerId: 987654, reference: 'A-3', amount: 7, paymentMethod: 'Check' },
      ],
      'older',
    );
    newer = await submit(account, [{ customerId, reference: 'B-1', amount: 8, paymentMethod: 'Check' }], 'newer');
    const cancelled = await t.call('POST', `/v1/BulkApi/Cancel/${newer}`, undefined, { as: account });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    // Another account's job, never shown here.
    const other = await t.newAccount();
    await submit(other, [{ customerId: await newCustomer(t, {}, other), reference: 'X-1', amount: 9, paymentMethod: 'Check' }], 'other');
  }, 60_000);

  it('lists the account’s jobs newest first with their records counted by status, to a viewer', async () => {
    const res = await consoleCall(t, viewer, 'GET', '/console/api/bulk-jobs');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.total).toBe(2);
    expect(body.jobs.map((job: { id: number }) => job.id)).toEqual([newer, older]);
    expect(body.jobs[0]).toMatchObject({
      id: newer,
      status: 'Cancelled',
      reference: 'newer',
      counts: { Invalid: 0, Pending: 0, Processing: 0, Succeeded: 0, Failed: 0, Cancelled: 1 },
    });
    expect(body.jobs[0].completedAt).toEqual(expect.any(String));
    expect(body.jobs[1]).toMatchObject({
      id: older,
      status: 'Validated',
      reference: 'older',
      completedAt: null,
      counts: { Invalid: 1, Pending: 2, Processing: 0, Succeeded: 0, Failed: 0, Cancelled: 0 },
    });
    expect(new Date(body.jobs[1].createdAt).toISOString()).toBe(body.jobs[1].createdAt);
  });

  it('filters by status and pages', async () => {
    const validated = (await consoleCall(t, viewer, 'GET', '/console/api/bulk-jobs?status=Validated')).json();
    expect(validated.jobs.map((job: { id: number }) => job.id)).toEqual([older]);
    expect(validated.total).toBe(1);
    const second = (await consoleCall(t, viewer, 'GET', '/console/api/bulk-jobs?limit=1&offset=1')).json();
    expect(second.jobs.map((job: { id: number }) => job.id)).toEqual([older]);
    expect(second.total).toBe(2);
    const bad = await consoleCall(t, viewer, 'GET', '/console/api/bulk-jobs?status=Nope');
    expect(bad.statusCode).toBe(400);
  });

  it('needs a session', async () => {
    const res = await consoleCall(t, undefined, 'GET', '/console/api/bulk-jobs');
    expect(res.statusCode).toBe(401);
    expect(codesOf(res)).toEqual(['console_session_required']);
  });
});

describe('the API keys (owner)', () => {
  let account: TestAccount;
  let owner: ConsoleAgent;
  let billing: ConsoleAgent;

  beforeAll(async () => {
    account = await t.newAccount();
    owner = await firstOwner(t, 'keys-owner@example.test', account);
    billing = await invitedOperator(t, owner, 'keys-billing@example.test', 'billing');
  }, 60_000);

  const v1 = (key: string) => t.app.inject({ method: 'GET', url: '/v1/plans', headers: { authorization: basicAuth(key) } });

  it('lists the two keys, never rolled yet, and nothing secret', async () => {
    const res = await consoleCall(t, owner, 'GET', '/console/api/api-keys');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      keys: [
        { kind: 'private', rotatedAt: null },
        { kind: 'public', rotatedAt: null },
      ],
    });
  });

  it('refuses other roles and a roll without the CSRF token', async () => {
    for (const [method, url] of [
      ['GET', '/console/api/api-keys'],
      ['POST', '/console/api/api-keys/private/rotate'],
    ] as const) {
      const res = await consoleCall(t, billing, method, url);
      expect(res.statusCode, url).toBe(403);
      expect(codesOf(res)).toEqual(['console_role_forbidden']);
    }
    const noCsrf = await consoleCall(t, owner, 'POST', '/console/api/api-keys/private/rotate', undefined, { csrf: null });
    expect(noCsrf.statusCode).toBe(403);
    expect(codesOf(noCsrf)).toEqual(['csrf_token_invalid']);
    const unknownKind = await consoleCall(t, owner, 'POST', '/console/api/api-keys/secret/rotate');
    expect(unknownKind.statusCode).toBe(400);
    // Nothing was rolled: the key still works.
    expect((await v1(account.apiKey)).statusCode).toBe(200);
  });

  it('rolls the private key: the new one works at once, the old one is refused at once on this instance, audited', async () => {
    // The old key is in this instance's key cache (30 s) before it is rolled.
    expect((await v1(account.apiKey)).statusCode).toBe(200);
    const res = await consoleCall(t, owner, 'POST', '/console/api/api-keys/private/rotate');
    expect(res.statusCode, res.body).toBe(200);
    const rolled = res.json();
    expect(rolled.kind).toBe('private');
    expect(rolled.key).toMatch(/^sk_[0-9a-f]{48}$/);
    expect(rolled.key).not.toBe(account.apiKey);

    expect((await v1(rolled.key)).statusCode).toBe(200);
    const old = await v1(account.apiKey);
    expect(old.statusCode).toBe(401);
    // The public key is untouched.
    const publicKeyMatches = await t.database.db
      .selectFrom('accounts')
      .select('publicKeyRotatedAt')
      .where('id', '=', account.accountId)
      .executeTakeFirstOrThrow();
    expect(publicKeyMatches.publicKeyRotatedAt).toBeNull();

    const keys = (await consoleCall(t, owner, 'GET', '/console/api/api-keys')).json().keys;
    expect(keys[0]).toEqual({ kind: 'private', rotatedAt: rolled.rotatedAt });
    expect(keys[1]).toEqual({ kind: 'public', rotatedAt: null });

    const audit = await t.database.db
      .selectFrom('auditLog')
      .selectAll()
      .where('accountId', '=', account.accountId)
      .where('entityType', '=', 'Account')
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor: 'keys-owner@example.test', source: 'Console', entityId: account.accountId, action: 'update' });
    expect(audit[0]!.changes).toEqual({ privateKeyRotatedAt: [null, rolled.rotatedAt] });
    expect(JSON.stringify(audit[0]!.changes)).not.toContain(rolled.key);
  });

  it('rolls the public key: a pk_ key, the private one untouched', async () => {
    const res = await consoleCall(t, owner, 'POST', '/console/api/api-keys/public/rotate');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().key).toMatch(/^pk_[0-9a-f]{48}$/);
    const row = await t.database.db
      .selectFrom('accounts')
      .select(['publicKeyHash', 'publicKeyRotatedAt'])
      .where('id', '=', account.accountId)
      .executeTakeFirstOrThrow();
    expect(row.publicKeyRotatedAt).not.toBeNull();
    expect(row.publicKeyHash).toBe(hashApiKey(res.json().key));
    expect(row.publicKeyHash).not.toBe(hashApiKey(account.publicApiKey));
  });
});
