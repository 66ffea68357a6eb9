import { sql } from 'kysely';
import type { Catalog } from '../catalog/schema.js';
import { findCurrency } from '../catalog/currencies.js';
import type { ListField } from '../http/lists/index.js';
import { customerAccountStatusSql } from '../ledger/account-status.js';
import {
  ACCOUNT_STATUSES,
  ACCOUNTING_LATCH_TYPES,
  CRM_ACCOUNT_TYPES,
  CUSTOMER_STATUSES,
  CUSTOMER_TITLES,
  SYNCH_STATUSES,
} from './schemas.js';

const column = (name: string) => sql.ref(`customers.${name}`);
const text = (name: string, expression = column(name)): ListField => ({ name, type: 'string', expression });
/** A column with a sort-order index, `(account_id, lower(column) collate "C" nulls first, id)` (migration 0026). */
const sortIndexedText = (name: string, expression = column(name)): ListField => ({ ...text(name, expression), sortIndexed: true });
const salesTrackingCode = (position: number, part: 'code' | 'name'): ListField => ({
  name: `CustomerReference.SalesTrackingCode${position}.${part === 'code' ? 'Code' : 'Name'}`,
  type: 'string',
  expression: sql`(select s.${sql.raw(part)} from customer_sales_tracking_codes s where s.customer_id = customers.id and s.position = ${sql.lit(position)})`,
});

/**
 * The filter and sort names of GET /v1/customers, as the spec lists them, for a
 * request at the account's time `now` (AccountStatus depends on it): built once,
 * only that field per request.
 */
export function customerListFields(catalog: Catalog): (now: Date) => ListField[] {
  const timeless = timelessCustomerListFields(catalog);
  return (now) => [
    { name: 'AccountStatus', type: 'enum', values: ACCOUNT_STATUSES, expression: customerAccountStatusSql(now) },
    ...timeless,
  ];
}

function timelessCustomerListFields(catalog: Catalog): ListField[] {
  const currencyAliases = Object.fromEntries(
    catalog.currencies.allowed.map((code) => [String(findCurrency(code)?.numericCode ?? code), code]),
  );
  return [
    sortIndexedText('CompanyName', column('companyName')),
    { name: 'CreatedTimestamp', type: 'date', expression: column('createdAt') },
    // CurrencyId takes the ISO 4217 numeric code (840 = USD) or the letter code; Currency the letter code.
    // The spec numbers currencies 1–24 without saying which is which, so those ids are refused, naming both forms.
    {
      name: 'CurrencyId',
      type: 'enum',
      values: catalog.currencies.allowed,
      aliases: currencyAliases,
      aliasesAre: 'the ISO 4217 numeric code',
      expression: column('currency'),
    },
    { name: 'Currency', type: 'enum', values: catalog.currencies.allowed, expression: column('currency') },
    text('CustomerAcquisition.AdContent', sql.ref('customerAcquisitions.adContent')),
    text('CustomerAcquisition.Campaign', sql.ref('customerAcquisitions.campaign')),
    text('CustomerAcquisition.Keyword', sql.ref('customerAcquisitions.keyword')),
    text('CustomerAcquisition.LandingPage', sql.ref('customerAcquisitions.landingPage')),
    text('CustomerAcquisition.Medium', sql.ref('customerAcquisitions.medium')),
    text('CustomerAcquisition.Source', sql.ref('customerAcquisitions.source')),
    text('CustomerReference.Reference1', sql.ref('customerReferences.reference1')),
    text('CustomerReference.Reference2', sql.ref('customerReferences.reference2')),
    text('CustomerReference.Reference3', sql.ref('customerReferences.reference3')),
    ...[1, 2, 3, 4, 5].flatMap((p) => [salesTrackingCode(p, 'code'), salesTrackingCode(p, 'name')]),
    sortIndexedText('FirstName', column('firstName')),
    { name: 'MarketingId', type: 'integer', expression: column('marketingId') },
    sortIndexedText('LastName', column('lastName')),
    text('MiddleName', column('middleName')),
    { name: 'ModifiedTimestamp', type: 'date', expression: column('modifiedAt') },
    {
      name: 'ErpEntityType',
      type: 'enum',
      values: ['Individual', 'Company'],
      aliases: { '1': 'Individual', '2': 'Company' },
      expression: column('erpCustomerType'),
    },
    text('ErpId', column('erpId')),
    { name: 'ErpSynchStatusId', type: 'enum', values: SYNCH_STATUSES, expression: column('erpSynchStatus') },
    { name: 'ParentId', type: 'integer', expression: column('parentId') },
    text('PrimaryEmail', column('primaryEmail')),
    text('PrimaryPhone', column('primaryPhone')),
    { name: 'AccountingId', type: 'integer', expression: column('accountingId') },
    { name: 'AccountingLatchTypeId', type: 'enum', values: ACCOUNTING_LATCH_TYPES, expression: column('accountingLatchType') },
    { name: 'AccountingSyncToken', type: 'integer', expression: column('accountingSyncToken') },
    text('Reference', column('reference')),
    { name: 'CrmAccountType', type: 'enum', values: CRM_ACCOUNT_TYPES, expression: column('crmAccountType') },
    text('CrmId', column('crmId')),
    { name: 'CrmSynchStatus', type: 'enum', values: SYNCH_STATUSES, expression: column('crmSynchStatus') },
    text('SecondaryEmail', column('secondaryEmail')),
    text('SecondaryPhone', column('secondaryPhone')),
    { name: 'Status', type: 'enum', values: CUSTOMER_STATUSES, expression: column('status') },
    text('Suffix', column('suffix')),
    { name: 'Title', type: 'enum', values: CUSTOMER_TITLES, expression: column('title') },
    { name: 'Id', type: 'integer', expression: column('id') },
    text('PortalUserName', column('portalUserName')),
  ];
}
