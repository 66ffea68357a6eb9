import { sql, type Insertable, type QueryCreator, type Updateable } from 'kysely';
import { auditInsert } from '../audit/audit-log.js';
import { customerStatusUpdate } from '../customers/repository.js';
import type { Queryable } from '../db/database.js';
import type { AuditLogTable, Database, SubscriptionsTable } from '../db/schema.js';
import { moveSubscriptionsOfCustomerQuery, type SubscriptionsMove } from '../subscriptions/repository.js';

export type MovedSubscription = { id: number; status: string; name: string; activatedAt: Date | null };

/**
 * The writes of a lifecycle transition in one statement (data-modifying CTEs, one round trip
 * instead of three): the customer's new status, its audit entry and, when `subscriptions` is
 * given, the move of the customer's subscriptions in one of `from` to `to` with `set` stamped
 * (`cancelledAt` narrows it to those cancelled at that moment that had been activated: uncancel).
 * Returns the subscriptions as updated (status is the new one).
 */
export async function writeTransition(
  db: Queryable,
  customer: { id: number; status: string; now: Date },
  audit: Omit<Insertable<AuditLogTable>, 'entityId'>,
  subscriptions?: SubscriptionsMove & { set: Updateable<SubscriptionsTable> },
): Promise<MovedSubscription[]> {
  type WithMoved = QueryCreator<Database & { movedSubscriptions: MovedSubscription }>;
  const query = db
    .with('changedCustomer', (qc) => customerStatusUpdate(qc as unknown as QueryCreator<Database>, customer))
    .with('newAudit', (qc) => auditInsert(qc as unknown as QueryCreator<Database>, { ...audit, entityId: customer.id }));
  if (!subscriptions) {
    await query.selectNoFrom(sql<number>`1`.as('written')).execute();
    return [];
  }
  const { set, ...move } = subscriptions;
  const withMoved = query.with('movedSubscriptions', (qc) =>
    moveSubscriptionsOfCustomerQuery(qc as unknown as QueryCreator<Database>, customer.id, move, set),
  ) as unknown as WithMoved;
  return withMoved.selectFrom('movedSubscriptions').selectAll().execute();
}
