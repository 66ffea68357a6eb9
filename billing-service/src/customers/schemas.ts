import { z } from 'zod';
import {
  BILLING_PERIOD_RULES,
  BILLING_PERIOD_TYPES,
  BillingPeriodConfiguration,
  billingSettingFields,
  BillingStatementSetting,
  TrackedItemDisplay,
} from '../billing-settings/schemas.js';
import { CUSTOMER_LANGUAGES } from '../catalog/schema.js';
import { CustomerIdParams, decimalInput, optionalText, sqlInteger } from '../http/field-schemas.js';

/** Customer request and response schemas: they validate, type the handlers and document the API. */

export const CUSTOMER_TITLES = ['Mr', 'Mrs', 'Ms', 'Miss', 'Dr'] as const;
export const CUSTOMER_STATUSES = ['Draft', 'Active', 'Hold', 'Suspended', 'Cancelled'] as const;
export const ACCOUNT_STATUSES = ['Good', 'Collection', 'PoorStanding'] as const;
export const CRM_ACCOUNT_TYPES = ['Company', 'Person'] as const;
export const SYNCH_STATUSES = ['Enabled', 'Disabled'] as const;
export const ERP_CUSTOMER_TYPES = ['Individual', 'Company'] as const;
export const ACCOUNTING_LATCH_TYPES = ['CreateNew', 'LatchExisting', 'DoNothing'] as const;
const text = optionalText;

/** One address or several separated by "; " (the spec's e-mail list format). */
const EMAIL = /^[^\s@;,]+@[^\s@;,]+\.[^\s@;,]+$/;
export const emailList = z
  .string()
  .max(255, 'must be at most 255 characters')
  .refine(
    (value) => value.trim() === '' || value.split(';').every((part) => EMAIL.test(part.trim())),
    'enter valid e-mail addresses, several separated by "; "',
  )
  .nullish();

const moneyInput = decimalInput;
const integer = sqlInteger;

export const SalesTrackingCodeInput = z.object({
  type: z.string().max(255),
  code: z.string().max(255),
});

export const CustomerReferenceInput = z.object({
  reference1: text(255),
  reference2: text(255),
  reference3: text(255),
  salesTrackingCodes: z.array(SalesTrackingCodeInput).max(5, 'at most 5 sales tracking codes').nullish(),
});

export const CustomerAcquisitionInput = z.object({
  adContent: text(255),
  campaign: text(255),
  keyword: text(255),
  landingPage: text(255),
  medium: text(255),
  source: text(255),
});

export const TrackedItemDisplayInput = TrackedItemDisplay;

/**
 * The billing-setting fields a customer-create body may carry (read-only ones left
 * out). The setting's nested fields are applied as by PUT /v1/customerbillingsetting;
 * a new customer has no payment method, so `defaultPaymentMethodId` can only be null.
 */
export const CreateBillingSettingInput = z.object({
  ...billingSettingFields,
  invoiceDay: sqlInteger.min(1, 'must be 1-31').max(31, 'must be 1-31').nullish(),
  billingPeriodConfigurations: z.array(BillingPeriodConfiguration).max(2).nullish(),
  trackedItemDisplay: TrackedItemDisplay.nullish(),
  customerBillingStatementSetting: BillingStatementSetting.nullish(),
  defaultPaymentMethodId: z
    .null({ error: 'a new customer has no payment method yet: add one, then set it in the billing setting' })
    .optional(),
});

/** Customer-create address: 2-letter ISO country and state codes. */
export const CreateAddressInput = z.object({
  companyName: text(255),
  line1: text(60),
  line2: text(60),
  city: text(50),
  postalZip: text(10),
  country: z.string().length(2, 'must be a 2-letter ISO 3166 country code').nullish(),
  state: z.string().min(1).max(3, 'must be an ISO 3166-2 subdivision code').nullish(),
});

export const AddressPreferenceInput = z.object({
  contactName: text(100),
  shippingInstructions: text(1000),
  useBillingAddressAsShippingAddress: z.boolean().nullish(),
});

