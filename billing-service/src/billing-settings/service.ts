import { API_ERROR_KEY } from '../refusals/error-codes.js';
import { Refusal } from '../refusals/refusal.js';
import { diffFields, recordChange } from '../audit/audit-log.js';
import { customerExists, lockCustomer } from '../db/customer-lock.js';
import type { Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import type { UriBuilder } from '../uri-builder.js';
import { toJsonAmount } from '../money/money.js';
import type { Catalog } from '../catalog/schema.js';
import { effectiveBillingSettings } from './effective-settings.js';
import { findBillingPeriods, findBillingSetting, paymentMethodsOnFile, replaceBillingPeriods, saveBillingSetting } from './repository.js';
import { checkBillingPeriodConfigurations, checkBillingSettingRules, checkPeriodDayAndMonth } from './rules.js';
import type { BillingSettingResponse, StoredStatementSetting, StoredTrackedItemDisplay, UpdateBillingSettingInput } from './schemas.js';

/** Presentation flags kept together in one JSON column: they only shape invoices and PDFs. */
const PRESENTATION_FIELDS = [
  'rollUpPdfsByPlanProduct',
  'rollUpPdfsDisplayName',
  'rollUpPdfsDisplayDescription',
  'rollUpPdfsDisplayAllUnitPrices',
  'pdfInvoiceEmailAttachmentOption',
  'trackedItemDisplay',
] as const;

type TrackedItemDisplayValue = StoredTrackedItemDisplay;
type StatementSettingValue = StoredStatementSetting;

/** Nested objects are stored whole: every key, null where unset (also when nothing was ever set). */
export function wholeTrackedItemDisplay(
  value: Partial<Record<keyof TrackedItemDisplayValue, unknown>> | null | undefined,
): TrackedItemDisplayValue {
  const v = (value ?? {}) as Partial<TrackedItemDisplayValue>;
  return {
    trackedItemDisplayFormat: v.trackedItemDisplayFormat ?? null,
    showTrackedItemName: v.showTrackedItemName ?? null,
    showTrackedItemReference: v.showTrackedItemReference ?? null,
    showTrackedItemDescription: v.showTrackedItemDescription ?? null,
    showTrackedItemCreatedDate: v.showTrackedItemCreatedDate ?? null,
  };
}

export function wholeStatementSetting(
  value: Partial<Record<keyof StatementSettingValue, unknown>> | null | undefined,
): StatementSettingValue {
  const v = (value ?? {}) as Partial<StatementSettingValue>;
  return {
    option: v.option ?? null,
    type: v.type ?? null,
    interval: v.interval ?? null,
    day: v.day ?? null,
    month: v.month ?? null,
    trackedItemDisplay: wholeTrackedItemDisplay(v.trackedItemDisplay),
    statementActivityType: v.statementActivityType ?? null,
  };
}

/** A stored tracked item display as answered: an unset flag is false (not shown: Renew has no tracked items to show). */
function trackedItemDisplayInEffect(stored: TrackedItemDisplayValue): BillingSettingResponse['trackedItemDisplay'] {
  return {
    trackedItemDisplayFormat: stored.trackedItemDisplayFormat,
    showTrackedItemName: stored.showTrackedItemName ?? false,
    showTrackedItemReference: stored.showTrackedItemReference ?? false,
    showTrackedItemDescription: stored.showTrackedItemDescription ?? false,
    showTrackedItemCreatedDate: stored.showTrackedItemCreatedDate ?? false,
  };
}

/**
 * The setting as answered. A field the spec types "or null" keeps null ("the account's default");
 * the others answer the value in effect: the customer's own, else the account's default (the
 * catalogue's `defaults`, else Renew's: no grace extension, no acquisition cost, flags off, detailed
 * PDFs). Stored nulls stay null, so a customer follows a later change of the account's default.
 */
async function readBillingSetting(db: Queryable, uris: UriBuilder, catalog: Catalog, customerId: number): Promise<BillingSettingResponse> {
  const [row, periods, methods] = await Promise.all([
    findBillingSetting(db, customerId),
    findBillingPeriods(db, customerId),
    paymentMethodsOnFile(db, customerId),
  ]);
  if (!row) throw new Error(`customer ${customerId} has no billing setting row`);
  const effective = effectiveBillingSettings(row, catalog);
  const presentation = row.presentation as Record<string, unknown>;
  const flag = (name: string) => (presentation[name] as boolean | null | undefined) ?? false;
  const amount = (value: string | null) => (value === null ? null : toJsonAmount(value));
  const statement = wholeStatementSetting(row.customerBillingStatementSetting as StatementSettingValue | null);
  return {
    invoiceDay: row.invoiceDay,
    term: effective.term,
    interval: row.interval as BillingSettingResponse['interval'],
    autoCollect: row.autoCollect,
    rechargeType: row.rechargeType,
    rechargeThresholdAmount: amount(row.rechargeThresholdAmount),
    rechargeTargetAmount: amount(row.rechargeTargetAmount),
    statusOnThreshold: row.statusOnThreshold ?? false,
    autoPostDraftInvoice: row.autoPostDraftInvoice,
    hasPaymentMethod: methods.any,
    customerGracePeriod: effective.customerGracePeriod,
    gracePeriodExtension: effective.gracePeriodExtension,
    customerAutoCancel: effective.customerAutoCancel,
    defaultCancelOption: row.defaultCancelOption as BillingSettingResponse['defaultCancelOption'],
    standingPoNumber: row.standingPoNumber,
    billingPeriodConfigurations: periods.map((p) => ({ type: p.type, rule: p.rule, interval: p.interval, day: p.day, month: p.month })),
    acquisitionCost: toJsonAmount(row.acquisitionCost ?? '0'),
    showZeroDollarCharges: row.showZeroDollarCharges,
    taxExempt: row.taxExempt,
    taxExemptCode: row.taxExemptCode,
    useCustomerBillingAddress: row.useCustomerBillingAddress,
    taxUsageType: row.taxUsageType,
    vatIdentificationNumber: row.vatIdentificationNumber === null ? null : Number(row.vatIdentificationNumber),
    customerServiceStartOption: row.customerServiceStartOption,
    rollUpTaxes: row.rollUpTaxes,
    rollUpDiscounts: row.rollUpDiscounts,
    rollUpPdfsByPlanProduct: flag('rollUpPdfsByPlanProduct'),
    rollUpPdfsDisplayName: flag('rollUpPdfsDisplayName'),
    rollUpPdfsDisplayDescription: flag('rollUpPdfsDisplayDescription'),
    rollUpPdfsDisplayAllUnitPrices: flag('rollUpPdfsDisplayAllUnitPrices'),
    // the invoice e-mail attaches the detailed PDF
    pdfInvoiceEmailAttachmentOption:
      (presentation.pdfInvoiceEmailAttachmentOption as BillingSettingResponse['pdfInvoiceEmailAttachmentOption'] | null | undefined) ??
      'Details',
    trackedItemDisplay: trackedItemDisplayInEffect(
      wholeTrackedItemDisplay(presentation.trackedItemDisplay as TrackedItemDisplayValue | null | undefined),
    ),
    customerBillingStatementSetting: { ...statement, trackedItemDisplay: trackedItemDisplayInEffect(statement.trackedItemDisplay) },
    defaultPaymentMethodId: methods.defaultId,
    postReadyChargesOnRenew: row.postReadyChargesOnRenew,
    id: customerId,
    uri: uris.resource('customerbillingsetting', customerId),
  };
}

export async function getBillingSetting(ctx: AppContext, caller: Caller, customerId: number): Promise<BillingSettingResponse> {
  if (!(await customerExists(ctx.db, caller.accountId, customerId))) throw Refusal.notFound('customer', customerId);
  return readBillingSetting(ctx.db, ctx.uris, ctx.catalog, customerId);
}

/**
 * How a billing setting's `defaultPaymentMethodId` moves the customer's default card. The cards are
 * the payment-methods folder's (one layer up, the only writer of payment_methods): it implements
 * this port, and the wiring (app.ts) hands it to the routes. Runs in the setting's transaction.
 */
export interface DefaultCardPort {
  makeDefault(trx: Queryable, customerId: number, paymentMethodId: number, now: Date): Promise<void>;
}

/** Full replacement of a customer's billing setting, checked against the customer's state in one transaction. */
export async function updateBillingSetting(
  ctx: AppContext,
  caller: Caller,
  input: UpdateBillingSettingInput,
  defaultCards: DefaultCardPort,
): Promise<BillingSettingResponse> {
  checkBillingPeriodConfigurations(input.billingPeriodConfigurations ?? []);
  const statement = input.customerBillingStatementSetting;
  if (statement) checkPeriodDayAndMonth(statement, 'customerBillingStatementSetting');

  return ctx.db.transaction().execute(async (trx) => {
    const customer = await lockCustomer(trx, caller.accountId, input.id);
    if (!customer) throw Refusal.notFound('customer', input.id);
    const current = await findBillingSetting(trx, customer.id);
    const methods = await paymentMethodsOnFile(trx, customer.id);
    checkBillingSettingRules(input, { hasPaymentMethod: methods.any });

    const invoiceDay = keptInvoiceDay(customer.status, current?.invoiceDay ?? null, input.invoiceDay);
    await moveDefaultCard(ctx, caller, trx, { customerId: customer.id, methods, wanted: input.defaultPaymentMethodId, defaultCards });

    const { row, presentation } = billingSettingRow(customer.id, invoiceDay, input);
    await saveBillingSetting(trx, row);
    await replaceBillingPeriods(
      trx,
      customer.id,
      (input.billingPeriodConfigurations ?? []).map((p) => ({
        interval: p.interval,
        type: p.type,
        rule: p.rule,
        day: p.day ?? null,
        month: p.month ?? null,
      })),
    );
    // The audit entry lists changed columns and changed presentation flags alike.
    const { presentation: _stored, customerId: _id, ...columns } = row;
    await recordChange(trx, caller, {
      entityType: 'CustomerBillingSetting',
      entityId: customer.id,
      action: 'update',
      changes: {
        ...diffFields(current ?? {}, columns),
        ...diffFields(current?.presentation ?? {}, presentation),
        billingPeriodConfigurations: input.billingPeriodConfigurations ?? [],
      },
    });
    return readBillingSetting(trx, ctx.uris, ctx.catalog, customer.id);
  });
}

/** The row PUT /v1/customerbillingsetting stores: what is not given is null (the whole setting is replaced). */
function billingSettingRow(customerId: number, invoiceDay: number | null, input: UpdateBillingSettingInput) {
  const presentation = {
    ...Object.fromEntries(PRESENTATION_FIELDS.map((f) => [f, input[f] ?? null])),
    trackedItemDisplay: wholeTrackedItemDisplay(input.trackedItemDisplay),
  };
  const row = {
    customerId,
    invoiceDay,
    term: input.term ?? null,
    interval: input.interval ?? null,
    autoCollect: input.autoCollect ?? null,
    rechargeType: input.rechargeType ?? null,
    rechargeThresholdAmount: input.rechargeThresholdAmount ?? null,
    rechargeTargetAmount: input.rechargeTargetAmount ?? null,
    statusOnThreshold: input.statusOnThreshold ?? null,
    autoPostDraftInvoice: input.autoPostDraftInvoice ?? null,
    customerGracePeriod: input.customerGracePeriod ?? null,
    gracePeriodExtension: input.gracePeriodExtension ?? null,
    customerAutoCancel: input.customerAutoCancel ?? null,
    defaultCancelOption: input.defaultCancelOption ?? null,
    standingPoNumber: input.standingPoNumber ?? null,
    acquisitionCost: input.acquisitionCost ?? null,
    showZeroDollarCharges: input.showZeroDollarCharges ?? null,
    taxExempt: input.taxExempt ?? false,
    taxExemptCode: input.taxExemptCode ?? null,
    useCustomerBillingAddress: input.useCustomerBillingAddress ?? null,
    taxUsageType: input.taxUsageType ?? null,
    vatIdentificationNumber: input.vatIdentificationNumber ?? null,
    customerServiceStartOption: input.customerServiceStartOption ?? null,
    rollUpTaxes: input.rollUpTaxes ?? null,
    rollUpDiscounts: input.rollUpDiscounts ?? null,
    postReadyChargesOnRenew: input.postReadyChargesOnRenew ?? null,
    presentation: JSON.stringify(presentation),
    customerBillingStatementSetting: JSON.stringify(wholeStatementSetting(input.customerBillingStatementSetting)),
  };
  return { row, presentation };
}

/** invoiceDay is deprecated and read-only in practice: null or omitted keeps it; a new value is refused once the customer is Active. */
function keptInvoiceDay(customerStatus: string, current: number | null, given: number | null | undefined): number | null {
  if (given == null || given === current) return current;
  if (customerStatus === 'Active')
    throw Refusal.invalid('the invoice day cannot be set while the customer is Active', API_ERROR_KEY, 'state_conflict');
  return given;
}

/** Makes the wanted card on file the default, when it is another one. */
async function moveDefaultCard(
  ctx: AppContext,
  caller: Caller,
  trx: Queryable,
  change: {
    customerId: number;
    methods: { defaultId: number | null; ids: number[] };
    wanted: number | null | undefined;
    defaultCards: DefaultCardPort;
  },
): Promise<void> {
  const { customerId, methods, wanted } = change;
  if (wanted == null || wanted === methods.defaultId) return;
  if (!methods.ids.includes(wanted)) {
    throw Refusal.invalid(`payment method ${wanted} is not on file for this customer`, 'defaultPaymentMethodId', 'not_found');
  }
  await change.defaultCards.makeDefault(trx, customerId, wanted, await ctx.clock.now(caller.accountId, trx));
}
