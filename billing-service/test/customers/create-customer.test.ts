import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, errorsOf, startTestApp, type TestApp } from '../helpers/test-app.js';
import { customerTestCatalog, everyFieldCustomer } from './customer-fixtures.js';
import { createCustomer } from '../helpers/api-fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ catalog: customerTestCatalog() });
});
afterAll(async () => t?.close());

/** The field keys of a 400 answer (and checks it is the spec's error body). */
async function refusedKeys(body: unknown): Promise<string[]> {
  const res = await t.call('POST', '/v1/customers', body);
  expect(res.statusCode, res.body).toBe(400);
  return errorsOf(res).map((e) => e.Key);
}

describe('POST /v1/customers: what is stored and returned', () => {
  it('creates a blank customer in Draft, in the account default currency', async () => {
    const res = await t.call('POST', '/v1/customers', {});
    expect(res.statusCode).toBe(200);
    const customer = res.json();
    expect(customer).toMatchObject({
      status: 'Draft',
      customerAccountStatus: 'Good',
      currency: 'USD',
      firstName: null,
      lastName: null,
      primaryEmail: null,
      portalUserName: null,
      parentId: null,
      monthlyRecurringRevenue: 0,
      netMonthlyRecurringRevenue: 0,
      uri: `https://billing.test/v1/customers/${customer.id}`,
    });
    expect(customer.id).toBeGreaterThan(0);
    expect(customer.customerReference).toMatchObject({ reference1: null, reference2: null, reference3: null, salesTrackingCodes: [] });
    expect(Date.parse(customer.modifiedTimestamp)).toBeGreaterThan(Date.now() - 60_000);

    // what came back is what is kept
    const read = await t.call('GET', `/v1/customers/${customer.id}`);
    expect(read.json()).toEqual(customer);
  });

  it('gives each new customer its own id', async () => {
    const a = await createCustomer(t, { firstName: 'One' });
    const b = await createCustomer(t, { firstName: 'Two' });
    expect(b.id).not.toBe(a.id);
  });

  it('answers the customer exactly as a read of it afterwards shows it, for a full body and a blank one', async () => {
    // the create answers from its own statement's RETURNING, not from a read after the commit
    for (const body of [everyFieldCustomer(), {}, { lastName: 'Only', customerReference: { reference2: 'r2' } }]) {
      const created = await t.call('POST', '/v1/customers', body);
      expect(created.statusCode, created.body).toBe(200);
      const read = await t.call('GET', `/v1/customers/${created.json().id}`);
      expect(created.json()).toEqual(read.json());
    }
  });

  it('creates customers of different shapes one after another, each with its own parts', async () => {
    // each shape of body is compiled once and reused: the values of one call must never leak into the next
    const full = await createCustomer(t, everyFieldCustomer());
    const blank = await createCustomer(t, {});
    const again = await createCustomer(t, { ...everyFieldCustomer(), firstName: 'Grace', customerReference: { reference1: 'second' } });
    expect(full.customerReference.salesTrackingCodes.length).toBeGreaterThan(0);
    expect(blank).toMatchObject({
      firstName: null,
      customerReference: { reference1: null, salesTrackingCodes: [] },
      customerAcquisition: { source: null },
    });
    expect(again).toMatchObject({
      firstName: 'Grace',
      customerReference: { reference1: 'second', reference2: null, salesTrackingCodes: [] },
    });
    expect(new Set([full.id, blank.id, again.id]).size).toBe(3);
  });

  it('stores and returns every customer field, resolving sales tracking codes to their names', async () => {
    const customer = await createCustomer(t, everyFieldCustomer('ada.lovelace'));
    const uri = `https://billing.test/v1/customers/${customer.id}`;
    expect(customer).toMatchObject({
      status: 'Draft',
      currency: 'USD',
      title: 'Dr',
      firstName: 'Ada',
      middleName: 'King',
      lastName: 'Lovelace',
      suffix: 'PhD',
      companyName: 'Analytical Engines Ltd',
      primaryEmail: 'ada@engines.example; billing@engines.example',
      primaryPhone: '+44 20 7946 0000',
      secondaryEmail: 'ada@home.example',
      secondaryPhone: '+44 20 7946 0001',
      reference: 'EXT-0001',
      // `username` is the create body's name for the portal user name
      portalUserName: 'ada.lovelace',
      crmId: 'crm-0001',
      crmAccountType: 'Company',
      crmSynchStatus: 'Enabled',
      erpId: 'erp-0001',
      erpSynchStatus: 'Disabled',
      erpCustomerType: 'Company',
      accountingId: 4242,
      accountingLatchType: 'LatchExisting',
      marketingId: 77,
    });
    expect(customer.customerReference).toEqual({
      reference1: 'first ref',
      reference2: 'second ref',
      reference3: 'third ref',
      salesTrackingCodes: [
        {
          type: 'Sales Tracking Code 1',
          code: 'PARTNER',
          name: 'Partner referral',
          id: 1,
          uri: `${uri}/customerReference/salesTrackingCodes/1`,
        },
        { type: 'Region', code: 'WEST', name: 'West', id: 2, uri: `${uri}/customerReference/salesTrackingCodes/2` },
      ],
      id: customer.id,
      uri: `${uri}/customerReference`,
    });
    expect(customer.customerAcquisition).toEqual({
      adContent: 'banner-a',
      campaign: 'spring-sale',
      keyword: 'billing software',
      landingPage: 'https://engines.example/pricing',
      medium: 'cpc',
      source: 'search',
      id: customer.id,
      uri: `${uri}/customerAcquisition`,
    });
    expect((await t.call('GET', `/v1/customers/${customer.id}`)).json()).toEqual(customer);
  });

  it('matches sales tracking code types and codes regardless of case, returning the catalogue spelling', async () => {
    const customer = await createCustomer(t, { customerReference: { salesTrackingCodes: [{ type: 'region', code: 'east' }] } });
    expect(customer.customerReference.salesTrackingCodes).toMatchObject([{ type: 'Region', code: 'EAST', name: 'East', id: 2 }]);
  });

  it('stores the billing setting, addresses, address preference and billing period configurations in their tables', async () => {
    const customer = await createCustomer(t, everyFieldCustomer());
    const db = t.database.db;

    const setting = await db
      .selectFrom('customerBillingSettings')
      .selectAll()
      .where('customerId', '=', customer.id)
      .executeTakeFirstOrThrow();
    expect(setting).toMatchObject({
      term: 'Net30',
      interval: 'Monthly',
      autoCollect: false,
      rechargeType: 'BringBalanceBackTo',
      statusOnThreshold: true,
      autoPostDraftInvoice: false,
      customerGracePeriod: 10,
      gracePeriodExtension: 2,
      customerAutoCancel: 45,
      defaultCancelOption: 'Unearned',
      standingPoNumber: 'PO-77',
      showZeroDollarCharges: true,
      taxExempt: true,
      taxExemptCode: 'EXEMPT-1',
      useCustomerBillingAddress: false,
      taxUsageType: 'G',
      customerServiceStartOption: 'ChargeForLastMissedPeriods',
      rollUpTaxes: true,
      rollUpDiscounts: false,
      postReadyChargesOnRenew: true,
    });
    expect(Number(setting.vatIdentificationNumber)).toBe(123456789);
    expect(Number(setting.rechargeThresholdAmount)).toBe(10);
    expect(Number(setting.rechargeTargetAmount)).toBe(50.25);
    expect(Number(setting.acquisitionCost)).toBe(125.5);
    expect(setting.presentation).toEqual({
      rollUpPdfsByPlanProduct: true,
      rollUpPdfsDisplayName: true,
      rollUpPdfsDisplayDescription: false,
      rollUpPdfsDisplayAllUnitPrices: true,
      pdfInvoiceEmailAttachmentOption: 'Both',
      trackedItemDisplay: {
        trackedItemDisplayFormat: 'SeperatePage',
        showTrackedItemName: true,
        showTrackedItemReference: false,
        showTrackedItemDescription: true,
        showTrackedItemCreatedDate: false,
      },
    });

    const addresses = await db
      .selectFrom('addresses')
      .select(['accountId', 'addressType', 'companyName', 'line1', 'line2', 'city', 'postalZip', 'countryId', 'stateId', 'valid'])
      .where('customerId', '=', customer.id)
      .orderBy('addressType')
      .execute();
    expect(addresses).toEqual([
      {
        accountId: t.account.accountId,
        addressType: 'Billing',
        companyName: 'Analytical Engines Ltd',
        line1: '1 King Street West',
        line2: 'Suite 200',
        city: 'Toronto',
        postalZip: 'M5H 1A1',
        countryId: 124, // ISO 3166 numeric of CA
        stateId: 12400887, // CA-ON
        valid: true,
      },
      {
        accountId: t.account.accountId,
        addressType: 'Shipping',
        companyName: 'Engines Warehouse',
        line1: '350 Fifth Avenue',
        line2: null,
        city: 'New York',
        postalZip: '10118',
        countryId: 840, // US
        stateId: 84000862, // US-NY
        valid: true,
      },
    ]);

    const preference = await db
      .selectFrom('customerAddressPreferences')
      .selectAll()
      .where('customerId', '=', customer.id)
      .executeTakeFirstOrThrow();
    expect(preference).toEqual({
      customerId: customer.id,
      contactName: 'Charles Babbage',
      shippingInstructions: 'Deliver to the loading dock',
      useBillingAddressAsShippingAddress: true,
    });

    const periods = await db
      .selectFrom('customerBillingPeriodConfigurations')
      .select(['interval', 'type', 'rule', 'day', 'month'])
      .where('customerId', '=', customer.id)
      .orderBy('interval')
      .execute();
    expect(periods).toEqual([
      { interval: 'Monthly', type: 'SpecifiedDate', rule: 'SingleInvoice', day: 15, month: null },
      { interval: 'Yearly', type: 'SpecifiedDate', rule: 'MultipleInvoices', day: 28, month: 6 },
    ]);
  });

  it('gives a blank customer an empty billing setting and address preference, and no addresses or period overrides', async () => {
    const customer = await createCustomer(t, {});
    const db = t.database.db;
    const setting = await db
      .selectFrom('customerBillingSettings')
      .selectAll()
      .where('customerId', '=', customer.id)
      .executeTakeFirstOrThrow();
    expect(setting).toMatchObject({ term: null, autoCollect: null, taxExempt: false, taxExemptCode: null, customerGracePeriod: null });
    const preference = await db
      .selectFrom('customerAddressPreferences')
      .selectAll()
      .where('customerId', '=', customer.id)
      .executeTakeFirstOrThrow();
    expect(preference).toMatchObject({ contactName: null, shippingInstructions: null, useBillingAddressAsShippingAddress: false });
    expect(await db.selectFrom('addresses').select('id').where('customerId', '=', customer.id).execute()).toEqual([]);
    expect(
      await db.selectFrom('customerBillingPeriodConfigurations').select('interval').where('customerId', '=', customer.id).execute(),
    ).toEqual([]);
  });

  it('accepts DefaultCancelOption in the billing setting as the spec spells it', async () => {
    const customer = await createCustomer(t, { billingSetting: { DefaultCancelOption: 'Full' } });
    const setting = await t.database.db
      .selectFrom('customerBillingSettings')
      .select('defaultCancelOption')
      .where('customerId', '=', customer.id)
      .executeTakeFirstOrThrow();
    expect(setting.defaultCancelOption).toBe('Full');
  });

  it('accepts several e-mail addresses separated by "; " in both e-mail fields', async () => {
    const customer = await createCustomer(t, { primaryEmail: 'a@x.com; b@y.com', secondaryEmail: 'c@z.org; d@w.net; e@v.io' });
    expect(customer.primaryEmail).toBe('a@x.com; b@y.com');
    expect(customer.secondaryEmail).toBe('c@z.org; d@w.net; e@v.io');
  });

  it('accepts values exactly at the maximum lengths', async () => {
    const customer = await createCustomer(t, {
      firstName: 'f'.repeat(50),
      lastName: 'l'.repeat(50),
      companyName: 'c'.repeat(50),
      primaryPhone: '1'.repeat(50),
      reference: 'r'.repeat(255),
      primaryEmail: `${'a'.repeat(243)}@example.com`, // 255
    });
    expect(customer.firstName).toHaveLength(50);
    expect(customer.reference).toHaveLength(255);
    expect(customer.primaryEmail).toHaveLength(255);
  });

  it('makes a child customer of an existing parent', async () => {
    const parent = await createCustomer(t, { companyName: 'Holding' });
    const child = await createCustomer(t, { firstName: 'Sub', parentId: parent.id });
    expect(child.parentId).toBe(parent.id);
  });
});