const day28 = integer.min(1, 'must be 1-28').max(28, 'must be 1-28');
export const MonthlyBillingPeriodInput = z.object({
  type: z.enum(BILLING_PERIOD_TYPES),
  rule: z.enum(BILLING_PERIOD_RULES),
  day: day28.nullish(),
});
export const YearlyBillingPeriodInput = z.object({
  type: z.enum(BILLING_PERIOD_TYPES),
  rule: z.enum(BILLING_PERIOD_RULES),
  month: integer.min(1, 'must be 1-12').max(12, 'must be 1-12').nullish(),
  day: day28.nullish(),
});

/** The longest name (first, middle, last, company) a customer may have. */
export const CUSTOMER_TEXT_MAX = 50;

/** Fields shared by create and update. */
const customerFields = {
  firstName: text(CUSTOMER_TEXT_MAX),
  middleName: text(CUSTOMER_TEXT_MAX),
  lastName: text(CUSTOMER_TEXT_MAX),
  companyName: text(CUSTOMER_TEXT_MAX),
  suffix: text(50),
  primaryEmail: emailList,
  primaryPhone: text(50),
  secondaryEmail: emailList,
  secondaryPhone: text(50),
  title: z.enum(CUSTOMER_TITLES).nullish(),
  reference: text(255),
  customerReference: CustomerReferenceInput.nullish(),
  customerAcquisition: CustomerAcquisitionInput.nullish(),
  crmId: text(255),
  crmAccountType: z.enum(CRM_ACCOUNT_TYPES).nullish(),
  parentId: integer.positive().nullish(),
  accountingLatchType: z.enum(ACCOUNTING_LATCH_TYPES).nullish(),
  accountingId: integer.nullish(),
  marketingId: integer.nullish(),
  portalUserName: text(50),
  language: z
    .enum(CUSTOMER_LANGUAGES, { error: `must be one of ${CUSTOMER_LANGUAGES.join(', ')}` })
    .nullish()
    .describe(
      "an extension of the spec: the language of the customer's e-mails; null: the account's default (catalogue emails.defaultLanguage); left out of a PUT: unchanged",
    ),
};

export const CreateCustomerBody = z.object({
  ...customerFields,
  username: text(50),
  currency: z.string().length(3, 'must be a 3-letter ISO 4217 code').nullish(),
  billingSetting: CreateBillingSettingInput.nullish(),
  trackedItemDisplay: TrackedItemDisplayInput.nullish(),
  billing: CreateAddressInput.nullish(),
  shipping: CreateAddressInput.nullish(),
  addressPreference: AddressPreferenceInput.nullish(),
  monthlyBillingPeriodConfiguration: MonthlyBillingPeriodInput.nullish(),
  yearlyBillingPeriodConfiguration: YearlyBillingPeriodInput.nullish(),
  crmSynchStatus: z.enum(SYNCH_STATUSES).nullish(),
  erpId: text(255),
  erpSynchStatus: z.enum(SYNCH_STATUSES).nullish(),
  lifetimeValue: moneyInput.nullish(),
});
export type CreateCustomerInput = z.infer<typeof CreateCustomerBody>;

/** PUT is a full replacement; read-only fields that a client sends back are accepted and ignored. */
export const UpdateCustomerBody = z.object({
  ...customerFields,
  id: integer.positive(),
  status: z.enum(CUSTOMER_STATUSES),
  currency: z.string().length(3).nullish(),
});
export type UpdateCustomerInput = z.infer<typeof UpdateCustomerBody>;

export { CustomerIdParams };

const SalesTrackingCode = z.object({
  type: z.string(),
  code: z.string(),
  name: z.string().nullable(),
  id: z.number(),
  uri: z.string(),
});

