import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMAIL_TYPES, type Catalog } from '../../src/catalog/schema.js';
import { accountDefault, isEmailEnabled } from '../../src/email-preferences/enabled.js';
import { EMAIL_CATEGORY } from '../../src/email-preferences/service.js';
import { errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createCustomer } from '../helpers/api-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

interface Preference {
  emailType: string;
  enabled: boolean | null;
  accountDefault: boolean;
  emailCategory: string;
}

const CATEGORIES: Record<string, string[]> = {
  Customers: ['PasswordReset', 'CustomerActivation', 'CustomerCredentialCreate', 'CustomerCredentialPasswordReset', 'CustomerSuspend'],
  InvoicesAndStatements: [
    'InvoicePost',
    'InvoiceOverdue',
    'StatementNotification',
    'UpcomingBillingNotification',
    'DraftInvoice',
    'CreditNote',
  ],
  PaymentsAndRefunds: ['PaymentReceived', 'PaymentFailed', 'PaymentMethodUpdate', 'CreditCardExpiry', 'Refund', 'AuthenticationRequired'],
  Subscriptions: [
    'SubscriptionActivation',
    'SubscriptionCancellation',
    'PendingExpiryRenewalNotice',
    'SubscriptionChange',
    'UsageThresholdReached',
  ],
};

