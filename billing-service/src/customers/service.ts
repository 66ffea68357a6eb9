import { API_ERROR_KEY } from '../refusals/error-codes.js';
import { recordCreated } from '../db/keyed-commit.js';
import { Refusal } from '../refusals/refusal.js';
import type { Catalog } from '../catalog/schema.js';
import { checkBillingPeriodConfigurations, checkBillingSettingRules, checkPeriodDayAndMonth } from '../billing-settings/rules.js';
import { wholeStatementSetting } from '../billing-settings/service.js';
import { auditEntry, diffFields, recordChange } from '../audit/audit-log.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import { resolveLocation } from '../geo/resolve-location.js';
import { money } from '../money/money.js';
import { routeToStatus } from './status-graph.js';
import {
  customerExists,
  findCustomerRecord,
  insertNewCustomer,
  isPortalUserNameConflict,
  lockCustomer,
  replaceCustomerAcquisition,
  replaceCustomerReference,
  updateCustomerRow,
  type CustomerRecord,
} from './repository.js';
import { toCustomerResponse, toCustomerResponses } from './customer-response.js';
import type { CreateCustomerInput, CustomerResponse, UpdateCustomerInput } from './schemas.js';
import type { Queryable } from '../db/database.js';
import { rememberEnabledEndpoints } from '../outbox/webhook-repository.js';

type CustomerReferenceInput = NonNullable<CreateCustomerInput['customerReference']>;
type AddressInput = NonNullable<CreateCustomerInput['billing']>;

export async function getCustomer(ctx: AppContext, caller: Caller, id: number): Promise<CustomerResponse> {
  const record = await findCustomerRecord(ctx.db, caller.accountId, id, await ctx.clock.now(caller.accountId));
  if (!record) throw Refusal.notFound('customer', id);
  const [response] = await toCustomerResponses(ctx.db, ctx.uris, ctx.catalog.emails.defaultLanguage, [record]);
  if (!response) throw new Error('toCustomerResponses answers one response per record');
  return response;
}

/** The customer as embedded objects need it (no recurring revenue: they do not show it). */
async function embeddedParts(ctx: AppContext, caller: Caller, id: number): Promise<CustomerResponse> {
  const record = await findCustomerRecord(ctx.db, caller.accountId, id, await ctx.clock.now(caller.accountId));
  if (!record) throw Refusal.notFound('customer', id);
  return toCustomerResponse(record, ctx.uris, ctx.catalog.emails.defaultLanguage);
}

export async function getCustomerReference(ctx: AppContext, caller: Caller, id: number): Promise<CustomerResponse['customerReference']> {
  return (await embeddedParts(ctx, caller, id)).customerReference;
}

export async function getCustomerAcquisition(
  ctx: AppContext,
  caller: Caller,
  id: number,
): Promise<CustomerResponse['customerAcquisition']> {
  return (await embeddedParts(ctx, caller, id)).customerAcquisition;
}

export async function getSalesTrackingCode(
  ctx: AppContext,
  caller: Caller,
  id: number,
  codeId: number,
): Promise<CustomerResponse['customerReference']['salesTrackingCodes'][number]> {
  const code = (await embeddedParts(ctx, caller, id)).customerReference.salesTrackingCodes.find((c) => c.id === codeId);
  if (!code) throw Refusal.notFound('sales tracking code', codeId);
  return code;
}

export async function createCustomer(ctx: AppContext, caller: Caller, input: CreateCustomerInput): Promise<CustomerResponse> {
  const checked = checkNewCustomer(ctx.catalog, input);
  const now = await ctx.clock.now(caller.accountId);
  return ctx.db
    .transaction()
    .execute(async (trx) => {
      if (input.parentId != null) await assertParentExists(trx, caller, input.parentId);
      const { record, enabledEndpoints } = await insertNewCustomer(trx, {
        customer: {
          accountId: caller.accountId,
          ...customerColumns(input),
          portalUserName: checked.portalUserName,
          language: input.language ?? null,
          currency: checked.currency,
          crmSynchStatus: input.crmSynchStatus ?? 'Disabled',
          erpId: input.erpId ?? null,
          erpSynchStatus: input.erpSynchStatus ?? 'Disabled',
          erpCustomerType: input.companyName ? 'Company' : 'Individual',
          accountingSyncToken: null,
          lifetimeValue: money(input.lifetimeValue ?? 0).toString(),
          createdAt: now,
          modifiedAt: now,
          statusAt: now,
          accountStatusAt: now,
        },
        reference: referenceColumns(input.customerReference),
        salesTrackingCodes: checked.codes,
        acquisition: acquisitionColumns(input.customerAcquisition),
        billingSetting: newBillingSettingColumns(input),
        billingPeriodConfigurations: checked.periods,
        addressPreference: {
          contactName: input.addressPreference?.contactName ?? null,
          shippingInstructions: input.addressPreference?.shippingInstructions ?? null,
          useBillingAddressAsShippingAddress: input.addressPreference?.useBillingAddressAsShippingAddress ?? false,
        },
        addresses: [
          ...(checked.billing ? [{ accountId: caller.accountId, addressType: 'Billing', ...checked.billing }] : []),
          ...(checked.shipping ? [{ accountId: caller.accountId, addressType: 'Shipping', ...checked.shipping }] : []),
        ],
        audit: auditEntry(caller, { entityType: 'Customer', action: 'create', changes: stripNulls(input) }),
      });
      rememberEnabledEndpoints(trx, caller.accountId, enabledEndpoints);
      recordCreated('Customer', record.id); // audited in the insert's own statement
      // the stored customer, as a read would show it (no subscription yet, so no recurring revenue)
      const created = toCustomerResponse(record, ctx.uris, ctx.catalog.emails.defaultLanguage);
      await ctx.webhooks?.customer(trx, caller.accountId, record.id, 'customer.created', now, created);
      return created;
    })
    .catch(rethrowPortalUserNameConflict);
}

