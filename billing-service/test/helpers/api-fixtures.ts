/**
 * The request helpers and fixed values the API tests share: creating customers
 * and subscriptions through the API, reading them back, the lifecycle requests,
 * card bodies and the demo catalogue's plan frequencies. Each helper fails the
 * test on an unexpected status, so a test reads as its own assertions.
 */
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { z } from 'zod';
import type { CustomerOverviewResponse, CustomerResponse } from '../../src/customers/schemas.js';
import type { SubscriptionResponse } from '../../src/subscriptions/schemas.js';
import { BASE_URL, type TestAccount, type TestApp } from './test-app.js';

/** Demo catalogue frequency ids (catalog/demo-catalog.json). */
export const BASIC_MONTHLY = 11;
export const BASIC_YEARLY = 12;
export const PRO_MONTHLY = 21;

/** The base of every `uri` in an answer. */
export const API_BASE = `${BASE_URL}/v1`;

/** One day in milliseconds. */
export const DAY = 86_400_000;

/** The three flags a real (not previewed) activation needs. */
export const ACTIVATION_FLAGS = { activateAllSubscriptions: true, activateAllDraftPurchases: false, temporarilyDisableAutoPost: false };

/** A billing address in Ontario, for a customer-create body (GST + HST). */
export const ONTARIO_BILLING = { billing: { country: 'CA', state: 'ON' } };

export type CustomerBody = z.infer<typeof CustomerResponse>;
export type CustomerOverviewBody = z.infer<typeof CustomerOverviewResponse>;
export type SubscriptionBody = z.infer<typeof SubscriptionResponse>;

function as(account?: TestAccount) {
  return account ? { as: account } : {};
}

/** Creates a customer through the API and returns the body; fails the test on anything but 200. */
export async function createCustomer(t: TestApp, body: Record<string, unknown> = {}, account?: TestAccount): Promise<CustomerBody> {
  const res = await t.call('POST', '/v1/customers', body, as(account));
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** Creates a customer through the API and returns its id; fails the test on anything but 200. */
export async function newCustomer(t: TestApp, body: Record<string, unknown> = {}, account?: TestAccount): Promise<number> {
  return (await createCustomer(t, body, account)).id;
}

/** Creates a subscription through the API and returns the body; fails the test on anything but 200. */
export async function createSubscription(t: TestApp, body: Record<string, unknown>, account?: TestAccount): Promise<SubscriptionBody> {
  const res = await t.call('POST', '/v1/subscriptions', body, as(account));
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** A Draft subscription of the customer to one plan frequency (BASIC monthly unless given); returns its id. */
export async function newSubscription(
  t: TestApp,
  customerId: number,
  planFrequencyId = BASIC_MONTHLY,
  account?: TestAccount,
): Promise<number> {
  return (await createSubscription(t, { customerId, planFrequencyId }, account)).id;
}

export async function readCustomer(t: TestApp, id: number, account?: TestAccount): Promise<CustomerBody> {
  const res = await t.call('GET', `/v1/customers/${id}`, undefined, as(account));
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

export async function readOverview(t: TestApp, id: number, account?: TestAccount): Promise<CustomerOverviewBody> {
  const res = await t.call('GET', `/v1/customers/${id}/overview`, undefined, as(account));
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

export async function readSubscription(t: TestApp, id: number, account?: TestAccount): Promise<SubscriptionBody> {
  const res = await t.call('GET', `/v1/subscriptions/${id}`, undefined, as(account));
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

export async function listInvoices(t: TestApp, customerId: number, account?: TestAccount) {
  const res = await t.call('GET', `/v1/Customers/${customerId}/Invoices?pageSize=1000`, undefined, as(account));
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Array<Record<string, any>>;
}

export function activate(
  t: TestApp,
  customerId: number,
  flags: Record<string, unknown> = ACTIVATION_FLAGS,
  query = '',
  account?: TestAccount,
) {
  return t.call('POST', `/v1/customeractivation${query}`, { customerId, ...flags }, as(account));
}

/** A customer with one BASIC monthly subscription (or the given frequencies), activated through the API. */
export async function activeCustomer(
  t: TestApp,
  options: { body?: Record<string, unknown>; frequencies?: number[]; account?: TestAccount } = {},
) {
  const customerId = await newCustomer(t, options.body ?? {}, options.account);
  const subscriptionIds: number[] = [];
  for (const f of options.frequencies ?? [BASIC_MONTHLY]) subscriptionIds.push(await newSubscription(t, customerId, f, options.account));
  const res = await activate(t, customerId, ACTIVATION_FLAGS, '?view=sideeffects', options.account);
  expect(res.statusCode, res.body).toBe(200);
  return { customerId, subscriptionIds, invoices: res.json().invoices as Array<Record<string, any>> };
}

/** A customer activated on BASIC monthly: one posted invoice (charge + setup fee; no tax without an address). */
export async function customerWithInvoice(
  t: TestApp,
  body: Record<string, unknown> = {},
): Promise<{ customerId: number; invoiceId: number; total: number }> {
  const { customerId, invoices } = await activeCustomer(t, { body });
  const invoice = invoices[0]!;
  return { customerId, invoiceId: invoice.id, total: invoice.invoiceAmount };
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

/** The Visa test card of Ada Lovelace, 12/30, cvv 123: the card fields of a credit-card request. */
export const TEST_CARD = {
  cardNumber: '4242424242424242',
  firstName: 'Ada',
  lastName: 'Lovelace',
  expirationMonth: 12,
  expirationYear: 30,
  cvv: '123',
};

/** The card fields of a credit-card request: TEST_CARD with the given fields replaced (or added). */
export function cardBody<O extends Record<string, unknown>>(overrides: O = {} as O): Omit<typeof TEST_CARD, keyof O> & O {
  return { ...TEST_CARD, ...overrides };
}

/** The value of one series in a Prometheus text exposition, or undefined when it is absent. */
export function metricSample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** The rate-limit headers of a response (X-Rate-Limit-* and Retry-After). */
export function rateLimitHeaders(res: LightMyRequestResponse): string[] {
  return Object.keys(res.headers).filter((h) => h.startsWith('x-rate-limit') || h === 'retry-after');
}
