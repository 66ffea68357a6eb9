import { expect } from 'vitest';
import type { Caller } from '../../src/http/auth.js';
import { addLedgerEntry } from '../../src/ledger/entries.js';
import { money } from '../../src/money/money.js';
import type { TestAccount, TestApp } from '../helpers/test-app.js';

// Still named here for test/ledger-model (written elsewhere); the API helpers live in helpers/api-fixtures.ts.
export { ACTIVATION_FLAGS, BASIC_MONTHLY } from '../helpers/api-fixtures.js';

/** What the lifecycle services take as the caller, for calls with a fixed `now` through `t.app.ctx`. */
export function callerOf(account: TestAccount): Caller {
  return {
    accountId: account.accountId,
    keyKind: 'private',
    auditSource: 'API',
    rateLimits: { perMinute: 1000, perDay: 180000 },
    keyHash: 'x',
  };
}

/** A deposit: a payment on the customer's ledger that no invoice has used yet. */
export async function deposit(t: TestApp, customerId: number, amount: string, account: TestAccount = t.account): Promise<number> {
  return addLedgerEntry(t.database.db, {
    accountId: account.accountId,
    customerId,
    entryType: 'payment',
    amount: money(amount),
    description: 'deposit',
    effectiveAt: new Date(),
  });
}

export async function ledgerRows(t: TestApp, customerId: number) {
  return t.database.db.selectFrom('ledgerEntries').selectAll().where('customerId', '=', customerId).orderBy('id').execute();
}

export async function subscriptionRows(t: TestApp, customerId: number) {
  return t.database.db.selectFrom('subscriptions').selectAll().where('customerId', '=', customerId).orderBy('id').execute();
}

/** The customer's status as stored, for states no request leads to (Suspended). */
export async function setStoredStatus(t: TestApp, customerId: number, status: string) {
  await t.database.db.updateTable('customers').set({ status }).where('id', '=', customerId).execute();
}

export function expectError(
  res: { statusCode: number; json(): any; body: string },
  status: number,
  entry?: { Key?: string; Value?: string | RegExp; Code?: string },
) {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  expect(body.HttpStatusCode).toBe(status);
  expect(typeof body.ErrorId).toBe('number');
  if (entry) {
    const matching = body.Errors.filter(
      (e: { Key: string; Value: string; Code?: string }) =>
        (entry.Key === undefined || e.Key === entry.Key) &&
        (entry.Code === undefined || e.Code === entry.Code) &&
        (entry.Value === undefined || (typeof entry.Value === 'string' ? e.Value === entry.Value : entry.Value.test(e.Value))),
    );
    expect(matching, res.body).not.toHaveLength(0);
  }
  return body.Errors as Array<{ Key: string; Value: string }>;
}

/** YYYY-MM-DD of a Date (UTC). */
export function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** A UTC date `days` days from `from`. */
export function addDaysTo(from: string, days: number): string {
  const d = new Date(`${from}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return isoDate(d);
}