/** Everything about a new customer that is checked before the transaction: a 400 costs no database work. */
function checkNewCustomer(catalog: Catalog, input: CreateCustomerInput) {
  const currency = resolveNewCustomerCurrency(catalog, input.currency);
  const codes = resolveSalesTrackingCodes(catalog, input.customerReference?.salesTrackingCodes);
  if (input.portalUserName != null && input.username != null && input.portalUserName !== input.username) {
    throw Refusal.invalid("username is the create body's name for portalUserName: give one value", 'username', 'value_invalid');
  }
  const portalUserName = input.portalUserName ?? input.username ?? null;
  const billing = input.billing ? resolveAddress(input.billing, 'billing') : null;
  const shipping = input.shipping ? resolveAddress(input.shipping, 'shipping') : null;
  const setting = input.billingSetting ?? {};
  // The same rules as PUT /v1/customerbillingsetting; a new customer has no payment method yet.
  checkBillingSettingRules(setting, { hasPaymentMethod: false }, 'billingSetting.');
  const statement = setting.customerBillingStatementSetting;
  if (statement) checkPeriodDayAndMonth(statement, 'billingSetting.customerBillingStatementSetting');
  const periods = newCustomerBillingPeriods(input);
  if (
    input.trackedItemDisplay &&
    setting.trackedItemDisplay &&
    JSON.stringify(input.trackedItemDisplay) !== JSON.stringify(setting.trackedItemDisplay)
  ) {
    throw Refusal.invalid(
      'trackedItemDisplay is also given at the top level, with other values: give it once',
      'billingSetting.trackedItemDisplay',
      'value_invalid',
    );
  }
  return { currency, codes, portalUserName, billing, shipping, periods };
}

/** The billing setting row of a new customer: its columns, and the presentation options kept as one JSON value. */
function newBillingSettingColumns(input: CreateCustomerInput) {
  const {
    rollUpPdfsByPlanProduct,
    rollUpPdfsDisplayName,
    rollUpPdfsDisplayDescription,
    rollUpPdfsDisplayAllUnitPrices,
    pdfInvoiceEmailAttachmentOption,
    rechargeThresholdAmount,
    rechargeTargetAmount,
    acquisitionCost,
    taxExempt,
    billingPeriodConfigurations: _periods,
    trackedItemDisplay: settingTrackedItemDisplay,
    customerBillingStatementSetting: statement,
    defaultPaymentMethodId: _noPaymentMethodYet,
    ...columns
  } = input.billingSetting ?? {};
  return {
    ...columns,
    defaultCancelOption: columns.defaultCancelOption ?? null,
    taxExempt: taxExempt ?? false,
    rechargeThresholdAmount: rechargeThresholdAmount ?? null,
    rechargeTargetAmount: rechargeTargetAmount ?? null,
    acquisitionCost: acquisitionCost ?? null,
    presentation: JSON.stringify({
      rollUpPdfsByPlanProduct,
      rollUpPdfsDisplayName,
      rollUpPdfsDisplayDescription,
      rollUpPdfsDisplayAllUnitPrices,
      pdfInvoiceEmailAttachmentOption,
      trackedItemDisplay: input.trackedItemDisplay ?? settingTrackedItemDisplay ?? null,
    }),
    customerBillingStatementSetting: statement ? JSON.stringify(wholeStatementSetting(statement)) : null,
  };
}

/**
 * A new customer's billing period configurations: `monthlyBillingPeriodConfiguration`,
 * `yearlyBillingPeriodConfiguration` and `billingSetting.billingPeriodConfigurations`
 * together, at most one per interval (one given twice is a 400, not a silent choice).
 */
