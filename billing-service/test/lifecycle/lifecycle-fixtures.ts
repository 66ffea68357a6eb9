import { expect } from 'vitest';
import type { Caller } from '../../src/http/auth.js';
import { addLedgerEntry } from '../../src/ledger/entries.js';
import { money } from '../../src/money/money.js';
import type { TestAccount, TestApp } from '../helpers/test-app.js';

/** Demo catalogue frequency ids (catalog/demo-catalog.json). */
export const BASIC_MONTHLY = 11;
export const BASIC_YEARLY = 12;
export const PRO_MONTHLY = 21;

/** The three flags a real (not previewed) activation needs. */
export const ACTIVATION_FLAGS = { activateAllSubscriptions: true, activateAllDraftPurchases: false, temporarilyDisableAutoPost: false };

/** What the lifecycle services take as the caller, for calls with a fixed `now` through `t.app.ctx`. */
export function callerOf(account: TestAccount): Caller {
  return { accountId: account.accountId, keyKind: 'private', auditSource: 'API', rateLimits: { perMinute: 1000, perDay: 180000 }, keyHash: 'x' };
}

function as(account?: TestAccount) {
  return account ? { as: account } : {};
}

export async function newCustomer(t: TestApp, body: Record<string, unknown> = {}, account?: TestAccount): Promise<number> {
  const res = await t.call('POST', '/v1/customers', body, as(account));
  expect(res.statusCode, res.body).toBe(200);
  return res.json().id;
}

export async function newSubscription(t: TestApp, customerId: number, planFrequencyId = BASIC_MONTHLY, account?: TestAccount): Promise<number> {
  const res = await t.call('POST', '/v1/subscriptions', { customerId, planFrequencyId }, as(account));
  expect(res.statusCode, res.body).toBe(200);
  return res.json().id;
}

export async function readCustomer(t: TestApp, id: number, account?: TestAccount) {
  const res = await t.call('GET', `/v1/customers/${id}`, undefined, as(account));
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

export async function readOverview(t: TestApp, id: number, account?: TestAccount) {
  const res = await t.call('GET', `/v1/customers/${id}/overview`, undefined, as(account));
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

export async function readSubscription(t: TestApp, id: number, account?: TestAccount) {
  const res = await t.call('GET', `/v1/subscriptions/${id}`, undefined, as(account));
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

export async function listInvoices(t: TestApp, customerId: number, account?: TestAccount) {
  const res = await t.call('GET', `/v1/Customers/${customerId}/Invoices?pageSize=1000`, undefined, as(account));
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Array<Record<string, any>>;
}

export function activate(t: TestApp, customerId: number, flags: Record<string, unknown> = ACTIVATION_FLAGS, query = '', account?: TestAccount) {
  return t.call('POST', `/v1/customeractivation${query}`, { customerId, ...flags }, as(account));
}

/** A customer with one BASIC monthly subscription (or the given frequencies), activated through the API. */
export async function activeCustomer(t: TestApp, options: { body?: Record<string, unknown>; frequencies?: number[]; account?: TestAccount } = {}) {
  const customerId = await newCustomer(t, options.body ?? {}, options.account);
  const subscriptionIds: number[] = [];
  for (const f of options.frequencies ?? [BASIC_MONTHLY]) subscriptionIds.push(await newSubscription(t, customerId, f, options.account));
  const res = await activate(t, customerId, ACTIVATION_FLAGS, '?view=sideeffects', options.account);
  expect(res.statusCode, res.body).toBe(200);
  return { customerId, subscriptionIds, invoices: res.json().invoices as Array<Record<string, any>> };
}

export function hold(t: TestApp, customerId: number, account?: TestAccount) {
  return t.call('POST', `/v1/customerhold/${customerId}`, undefined, as(account));
}

export function unhold(t: TestApp, customerId: number, body: Record<string, unknown>, account?: TestAccount) {
  return t.call('POST', '/v1/customers/unhold', { customerId, ...body }, as(account));
}

export function cancel(t: TestApp, customerId: number, cancellationOption: unknown, account?: TestAccount) {
  return t.call('POST', '/v1/customercancellation', { customerId, cancellationOption }, as(account));
}

export function uncancel(t: TestApp, customerId: number, account?: TestAccount) {
  return t.call('POST', `/v1/customers/uncancel/${customerId}`, undefined, as(account));
}

/** A deposit: a payment on the customer's ledger that no invoice has used yet. */
export async function deposit(t: TestApp, customerId: number, amount: string, account: TestAccount = t.account): Promise<number> {
  return addLedgerEntry(t.database.db, { accountId: account.accountId, customerId, entryType: 'payment', amount: money(amount), description: 'deposit' });
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

export function expectError(res: { statusCode: number; json(): any; body: string }, status: number, entry?: { Key?: string; Value?: string | RegExp }) {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json();
  expect(body.HttpStatusCode).toBe(status);
  expect(typeof body.ErrorId).toBe('number');
  if (entry) {
    const matching = body.Errors.filter(
      (e: { Key: string; Value: string }) =>
        (entry.Key === undefined || e.Key === entry.Key) &&
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