export const CustomerResponse = z.object({
  id: z.number(),
  uri: z.string(),
  title: z.enum(CUSTOMER_TITLES).nullable(),
  firstName: z.string().nullable(),
  middleName: z.string().nullable(),
  lastName: z.string().nullable(),
  companyName: z.string().nullable(),
  suffix: z.string().nullable(),
  primaryEmail: z.string().nullable(),
  primaryPhone: z.string().nullable(),
  secondaryEmail: z.string().nullable(),
  secondaryPhone: z.string().nullable(),
  reference: z.string().nullable(),
  status: z.enum(CUSTOMER_STATUSES),
  customerAccountStatus: z.enum(ACCOUNT_STATUSES),
  currency: z.string(),
  customerReference: z.object({
    reference1: z.string().nullable(),
    reference2: z.string().nullable(),
    reference3: z.string().nullable(),
    salesTrackingCodes: z.array(SalesTrackingCode),
    id: z.number(),
    uri: z.string(),
  }),
  customerAcquisition: z.object({
    adContent: z.string().nullable(),
    campaign: z.string().nullable(),
    keyword: z.string().nullable(),
    landingPage: z.string().nullable(),
    medium: z.string().nullable(),
    source: z.string().nullable(),
    id: z.number(),
    uri: z.string(),
  }),
  monthlyRecurringRevenue: z.number(),
  netMonthlyRecurringRevenue: z.number(),
  crmId: z.string().nullable(),
  crmAccountType: z.string().nullable(),
  crmSynchStatus: z.enum(SYNCH_STATUSES),
  erpId: z.string().nullable(),
  erpSynchStatus: z.enum(SYNCH_STATUSES),
  erpCustomerType: z.string().nullable(),
  portalUserName: z.string().nullable(),
  language: z
    .enum(CUSTOMER_LANGUAGES)
    .describe("an extension of the spec: the language of the customer's e-mails (its own, else the account's default)"),
  parentId: z.number().nullable(),
  accountingLatchType: z.string().nullable(),
  accountingId: z.number().nullable(),
  accountingSyncToken: z.number().nullable(),
  marketingId: z.number().nullable(),
  createdTimestamp: z.string(),
  modifiedTimestamp: z.string(),
});
export type CustomerResponse = z.infer<typeof CustomerResponse>;

/** The customer's embedded objects, each served at its own `uri` as embedded. */
export const CustomerReferenceResponse = CustomerResponse.shape.customerReference;
export const CustomerAcquisitionResponse = CustomerResponse.shape.customerAcquisition;
export const SalesTrackingCodeResponse = SalesTrackingCode;
export const SalesTrackingCodeParams = CustomerIdParams.extend({ salesTrackingCodeId: z.coerce.number().int().positive() });

export const CustomerOverviewResponse = z.object({
  id: z.number(),
  uri: z.string(),
  title: z.string().nullable(),
  firstName: z.string().nullable(),
  middleName: z.string().nullable(),
  lastName: z.string().nullable(),
  suffix: z.string().nullable(),
  primaryEmail: z.string().nullable(),
  primaryPhone: z.string().nullable(),
  companyName: z.string().nullable(),
  reference: z.string().nullable(),
  createdTimestamp: z.string(),
  status: z.enum(CUSTOMER_STATUSES),
  customerAccountStatus: z.enum(ACCOUNT_STATUSES),
  pendingCharges: z
    .number()
    .describe('the totals of Draft invoices: not owed until posted (POST /v1/Invoices/{id}/post), so not in arBalance'),
  arBalance: z.number().describe('what posted invoices still owe (Draft invoices are not counted)'),
  unallocatedPayments: z.number(),
  unallocatedCredits: z.number(),
  unallocatedOpeningBalance: z.number(),
  currency: z.string(),
  daysUntilSuspension: z.number().nullable(),
  daysUntilCancellation: z.number().nullable(),
  customerAccountStatusTimestamp: z.string(),
  statusTimestamp: z.string(),
  lifetimeValue: z.number(),
  monthlyRecurringRevenue: z.number(),
  netMonthlyRecurringRevenue: z.number(),
  nextBillingDate: z.string().nullable(),
  crmSynchStatus: z.enum(SYNCH_STATUSES),
  crmId: z.string().nullable(),
  accountingId: z.number().nullable(),
  erpId: z.string().nullable(),
  marketingId: z.number().nullable(),
  parentId: z.number().nullable(),
  parentName: z.string().nullable(),
  isParent: z.boolean(),
  unknownPaymentActivityId: z.number().nullable(),
});
export type CustomerOverviewResponse = z.infer<typeof CustomerOverviewResponse>;