function newCustomerBillingPeriods(input: CreateCustomerInput) {
  const monthly = input.monthlyBillingPeriodConfiguration;
  const yearly = input.yearlyBillingPeriodConfiguration;
  const periods = [
    ...(monthly ? [{ interval: 'Monthly', type: monthly.type, rule: monthly.rule, day: monthly.day ?? null, month: null }] : []),
    ...(yearly ? [{ interval: 'Yearly', type: yearly.type, rule: yearly.rule, day: yearly.day ?? null, month: yearly.month ?? null }] : []),
  ];
  const nested = input.billingSetting?.billingPeriodConfigurations ?? [];
  checkBillingPeriodConfigurations(nested, 'billingSetting.');
  nested.forEach((p, i) => {
    if (periods.some((q) => q.interval === p.interval)) {
      throw Refusal.invalid(
        `the ${p.interval} configuration is also given as ${p.interval.toLowerCase()}BillingPeriodConfiguration: give it once`,
        `billingSetting.billingPeriodConfigurations[${i}].interval`,
        'value_invalid',
      );
    }
  });
  return [
    ...periods,
    ...nested.map((p) => ({ interval: p.interval, type: p.type, rule: p.rule, day: p.day ?? null, month: p.month ?? null })),
  ];
}

export async function updateCustomer(ctx: AppContext, caller: Caller, input: UpdateCustomerInput): Promise<CustomerResponse> {
  const codes = resolveSalesTrackingCodes(ctx.catalog, input.customerReference?.salesTrackingCodes);
  await ctx.db
    .transaction()
    .execute(async (trx) => {
      const current = await lockCustomer(trx, caller.accountId, input.id);
      if (!current) throw Refusal.notFound('customer', input.id);
      assertStatusChangeAllowed(current.status, input.status, input.id);
      if (input.currency && input.currency.toUpperCase() !== current.currency) {
        throw Refusal.invalid(`currency cannot change after creation (it is ${current.currency})`, 'currency', 'value_invalid');
      }
      // portalUserName is read-only once set: omitted or null keeps it, another value is refused.
      let portalUserName = current.portalUserName;
      if (input.portalUserName != null && input.portalUserName !== current.portalUserName) {
        if (current.portalUserName !== null)
          throw Refusal.invalid('portalUserName cannot change once set', 'portalUserName', 'value_invalid');
        portalUserName = input.portalUserName;
      }
      if (input.parentId != null) {
        if (input.parentId === input.id) throw Refusal.invalid('a customer cannot be its own parent', 'parentId', 'value_invalid');
        await assertParentExists(trx, caller, input.parentId);
      }
      // language is an extension a client of the spec does not know: left out, it stays as it is.
      const language = input.language === undefined ? current.language : input.language;
      const next = { ...customerColumns(input), portalUserName, language, erpCustomerType: input.companyName ? 'Company' : 'Individual' };
      const changes = diffFields(current, next);
      await updateCustomerRow(trx, caller.accountId, input.id, { ...next, modifiedAt: await ctx.clock.now(caller.accountId, trx) });
      await writeReferenceAndAcquisition(trx, input.id, input.customerReference, codes, input.customerAcquisition);
      await recordChange(trx, caller, {
        entityType: 'Customer',
        entityId: input.id,
        action: 'update',
        changes: { ...changes, customerReference: input.customerReference ?? null, customerAcquisition: input.customerAcquisition ?? null },
      });
    })
    .catch(rethrowPortalUserNameConflict);
  return getCustomer(ctx, caller, input.id);
}

/** Status changes belong to the lifecycle endpoints (customers/status-graph.ts); PUT may only keep the status as it is. */
function assertStatusChangeAllowed(from: string, to: string, id: number) {
  if (from === to) return;
  const route = routeToStatus(from, to, id);
  // Only the clock suspends: the spec's "only the system suspends customers", keyed on no field.
  if (route && 'systemOnly' in route)
    throw Refusal.invalid(`only the system ${route.systemOnly}s customers`, API_ERROR_KEY, 'value_invalid');
  throw Refusal.invalid(
    route ? `status cannot change from ${from} to ${to} through PUT; use ${route.endpoint}` : `status cannot change from ${from} to ${to}`,
    'status',
    'value_invalid',
  );
}