async function read(customerId: number) {
  const res = await t.call('GET', `/v1/customers/${customerId}/CustomerEmailPreferences`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { customerId: number; preferences: Preference[] };
}

function enabledOf(body: { preferences: Preference[] }): Record<string, boolean | null> {
  return Object.fromEntries(body.preferences.map((p) => [p.emailType, p.enabled]));
}

describe('GET /v1/customers/{customerId}/CustomerEmailPreferences', () => {
  it("lists all 22 types (the spec's 18, SubscriptionChange, AuthenticationRequired, CreditNote and UsageThresholdReached) in order, unset, with account defaults and categories", async () => {
    const customer = await createCustomer(t, { firstName: 'Mail' });
    const body = await read(customer.id);
    expect(body.customerId).toBe(customer.id);
    expect(body.preferences.map((p) => p.emailType)).toEqual([...EMAIL_TYPES]);
    expect(body.preferences).toHaveLength(22);
    for (const p of body.preferences) {
      expect(p.enabled).toBeNull();
      expect(CATEGORIES[p.emailCategory], p.emailType).toContain(p.emailType);
    }
    // The demo catalogue: InvoicePost true, DraftInvoice false; PasswordReset is not listed, so true.
    const byType = Object.fromEntries(body.preferences.map((p) => [p.emailType, p]));
    expect(byType.InvoicePost).toEqual({
      emailType: 'InvoicePost',
      enabled: null,
      accountDefault: true,
      emailCategory: 'InvoicesAndStatements',
    });
    expect(byType.DraftInvoice).toMatchObject({ accountDefault: false, emailCategory: 'InvoicesAndStatements' });
    expect(byType.PasswordReset).toMatchObject({ accountDefault: true, emailCategory: 'Customers' });
  });

  it('gives every type a category from the four the spec names', () => {
    expect(Object.keys(EMAIL_CATEGORY).sort()).toEqual([...EMAIL_TYPES].sort());
    expect(Object.values(CATEGORIES).flat().sort()).toEqual([...EMAIL_TYPES].sort());
    for (const [category, types] of Object.entries(CATEGORIES))
      for (const type of types) expect(EMAIL_CATEGORY[type as keyof typeof EMAIL_CATEGORY]).toBe(category);
  });

  it("answers 404 for an unknown customer and for another account's customer", async () => {
    const res = await t.call('GET', '/v1/customers/999999/CustomerEmailPreferences');
    expect(res.statusCode).toBe(404);
    expect(errorsOf(res)).toEqual([{ Key: 'Api Error', Value: expect.any(String), Code: 'not_found' }]);
    const theirs = await createCustomer(t, {}, await t.newAccount());
    const other = await t.call('GET', `/v1/customers/${theirs.id}/CustomerEmailPreferences`);
    expect(other.statusCode).toBe(404);
  });

  it('takes the path in any letter case', async () => {
    const customer = await createCustomer(t, {});
    const res = await t.call('GET', `/v1/Customers/${customer.id}/customeremailpreferences`);
    expect(res.statusCode).toBe(200);
  });
});

describe('PUT /v1/CustomerEmailPreferences', () => {
  it('replaces the whole set and returns every type; left-out types become null', async () => {
    const customer = await createCustomer(t, {});
    const first = await t.call('PUT', '/v1/CustomerEmailPreferences', {
      customerId: customer.id,
      preferences: [
        { emailType: 'InvoicePost', enabled: false },
        { emailType: 'DraftInvoice', enabled: true },
        { emailType: 'Refund', enabled: null },
      ],
    });
    expect(first.statusCode, first.body).toBe(200);
    const body = first.json();
    expect(body.customerId).toBe(customer.id);
    expect(body.preferences.map((p: Preference) => p.emailType)).toEqual([...EMAIL_TYPES]);
    expect(enabledOf(body)).toMatchObject({ InvoicePost: false, DraftInvoice: true, Refund: null, PaymentReceived: null });
    expect(await read(customer.id)).toEqual(body);

    const second = await t.call('PUT', '/v1/customeremailpreferences', {
      customerId: customer.id,
      preferences: [{ emailType: 'PaymentFailed', enabled: true }],
    });
    expect(second.statusCode, second.body).toBe(200);
    const after = enabledOf(await read(customer.id));
    expect(after).toEqual({ ...Object.fromEntries(EMAIL_TYPES.map((type) => [type, null])), PaymentFailed: true });

    const cleared = await t.call('PUT', '/v1/CustomerEmailPreferences', { customerId: customer.id, preferences: [] });
    expect(cleared.statusCode).toBe(200);
    expect(Object.values(enabledOf(await read(customer.id))).every((v) => v === null)).toBe(true);
  });

  it('accepts enabled as the strings "true", "false", "null" (and left out as null)', async () => {
    const customer = await createCustomer(t, {});
    const res = await t.call('PUT', '/v1/CustomerEmailPreferences', {
      customerId: customer.id,
      preferences: [
        { emailType: 'InvoicePost', enabled: 'false' },
        { emailType: 'PaymentReceived', enabled: 'true' },
        { emailType: 'InvoiceOverdue', enabled: 'null' },
        { emailType: 'PasswordReset', enabled: 'False' },
        { emailType: 'Refund' },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(enabledOf(res.json())).toMatchObject({
      InvoicePost: false,
      PaymentReceived: true,
      InvoiceOverdue: null,
      PasswordReset: false,
      Refund: null,
    });
  });

  it('takes back what a read returned, read-only fields included (read, modify, send back)', async () => {
    const customer = await createCustomer(t, {});
    const current = await read(customer.id);
    current.preferences[0]!.enabled = false;
    const res = await t.call('PUT', '/v1/CustomerEmailPreferences', current);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().preferences[0]).toMatchObject({ emailType: EMAIL_TYPES[0], enabled: false });
  });

  it('refuses an unknown e-mail type, keyed by its position', async () => {
    const customer = await createCustomer(t, {});
    const res = await t.call('PUT', '/v1/CustomerEmailPreferences', {
      customerId: customer.id,
      preferences: [
        { emailType: 'InvoicePost', enabled: true },
        { emailType: 'Newsletter', enabled: true },
      ],
    });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)).toEqual([{ Key: 'preferences[1].emailType', Value: expect.any(String), Code: 'value_invalid' }]);
  });

  it('refuses the same type twice, keyed on the second, and changes nothing', async () => {
    const customer = await createCustomer(t, {});
    const res = await t.call('PUT', '/v1/CustomerEmailPreferences', {
      customerId: customer.id,
      preferences: [
        { emailType: 'InvoicePost', enabled: true },
        { emailType: 'Refund', enabled: false },
        { emailType: 'InvoicePost', enabled: false },
      ],
    });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)).toEqual([{ Key: 'preferences[2].emailType', Value: expect.any(String), Code: 'value_invalid' }]);
    expect(Object.values(enabledOf(await read(customer.id))).every((v) => v === null)).toBe(true);
  });

  it('refuses an enabled value other than true, false or null', async () => {
    const customer = await createCustomer(t, {});
    for (const enabled of ['yes', 1, '']) {
      const res = await t.call('PUT', '/v1/CustomerEmailPreferences', {
        customerId: customer.id,
        preferences: [{ emailType: 'Refund', enabled }],
      });
      expect(res.statusCode, JSON.stringify(enabled)).toBe(400);
      expect(errorsOf(res).map((e) => e.Key)).toEqual(['preferences[0].enabled']);
    }
  });

  it('requires customerId and preferences', async () => {
    const res = await t.call('PUT', '/v1/CustomerEmailPreferences', {});
    expect(res.statusCode).toBe(400);
    expect(
      errorsOf(res)
        .map((e) => e.Key)
        .sort(),
    ).toEqual(['customerId', 'preferences']);
  });

  it("answers 404 for an unknown customer and for another account's customer", async () => {
    const unknown = await t.call('PUT', '/v1/CustomerEmailPreferences', { customerId: 999999, preferences: [] });
    expect(unknown.statusCode).toBe(404);
    expect(errorsOf(unknown)).toEqual([{ Key: 'Api Error', Value: expect.any(String), Code: 'not_found' }]);
    const other = await t.newAccount();
    const theirs = await createCustomer(t, {}, other);
    const res = await t.call('PUT', '/v1/CustomerEmailPreferences', {
      customerId: theirs.id,
      preferences: [{ emailType: 'Refund', enabled: false }],
    });
    expect(res.statusCode).toBe(404);
    const untouched = await t.call('GET', `/v1/customers/${theirs.id}/CustomerEmailPreferences`, undefined, { as: other });
    expect(enabledOf(untouched.json()).Refund).toBeNull();
  });

  it('records the change in the audit log as {type: [before, after]}', async () => {
    const customer = await createCustomer(t, {});
    await t.call('PUT', '/v1/CustomerEmailPreferences', {
      customerId: customer.id,
      preferences: [{ emailType: 'Refund', enabled: false }],
    });
    await t.call(
      'PUT',
      '/v1/CustomerEmailPreferences',
      { customerId: customer.id, preferences: [{ emailType: 'InvoicePost', enabled: true }] },
      { headers: { 'x-audit-source': 'Preference centre' } },
    );
    const rows = await t.database.db
      .selectFrom('auditLog')
      .select(['action', 'source', 'changes', 'accountId'])
      .where('entityType', '=', 'CustomerEmailPreferences')
      .where('entityId', '=', customer.id)
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { action: 'update', source: 'API', changes: { Refund: [null, false] }, accountId: t.account.accountId },
      {
        action: 'update',
        source: 'Preference centre',
        changes: { Refund: [false, null], InvoicePost: [null, true] },
        accountId: t.account.accountId,
      },
    ]);
  });

  it('keeps concurrent replacements of one customer consistent', async () => {
    const customer = await createCustomer(t, {});
    const bodies = EMAIL_TYPES.slice(0, 6).map((emailType) => ({
      customerId: customer.id,
      preferences: [
        { emailType, enabled: false },
        { emailType: 'Refund', enabled: true },
      ],
    }));
    const results = await Promise.all(bodies.map((b) => t.call('PUT', '/v1/CustomerEmailPreferences', b)));
    for (const r of results) expect(r.statusCode, r.body).toBe(200);
    const final = enabledOf(await read(customer.id));
    expect(final.Refund).toBe(true);
    expect(Object.values(final).filter((v) => v === false)).toHaveLength(1);
  });
});