describe('POST /v1/customers: what is refused', () => {
  it.each([
    ['firstName', 51],
    ['middleName', 51],
    ['lastName', 51],
    ['companyName', 51],
    ['suffix', 51],
    ['primaryPhone', 51],
    ['secondaryPhone', 51],
    ['reference', 256],
    ['portalUserName', 51],
    ['username', 51],
  ])('refuses %s of %i characters with 400 keyed on the field', async (field, length) => {
    const res = await t.call('POST', '/v1/customers', { [field]: 'x'.repeat(length) });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)).toEqual([{ Key: field, Value: expect.stringMatching(/at most/), Code: 'value_invalid' }]);
  });

  it.each(['primaryEmail', 'secondaryEmail'])('refuses %s longer than 255 characters', async (field) => {
    expect(await refusedKeys({ [field]: `${'a'.repeat(244)}@example.com` })).toContain(field);
  });

  it.each([
    ['customerReference', { reference1: 'r'.repeat(256) }, 'customerReference.reference1'],
    ['customerAcquisition', { campaign: 'c'.repeat(256) }, 'customerAcquisition.campaign'],
    ['billing', { line1: 'l'.repeat(61) }, 'billing.line1'],
    ['shipping', { postalZip: '12345678901' }, 'shipping.postalZip'],
    ['billing', { city: 'c'.repeat(51) }, 'billing.city'],
  ])('refuses an over-long %s field (%#)', async (field, value, key) => {
    expect(await refusedKeys({ [field]: value })).toEqual([key]);
  });

  it('refuses an invalid primary e-mail with 400 keyed primaryEmail', async () => {
    const res = await t.call('POST', '/v1/customers', { primaryEmail: 'not-an-address' });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)).toEqual([{ Key: 'primaryEmail', Value: expect.stringMatching(/valid e-mail/), Code: 'value_invalid' }]);
  });

  it('refuses a list with one bad address in it', async () => {
    expect(await refusedKeys({ primaryEmail: 'good@x.com; bad@' })).toEqual(['primaryEmail']);
    expect(await refusedKeys({ secondaryEmail: 'good@x.com, other@y.com' })).toEqual(['secondaryEmail']);
  });

  it.each([
    ['title', 'Sir'],
    ['crmAccountType', 'Household'],
    ['crmSynchStatus', 'Sometimes'],
    ['erpSynchStatus', 'On'],
    ['accountingLatchType', 'Merge'],
  ])('refuses %s = %j with 400 keyed on the field', async (field, value) => {
    expect(await refusedKeys({ [field]: value })).toEqual([field]);
  });

  it.each([
    [{ billingSetting: { term: 'Net31' } }, 'billingSetting.term'],
    [{ billingSetting: { defaultCancelOption: 'Some' } }, 'billingSetting.defaultCancelOption'],
    [{ billingSetting: { pdfInvoiceEmailAttachmentOption: 'Everything' } }, 'billingSetting.pdfInvoiceEmailAttachmentOption'],
    [{ monthlyBillingPeriodConfiguration: { type: 'Whenever', rule: 'SingleInvoice' } }, 'monthlyBillingPeriodConfiguration.type'],
    [
      { yearlyBillingPeriodConfiguration: { type: 'SpecifiedDate', rule: 'Often', month: 1, day: 1 } },
      'yearlyBillingPeriodConfiguration.rule',
    ],
  ])('refuses a bad nested enum value (%j)', async (body, key) => {
    expect(await refusedKeys(body)).toEqual([key]);
  });

  it('refuses a title in the wrong case (enum values are exact)', async () => {
    expect(await refusedKeys({ title: 'dr' })).toEqual(['title']);
  });

  it('refuses more than 5 sales tracking codes', async () => {
    const codes = Array.from({ length: 6 }, () => ({ type: 'Region', code: 'EAST' }));
    expect(await refusedKeys({ customerReference: { salesTrackingCodes: codes } })).toEqual(['customerReference.salesTrackingCodes']);
  });

  it('refuses an unknown sales tracking code type', async () => {
    const res = await t.call('POST', '/v1/customers', {
      customerReference: { salesTrackingCodes: [{ type: 'Sales Tracking Code 4', code: 'WEB' }] },
    });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)).toEqual([
      { Key: 'customerReference.salesTrackingCodes[0].type', Value: expect.stringMatching(/Sales Tracking Code 4/), Code: 'value_invalid' },
    ]);
  });

  it('refuses a code that exists only under another type', async () => {
    const res = await t.call('POST', '/v1/customers', {
      customerReference: {
        salesTrackingCodes: [
          { type: 'Sales Tracking Code 1', code: 'WEB' },
          { type: 'Region', code: 'WEB' },
        ],
      },
    });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)).toEqual([
      { Key: 'customerReference.salesTrackingCodes[1].code', Value: expect.stringMatching(/WEB.*Region/), Code: 'value_invalid' },
    ]);
  });

  it('refuses two codes of one type', async () => {
    expect(
      await refusedKeys({
        customerReference: {
          salesTrackingCodes: [
            { type: 'Region', code: 'EAST' },
            { type: 'Region', code: 'WEST' },
          ],
        },
      }),
    ).toEqual(['customerReference.salesTrackingCodes[1].type']);
  });

  it('refuses username and portalUserName with different values rather than dropping one; the same value is fine', async () => {
    const res = await t.call('POST', '/v1/customers', { username: 'one.name', portalUserName: 'other.name' });
    expect(res.statusCode, res.body).toBe(400);
    expect(errorsOf(res).map((e) => e.Key)).toEqual(['username']);
    const same = await createCustomer(t, { username: 'same.name.both', portalUserName: 'same.name.both' });
    expect(same.portalUserName).toBe('same.name.both');
  });

  it('refuses a portal user name another customer already has, but allows many customers without one', async () => {
    const account = await t.newAccount();
    const first = await createCustomer(t, { portalUserName: 'grace' }, account);
    expect(first.portalUserName).toBe('grace');
    const viaPortal = await t.call('POST', '/v1/customers', { portalUserName: 'grace' }, { as: account });
    expect(viaPortal.statusCode).toBe(400);
    expect(errorsOf(viaPortal)).toEqual([{ Key: 'portalUserName', Value: 'already used by another customer', Code: 'value_taken' }]);
    const viaUsername = await t.call('POST', '/v1/customers', { username: 'grace' }, { as: account });
    expect(viaUsername.statusCode).toBe(400);
    expect(errorsOf(viaUsername)[0]!.Key).toBe('portalUserName');

    const a = await createCustomer(t, { firstName: 'No portal A' }, account);
    const b = await createCustomer(t, { firstName: 'No portal B', portalUserName: null }, account);
    expect([a.portalUserName, b.portalUserName]).toEqual([null, null]);

    // the refused creations left nothing behind
    const rows = await t.database.db.selectFrom('customers').select('id').where('accountId', '=', account.accountId).execute();
    expect(rows).toHaveLength(3);
  });

  it('uses the default currency when the account has one and refuses any other', async () => {
    expect((await createCustomer(t, { currency: 'usd' })).currency).toBe('USD');
    const res = await t.call('POST', '/v1/customers', { currency: 'CAD' });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)).toEqual([{ Key: 'currency', Value: expect.stringMatching(/USD/), Code: 'value_invalid' }]);
  });

  it('requires a currency, among the allowed ones, when the account bills in several', async () => {
    const twoCurrencies = await t.buildAnotherApp(customerTestCatalog({ currencies: { default: 'USD', allowed: ['USD', 'CAD'] } }));
    const post = (body: unknown) =>
      twoCurrencies.inject({
        method: 'POST',
        url: '/v1/customers',
        headers: { authorization: basicAuth(t.account.apiKey), 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });

    const missing = await post({ firstName: 'Nocurrency' });
    expect(missing.statusCode).toBe(400);
    expect(errorsOf(missing)).toEqual([{ Key: 'currency', Value: expect.stringMatching(/USD, CAD/), Code: 'value_required' }]);

    const notAllowed = await post({ currency: 'EUR' });
    expect(notAllowed.statusCode).toBe(400);
    expect(errorsOf(notAllowed)[0]!.Key).toBe('currency');

    const notACode = await post({ currency: 'CA' });
    expect(notACode.statusCode).toBe(400);
    expect(errorsOf(notACode)[0]!.Key).toBe('currency');

    const canadian = await post({ firstName: 'Maple', currency: 'CAD' });
    expect(canadian.statusCode).toBe(200);
    expect(canadian.json()).toMatchObject({ firstName: 'Maple', currency: 'CAD', status: 'Draft' });
  });

  it.each([
    [
      { monthlyBillingPeriodConfiguration: { type: 'SpecifiedDate', rule: 'SingleInvoice', day: 29 } },
      'monthlyBillingPeriodConfiguration.day',
    ],
    [
      { monthlyBillingPeriodConfiguration: { type: 'SpecifiedDate', rule: 'SingleInvoice', day: 0 } },
      'monthlyBillingPeriodConfiguration.day',
    ],
    [
      { yearlyBillingPeriodConfiguration: { type: 'SpecifiedDate', rule: 'SingleInvoice', month: 2, day: 29 } },
      'yearlyBillingPeriodConfiguration.day',
    ],
    [
      { yearlyBillingPeriodConfiguration: { type: 'SpecifiedDate', rule: 'SingleInvoice', month: 13, day: 1 } },
      'yearlyBillingPeriodConfiguration.month',
    ],
  ])('refuses a billing period day or month out of range (%j)', async (body, key) => {
    const res = await t.call('POST', '/v1/customers', body);
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)).toEqual([{ Key: key, Value: expect.stringMatching(/must be 1-(28|12)/), Code: 'value_invalid' }]);
  });

  it('accepts billing period day 28, the last allowed on create', async () => {
    const customer = await createCustomer(t, { monthlyBillingPeriodConfiguration: { type: 'SpecifiedDate', rule: 'Prompt', day: 28 } });
    const row = await t.database.db
      .selectFrom('customerBillingPeriodConfigurations')
      .select(['day', 'rule'])
      .where('customerId', '=', customer.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ day: 28, rule: 'Prompt' });
  });

  it('refuses taxExempt true without a taxExemptCode', async () => {
    const res = await t.call('POST', '/v1/customers', { billingSetting: { taxExempt: true } });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)).toEqual([{ Key: 'billingSetting.taxExemptCode', Value: expect.any(String), Code: 'value_required' }]);
  });

  it('checks the nested billing setting with the rules of PUT /v1/customerbillingsetting', async () => {
    expect(await refusedKeys({ billingSetting: { rechargeType: 'BringBalanceBackTo' } })).toEqual([
      'billingSetting.rechargeThresholdAmount',
    ]);
    expect(
      await refusedKeys({ billingSetting: { rechargeType: 'BringBalanceBackTo', rechargeThresholdAmount: 50, rechargeTargetAmount: 20 } }),
    ).toEqual(['billingSetting.rechargeTargetAmount']);
    const created = await t.call('POST', '/v1/customers', {
      billingSetting: { rechargeType: 'BringBalanceBackTo', rechargeThresholdAmount: 20, rechargeTargetAmount: 50 },
    });
    expect(created.statusCode, created.body).toBe(200);
  });

  it('refuses autoCollect true for a new customer, who has no payment method', async () => {
    expect(await refusedKeys({ billingSetting: { autoCollect: true } })).toEqual(['billingSetting.autoCollect']);
  });

  it.each([
    [{ billing: { country: 'ZZ' } }, 'billing.country'],
    [{ shipping: { country: 'XY' } }, 'shipping.country'],
    [{ billing: { country: 'US', state: 'ZZ' } }, 'billing.state'],
    [{ shipping: { country: 'CA', state: 'NY' } }, 'shipping.state'],
    [{ billing: { country: 'USA' } }, 'billing.country'],
  ])('refuses an unknown country or state code (%j)', async (body, key) => {
    expect(await refusedKeys(body)).toEqual([key]);
  });

  it('refuses a parent that does not exist, and one of another account', async () => {
    const res = await t.call('POST', '/v1/customers', { parentId: 987654 });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)).toEqual([{ Key: 'parentId', Value: 'no customer with id 987654', Code: 'not_found' }]);

    const other = await t.newAccount();
    const foreign = await createCustomer(t, { companyName: 'Foreign parent' }, other);
    expect(await refusedKeys({ parentId: foreign.id })).toEqual(['parentId']);
  });

  it.each([
    ['parentId', 99999999999],
    ['marketingId', 99999999999],
    ['accountingId', -99999999999],
  ])('refuses %s = %d, beyond a 32-bit integer, with 400 (not 500)', async (field, value) => {
    expect(await refusedKeys({ [field]: value })).toEqual([field]);
  });

  it('refuses a billing-setting day count beyond a 32-bit integer with 400', async () => {
    expect(await refusedKeys({ billingSetting: { customerGracePeriod: 99999999999 } })).toEqual(['billingSetting.customerGracePeriod']);
  });

  it('refuses a non-number where a number is expected', async () => {
    expect(await refusedKeys({ marketingId: '77' })).toEqual(['marketingId']);
    expect(new Set(await refusedKeys({ lifetimeValue: 'lots' }))).toEqual(new Set(['lifetimeValue']));
  });

  it('refuses a body that is not JSON with 415 and the spec error body', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/customers',
      headers: { authorization: basicAuth(t.account.apiKey), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'firstName=Ann',
    });
    expect(res.statusCode).toBe(415);
    expect(errorsOf(res)).toEqual([{ Key: 'Api Error', Value: expect.any(String), Code: 'request_malformed' }]);
  });

  it('refuses malformed JSON with 400 and creates nothing', async () => {
    const account = await t.newAccount();
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/customers',
      headers: { authorization: basicAuth(account.apiKey), 'content-type': 'application/json' },
      payload: '{"firstName": "Ann",',
    });
    expect(res.statusCode).toBe(400);
    expect(errorsOf(res)).toEqual([{ Key: 'Api Error', Value: expect.any(String), Code: 'request_malformed' }]);
    const list = await t.call('GET', '/v1/customers', undefined, { as: account });
    expect(list.headers['x-count']).toBe('0');
  });

  it('lists every problem of a body at once', async () => {
    const keys = await refusedKeys({ firstName: 'x'.repeat(51), title: 'Sir', primaryEmail: 'nope' });
    expect(keys.sort()).toEqual(['firstName', 'primaryEmail', 'title']);
  });
});