function customerColumns(input: CreateCustomerInput | UpdateCustomerInput) {
  return {
    title: input.title ?? null,
    firstName: input.firstName ?? null,
    middleName: input.middleName ?? null,
    lastName: input.lastName ?? null,
    companyName: input.companyName ?? null,
    suffix: input.suffix ?? null,
    primaryEmail: input.primaryEmail ?? null,
    primaryPhone: input.primaryPhone ?? null,
    secondaryEmail: input.secondaryEmail ?? null,
    secondaryPhone: input.secondaryPhone ?? null,
    reference: input.reference ?? null,
    crmId: input.crmId ?? null,
    crmAccountType: input.crmAccountType ?? null,
    parentId: input.parentId ?? null,
    accountingLatchType: input.accountingLatchType ?? null,
    accountingId: input.accountingId ?? null,
    marketingId: input.marketingId ?? null,
  };
}

async function writeReferenceAndAcquisition(
  db: Queryable,
  customerId: number,
  reference: CustomerReferenceInput | null | undefined,
  codes: ReturnType<typeof resolveSalesTrackingCodes>,
  acquisition: CreateCustomerInput['customerAcquisition'],
) {
  await replaceCustomerReference(db, customerId, referenceColumns(reference), codes);
  await replaceCustomerAcquisition(db, customerId, acquisitionColumns(acquisition));
}

function referenceColumns(reference: CustomerReferenceInput | null | undefined) {
  return reference
    ? { reference1: reference.reference1 ?? null, reference2: reference.reference2 ?? null, reference3: reference.reference3 ?? null }
    : null;
}

function acquisitionColumns(acquisition: CreateCustomerInput['customerAcquisition']) {
  return acquisition
    ? {
        adContent: acquisition.adContent ?? null,
        campaign: acquisition.campaign ?? null,
        keyword: acquisition.keyword ?? null,
        landingPage: acquisition.landingPage ?? null,
        medium: acquisition.medium ?? null,
        source: acquisition.source ?? null,
      }
    : null;
}

async function assertParentExists(db: Queryable, caller: Caller, parentId: number) {
  if (!(await customerExists(db, caller.accountId, parentId))) {
    throw Refusal.invalid(`no customer with id ${parentId}`, 'parentId', 'not_found');
  }
}

/** The currency of a new customer: required when the account allows several, else the account default. */
export function resolveNewCustomerCurrency(catalog: Catalog, currency: string | null | undefined): string {
  const allowed = catalog.currencies.allowed;
  if (!currency) {
    if (allowed.length > 1) {
      throw Refusal.invalid(`required: this account bills in ${allowed.join(', ')}`, 'currency', 'value_required');
    }
    return catalog.currencies.default;
  }
  const code = currency.toUpperCase();
  if (!allowed.includes(code)) throw Refusal.invalid(`must be one of ${allowed.join(', ')}`, 'currency', 'value_invalid');
  return code;
}

/**
 * Each code must exist under its type in the account's list; a type's place in
 * that list is its slot (SalesTrackingCode1 … 5), one code per type.
 */
export function resolveSalesTrackingCodes(
  catalog: Catalog,
  codes: ReadonlyArray<{ type: string; code: string }> | null | undefined,
): Array<{ position: number; type: string; code: string; name: string | null }> {
  if (!codes) return [];
  const seen = new Set<number>();
  return codes.map((given, index) => {
    const key = `customerReference.salesTrackingCodes[${index}]`;
    const typeIndex = catalog.salesTrackingCodes.findIndex((t) => t.type.toLowerCase() === given.type.toLowerCase());
    const type = catalog.salesTrackingCodes[typeIndex];
    if (!type) throw Refusal.invalid(`unknown sales tracking code type "${given.type}"`, `${key}.type`, 'value_invalid');
    const code = type.codes.find((c) => c.code.toLowerCase() === given.code.toLowerCase());
    if (!code) throw Refusal.invalid(`code "${given.code}" does not exist under type "${type.type}"`, `${key}.code`, 'value_invalid');
    if (seen.has(typeIndex)) throw Refusal.invalid(`only one code of type "${type.type}"`, `${key}.type`, 'value_invalid');
    seen.add(typeIndex);
    return { position: typeIndex + 1, type: type.type, code: code.code, name: code.name ?? null };
  });
}

/** Customer-create addresses carry 2-letter ISO codes; rows keep ISO numeric country and stable state ids. */
function resolveAddress(address: AddressInput, field: 'billing' | 'shipping') {
  return {
    companyName: address.companyName ?? null,
    line1: address.line1 ?? null,
    line2: address.line2 ?? null,
    city: address.city ?? null,
    postalZip: address.postalZip ?? null,
    ...resolveLocation({ country: address.country, state: address.state }, { country: `${field}.country`, state: `${field}.state` }),
  };
}

function rethrowPortalUserNameConflict(error: unknown): never {
  if (isPortalUserNameConflict(error)) throw Refusal.invalid('already used by another customer', 'portalUserName', 'value_taken');
  throw error;
}

function stripNulls(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined));
}

export type { CustomerRecord };