describe('isEmailEnabled', () => {
  it("uses the customer's choice when set, else the account default (true for a type the catalogue does not list)", async () => {
    const customer = await createCustomer(t, {});
    const { db } = t.database;
    const catalog = t.catalog;
    expect(await isEmailEnabled(db, catalog, customer.id, 'InvoicePost')).toBe(true);
    expect(await isEmailEnabled(db, catalog, customer.id, 'DraftInvoice')).toBe(false);
    expect(await isEmailEnabled(db, catalog, customer.id, 'CreditCardExpiry')).toBe(true);

    await t.call('PUT', '/v1/CustomerEmailPreferences', {
      customerId: customer.id,
      preferences: [
        { emailType: 'InvoicePost', enabled: false },
        { emailType: 'DraftInvoice', enabled: true },
        { emailType: 'CreditCardExpiry', enabled: null },
      ],
    });
    expect(await isEmailEnabled(db, catalog, customer.id, 'InvoicePost')).toBe(false);
    expect(await isEmailEnabled(db, catalog, customer.id, 'DraftInvoice')).toBe(true);
    expect(await isEmailEnabled(db, catalog, customer.id, 'CreditCardExpiry')).toBe(true);

    const strict: Catalog = { ...catalog, defaults: { ...catalog.defaults, emailPreferences: { CreditCardExpiry: false } } };
    expect(accountDefault(strict, 'CreditCardExpiry')).toBe(false);
    expect(await isEmailEnabled(db, strict, customer.id, 'CreditCardExpiry')).toBe(false);
    expect(await isEmailEnabled(db, strict, customer.id, 'DraftInvoice')).toBe(true);
    expect(await isEmailEnabled(db, strict, 2 ** 40, 'Refund')).toBe(true);
  });

  it('answers GET with the defaults of the catalogue the app was started with', async () => {
    const strict = t.catalog;
    const another = await t.buildAnotherApp({ ...strict, defaults: { ...strict.defaults, emailPreferences: { Refund: false } } });
    const customer = await createCustomer(t, {});
    const res = await another.inject({
      method: 'GET',
      url: `/v1/customers/${customer.id}/CustomerEmailPreferences`,
      headers: { authorization: `Basic ${t.account.apiKey}` },
    });
    const byType = Object.fromEntries((res.json().preferences as Preference[]).map((p) => [p.emailType, p.accountDefault]));
    expect(byType).toMatchObject({ Refund: false, InvoicePost: true, DraftInvoice: true });
  });
});
