import { Refusal } from '../refusals/refusal.js';
import type { AppContext } from '../app-context.js';
import { effectiveBillingSettings } from '../billing-settings/effective-settings.js';
import { findBillingSetting } from '../billing-settings/repository.js';
import type { Caller } from '../http/auth.js';
import { accountStatusChanges } from '../ledger/account-status.js';
import { customerBalances } from '../ledger/balances.js';
import { daysUntilCancellation, daysUntilSuspension } from './dunning.js';
import { money, toJsonAmount } from '../money/money.js';
import { toCustomerResponses } from './customer-response.js';
import { customerDisplayName, findCustomerRecord, hasChildren, pendingChargesAndNextBilling } from './repository.js';
import type { CustomerOverviewResponse } from './schemas.js';

/** GET /v1/customers/{id}/overview: the customer's standing (balances, recurring revenue, dunning countdowns). */
export async function getCustomerOverview(ctx: AppContext, caller: Caller, id: number): Promise<CustomerOverviewResponse> {
  const now = await ctx.clock.now(caller.accountId);
  const record = await findCustomerRecord(ctx.db, caller.accountId, id, now);
  if (!record) throw Refusal.notFound('customer', id);
  const [balances, statusChanges, parentName, isParent, setting, pending] = await Promise.all([
    customerBalances(ctx.db, id),
    accountStatusChanges(ctx.db, id, now),
    record.parentId ? customerDisplayName(ctx.db, caller.accountId, record.parentId) : Promise.resolve(null),
    hasChildren(ctx.db, caller.accountId, id),
    findBillingSetting(ctx.db, id),
    pendingChargesAndNextBilling(ctx.db, id),
  ]);
  const [customer] = await toCustomerResponses(ctx.db, ctx.uris, ctx.catalog.emails.defaultLanguage, [record]);
  if (!customer) throw new Error('a customer row gave no response');
  const accountStatus = customer.customerAccountStatus;
  const dunning = effectiveBillingSettings(setting, ctx.catalog);
  return {
    id: record.id,
    uri: ctx.uris.resource('customers', `${record.id}/overview`),
    title: record.title,
    firstName: record.firstName,
    middleName: record.middleName,
    lastName: record.lastName,
    suffix: record.suffix,
    primaryEmail: record.primaryEmail,
    primaryPhone: record.primaryPhone,
    companyName: record.companyName,
    reference: record.reference,
    createdTimestamp: record.createdAt.toISOString(),
    status: customer.status,
    customerAccountStatus: accountStatus,
    pendingCharges: toJsonAmount(pending.pendingCharges),
    arBalance: toJsonAmount(balances.arBalance),
    unallocatedPayments: toJsonAmount(balances.unallocatedPayments),
    unallocatedCredits: toJsonAmount(balances.unallocatedCredits),
    unallocatedOpeningBalance: toJsonAmount(balances.unallocatedOpeningBalance),
    currency: record.currency,
    daysUntilSuspension:
      accountStatus === 'PoorStanding' && statusChanges.poorStandingSince
        ? daysUntilSuspension(statusChanges.poorStandingSince, dunning, now)
        : null,
    daysUntilCancellation: daysUntilCancellation({ status: customer.status, statusAt: record.statusAt }, dunning, now),
    // the last move into or out of PoorStanding (derived from the ledger), or of the stored status (creation)
    customerAccountStatusTimestamp: latest(record.accountStatusAt, statusChanges.lastChangeAt).toISOString(),
    statusTimestamp: record.statusAt.toISOString(),
    lifetimeValue: toJsonAmount(money(record.lifetimeValue).plus(balances.netPayments)),
    monthlyRecurringRevenue: customer.monthlyRecurringRevenue,
    netMonthlyRecurringRevenue: customer.netMonthlyRecurringRevenue,
    nextBillingDate: pending.nextBillingDate ? `${pending.nextBillingDate}T00:00:00.000Z` : null,
    crmSynchStatus: customer.crmSynchStatus,
    crmId: record.crmId,
    accountingId: record.accountingId,
    erpId: record.erpId,
    marketingId: record.marketingId,
    parentId: record.parentId,
    parentName,
    isParent,
    unknownPaymentActivityId: null,
  };
}

function latest(a: Date, b: Date | null): Date {
  return b && b.getTime() > a.getTime() ? b : a;
}
