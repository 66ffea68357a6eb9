import type { CustomerLanguage } from '../catalog/schema.js';
import type { Queryable } from '../db/database.js';
import type { UriBuilder } from '../uri-builder.js';
import { toJsonAmount } from '../money/money.js';
import { recurringRevenueByCustomer } from '../plans/recurring-revenue.js';
import { findActiveSubscriptionsWithProducts, type CustomerRecord } from './repository.js';
import type { CustomerResponse } from './schemas.js';

/**
 * Customers as the API returns them, recurring revenue included (one more query for
 * the page's customers that have an Active subscription, unless read with the customer; none when no customer has).
 */
export async function toCustomerResponses(
  db: Queryable,
  uris: UriBuilder,
  defaultLanguage: CustomerLanguage,
  records: CustomerRecord[],
): Promise<CustomerResponse[]> {
  const [first] = records;
  if (!first) return [];
  const subscribers = records.filter((r) => r.hasActiveSubscriptions).map((r) => r.id);
  const preloaded = records.flatMap((r) => (r.activeSubscriptions ? [r.activeSubscriptions] : []));
  const revenue =
    preloaded.length === records.length
      ? recurringRevenueByCustomer(preloaded.flat())
      : subscribers.length > 0
        ? await customerRecurringRevenue(db, first.accountId, subscribers)
        : new Map<number, never>();
  return records.map((r) => toCustomerResponse(r, uris, defaultLanguage, revenue.get(r.id)));
}

/** The customer as the API returns it; `defaultLanguage`: the account's, shown when the customer has none of its own. */
export function toCustomerResponse(
  c: CustomerRecord,
  uris: UriBuilder,
  defaultLanguage: CustomerLanguage,
  revenue?: { gross: string; net: string },
): CustomerResponse {
  const uri = uris.resource('customers', c.id);
  return {
    id: c.id,
    uri,
    title: c.title as CustomerResponse['title'],
    firstName: c.firstName,
    middleName: c.middleName,
    lastName: c.lastName,
    companyName: c.companyName,
    suffix: c.suffix,
    primaryEmail: c.primaryEmail,
    primaryPhone: c.primaryPhone,
    secondaryEmail: c.secondaryEmail,
    secondaryPhone: c.secondaryPhone,
    reference: c.reference,
    status: c.status as CustomerResponse['status'],
    customerAccountStatus: c.customerAccountStatus as CustomerResponse['customerAccountStatus'],
    currency: c.currency,
    customerReference: {
      reference1: c.reference1,
      reference2: c.reference2,
      reference3: c.reference3,
      salesTrackingCodes: c.salesTrackingCodes.map((s) => ({
        type: s.type,
        code: s.code,
        name: s.name,
        id: s.position,
        uri: `${uri}/customerReference/salesTrackingCodes/${s.position}`,
      })),
      id: c.id,
      uri: `${uri}/customerReference`,
    },
    customerAcquisition: {
      adContent: c.adContent,
      campaign: c.campaign,
      keyword: c.keyword,
      landingPage: c.landingPage,
      medium: c.medium,
      source: c.source,
      id: c.id,
      uri: `${uri}/customerAcquisition`,
    },
    monthlyRecurringRevenue: toJsonAmount(revenue?.gross ?? '0'),
    netMonthlyRecurringRevenue: toJsonAmount(revenue?.net ?? '0'),
    crmId: c.crmId,
    crmAccountType: c.crmAccountType,
    crmSynchStatus: c.crmSynchStatus as CustomerResponse['crmSynchStatus'],
    erpId: c.erpId,
    erpSynchStatus: c.erpSynchStatus as CustomerResponse['erpSynchStatus'],
    erpCustomerType: c.erpCustomerType,
    portalUserName: c.portalUserName,
    language: (c.language as CustomerLanguage | null) ?? defaultLanguage,
    parentId: c.parentId,
    accountingLatchType: c.accountingLatchType,
    accountingId: c.accountingId,
    accountingSyncToken: c.accountingSyncToken,
    marketingId: c.marketingId,
    createdTimestamp: c.createdAt.toISOString(),
    modifiedTimestamp: c.modifiedAt.toISOString(),
  };
}

/**
 * Recurring revenue of customers: the sum over their Active subscriptions (the
 * spec's "current subscriptions only"), in one query for any number of customers.
 */
export async function customerRecurringRevenue(
  db: Queryable,
  accountId: number,
  customerIds: number[],
): Promise<Map<number, { gross: string; net: string }>> {
  return recurringRevenueByCustomer(await findActiveSubscriptionsWithProducts(db, accountId, customerIds));
}
