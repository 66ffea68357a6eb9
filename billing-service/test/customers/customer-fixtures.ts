import type { Catalog } from '../../src/catalog/schema.js';
import { testCatalog } from '../helpers/test-app.js';

/**
 * The test catalogue (one currency, USD) with the sales tracking codes these
 * tests name pinned, so a change to the demo catalogue does not move them.
 */
export function customerTestCatalog(overrides: Record<string, unknown> = {}): Catalog {
  return testCatalog({
    salesTrackingCodes: [
      {
        type: 'Sales Tracking Code 1',
        codes: [
          { code: 'WEB', name: 'Web shop' },
          { code: 'PARTNER', name: 'Partner referral' },
        ],
      },
      {
        type: 'Region',
        codes: [
          { code: 'EAST', name: 'East' },
          { code: 'WEST', name: 'West' },
        ],
      },
    ],
    ...overrides,
  });
}

let portalNames = 0;

/** A customer-create body that sets every field the spec lists (the portal user name must be unique: give one or get a fresh one). */
export function everyFieldCustomer(username = `ada.lovelace.${++portalNames}`) {
  return {
    username,
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
    customerReference: {
      reference1: 'first ref',
      reference2: 'second ref',
      reference3: 'third ref',
      salesTrackingCodes: [
        { type: 'Sales Tracking Code 1', code: 'PARTNER' },
        { type: 'Region', code: 'WEST' },
      ],
    },
    customerAcquisition: {
      adContent: 'banner-a',
      campaign: 'spring-sale',
      keyword: 'billing software',
      landingPage: 'https://engines.example/pricing',
      medium: 'cpc',
      source: 'search',
    },
    billingSetting: {
      term: 'Net30',
      interval: 'Monthly',
      autoCollect: false,
      rechargeType: 'BringBalanceBackTo',
      rechargeThresholdAmount: 10,
      rechargeTargetAmount: '50.25',
      statusOnThreshold: true,
      autoPostDraftInvoice: false,
      customerGracePeriod: 10,
      gracePeriodExtension: 2,
      customerAutoCancel: 45,
      defaultCancelOption: 'Unearned',
      standingPoNumber: 'PO-77',
      acquisitionCost: '125.50',
      showZeroDollarCharges: true,
      taxExempt: true,
      taxExemptCode: 'EXEMPT-1',
      useCustomerBillingAddress: false,
      taxUsageType: 'G',
      vatIdentificationNumber: 123456789,
      customerServiceStartOption: 'ChargeForLastMissedPeriods',
      rollUpTaxes: true,
      rollUpDiscounts: false,
      rollUpPdfsByPlanProduct: true,
      rollUpPdfsDisplayName: true,
      rollUpPdfsDisplayDescription: false,
      rollUpPdfsDisplayAllUnitPrices: true,
      pdfInvoiceEmailAttachmentOption: 'Both',
      postReadyChargesOnRenew: true,
    },
    trackedItemDisplay: {
      trackedItemDisplayFormat: 'SeperatePage',
      showTrackedItemName: true,
      showTrackedItemReference: false,
      showTrackedItemDescription: true,
      showTrackedItemCreatedDate: false,
    },
    billing: {
      companyName: 'Analytical Engines Ltd',
      line1: '1 King Street West',
      line2: 'Suite 200',
      city: 'Toronto',
      postalZip: 'M5H 1A1',
      country: 'CA',
      state: 'ON',
    },
    shipping: {
      companyName: 'Engines Warehouse',
      line1: '350 Fifth Avenue',
      line2: null,
      city: 'New York',
      postalZip: '10118',
      country: 'US',
      state: 'NY',
    },
    addressPreference: {
      contactName: 'Charles Babbage',
      shippingInstructions: 'Deliver to the loading dock',
      useBillingAddressAsShippingAddress: true,
    },
    monthlyBillingPeriodConfiguration: { type: 'SpecifiedDate', rule: 'SingleInvoice', day: 15 },
    yearlyBillingPeriodConfiguration: { type: 'SpecifiedDate', rule: 'MultipleInvoices', month: 6, day: 28 },
    crmId: 'crm-0001',
    crmAccountType: 'Company',
    crmSynchStatus: 'Enabled',
    erpId: 'erp-0001',
    erpSynchStatus: 'Disabled',
    accountingId: 4242,
    accountingLatchType: 'LatchExisting',
    marketingId: 77,
    lifetimeValue: -150,
  };
}
