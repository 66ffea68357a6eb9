import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIVATION_FLAGS, activate, newCustomer, newSubscription } from '../helpers/api-fixtures.js';
import { startTestApp, testCatalog, type TestApp } from '../helpers/test-app.js';

/**
 * Issue 26: a field the spec types without "or null" answers the value in effect, the account's
 * default when the customer has none of its own; a field typed "or null" keeps null for "the
 * account's default". The account here has defaults of its own, so they can be told apart.
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ catalog: testCatalog({ defaults: { term: 'Net15', customerGracePeriod: 5, customerAutoCancel: 12 } }) });
});
afterAll(async () => t?.close());

async function readSetting(customerId: number) {
  const res = await t.call('GET', `/v1/customerbillingsetting/${customerId}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

/** What a new customer's setting answers for the fields the spec does not type "or null" (besides those with no value: see below). */
const IN_EFFECT_BY_DEFAULT = {
  term: 'Net15',
  customerGracePeriod: 5,
  gracePeriodExtension: 0,
  customerAutoCancel: 12,
  statusOnThreshold: false,
  rollUpPdfsByPlanProduct: false,
  rollUpPdfsDisplayName: false,
  rollUpPdfsDisplayDescription: false,
  rollUpPdfsDisplayAllUnitPrices: false,
  pdfInvoiceEmailAttachmentOption: 'Details',
  acquisitionCost: 0,
  taxExempt: false,
  hasPaymentMethod: false,
  billingPeriodConfigurations: [],
  trackedItemDisplay: {
    trackedItemDisplayFormat: null,
    showTrackedItemName: false,
    showTrackedItemReference: false,
    showTrackedItemDescription: false,
    showTrackedItemCreatedDate: false,
  },
};

/** Typed "boolean or null", "enum … or null": null means the account's default, and stays null. */
const INHERITED = {
  autoCollect: null,
  autoPostDraftInvoice: null,
  defaultCancelOption: null,
  showZeroDollarCharges: null,
  useCustomerBillingAddress: null,
  customerServiceStartOption: null,
  rollUpTaxes: null,
  rollUpDiscounts: null,
  postReadyChargesOnRenew: null,
};

describe('a billing setting answers the value in effect', () => {
  it('for a new customer: the account\'s defaults where the spec allows no null, null ("account default") where it does', async () => {
    const setting = await readSetting(await newCustomer(t));
    expect(setting).toMatchObject({ ...IN_EFFECT_BY_DEFAULT, ...INHERITED });
    expect(setting.customerBillingStatementSetting.trackedItemDisplay).toEqual(IN_EFFECT_BY_DEFAULT.trackedItemDisplay);
  });

  it("the customer's own values over the account's", async () => {
    const id = await newCustomer(t, {
      billingSetting: {
        term: 'Net30',
        customerGracePeriod: 2,
        gracePeriodExtension: 4,
        customerAutoCancel: 0,
        statusOnThreshold: true,
        rollUpPdfsDisplayName: true,
        pdfInvoiceEmailAttachmentOption: 'Summary',
        acquisitionCost: '12.50',
        autoPostDraftInvoice: false,
      },
      trackedItemDisplay: { showTrackedItemName: true },
    });
    expect(await readSetting(id)).toMatchObject({
      ...IN_EFFECT_BY_DEFAULT,
      term: 'Net30',
      customerGracePeriod: 2,
      gracePeriodExtension: 4,
      customerAutoCancel: 0,
      statusOnThreshold: true,
      rollUpPdfsDisplayName: true,
      pdfInvoiceEmailAttachmentOption: 'Summary',
      acquisitionCost: 12.5,
      autoPostDraftInvoice: false,
      trackedItemDisplay: { ...IN_EFFECT_BY_DEFAULT.trackedItemDisplay, showTrackedItemName: true },
    });
  });

  it("null sent back by PUT returns a field to the account's default, and that default is what billing uses", async () => {
    const id = await newCustomer(t, { billingSetting: { term: 'Net30', customerGracePeriod: 2 } });
    const setting = await readSetting(id);
    const res = await t.call('PUT', '/v1/customerbillingsetting', {
      ...setting,
      term: null,
      customerGracePeriod: null,
      acquisitionCost: null,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ term: 'Net15', customerGracePeriod: 5, acquisitionCost: 0 });

    // The term answered is the one invoices get: due 15 days after activation.
    await newSubscription(t, id);
    const activated = await activate(t, id, ACTIVATION_FLAGS, '?view=sideeffects');
    expect(activated.statusCode, activated.body).toBe(200);
    const [invoice] = activated.json().invoices;
    const days = (Date.parse(invoice.dueTimestamp) - Date.parse(invoice.effectiveTimestamp)) / 86_400_000;
    expect(days).toBe(15);
  });

  it('is documented as not nullable in the OpenAPI document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const response = doc.paths['/v1/customerbillingsetting/{customerId}'].get.responses['200'].content['application/json'].schema;
    const nullable = (field: string) => JSON.stringify(response.properties[field]).includes('null');
    for (const field of [
      'term',
      'customerGracePeriod',
      'gracePeriodExtension',
      'customerAutoCancel',
      'statusOnThreshold',
      'rollUpPdfsByPlanProduct',
      'pdfInvoiceEmailAttachmentOption',
      'acquisitionCost',
    ]) {
      expect(nullable(field), field).toBe(false);
    }
    expect(nullable('autoCollect')).toBe(true);
  });
});
