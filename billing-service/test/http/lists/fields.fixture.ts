import { sql } from 'kysely';
import type { ListField } from '../../../src/http/lists/index.js';
import type { Db } from '../../../src/db/database.js';

export const STATUSES = ['Draft', 'Active', 'Hold', 'Suspended', 'Cancelled'] as const;
export const TITLES = ['Mr', 'Mrs', 'Ms', 'Miss', 'Dr'] as const;

/** A customer-like field list: every field type, an aliased enum and an unsortable field. */
export const FIELDS: readonly ListField[] = [
  { name: 'FirstName', type: 'string', expression: sql.ref('customers.firstName') },
  { name: 'LastName', type: 'string', expression: sql.ref('customers.lastName') },
  { name: 'Reference', type: 'string', expression: sql.ref('customers.reference') },
  { name: 'Status', type: 'enum', values: STATUSES, expression: sql.ref('customers.status') },
  { name: 'Title', type: 'enum', values: TITLES, expression: sql.ref('customers.title') },
  {
    name: 'ErpEntityType',
    type: 'enum',
    values: ['Individual', 'Company'],
    aliases: { '1': 'Individual', '2': 'Company' },
    expression: sql.ref('customers.erpCustomerType'),
  },
  { name: 'MarketingId', type: 'integer', expression: sql.ref('customers.marketingId') },
  { name: 'CreatedTimestamp', type: 'date', expression: sql.ref('customers.createdAt') },
  { name: 'PrimaryEmail', type: 'string', expression: sql.ref('customers.primaryEmail'), sortable: false },
];

/** Adds a field backed by a correlated subquery (a child table), as customer lists need. */
export function fieldsWithSubquery(db: Db): readonly ListField[] {
  return [
    ...FIELDS,
    {
      name: 'CustomerReference.Reference1',
      type: 'string',
      expression: db
        .selectFrom('customerReferences')
        .select('customerReferences.reference1')
        // the outer query's table: not known to this builder, hence a plain reference
        .where('customerReferences.customerId', '=', sql.ref<number>('customers.id')),
    },
  ];
}
