import type { Insertable, Selectable } from 'kysely';
import type { Queryable } from '../db/database.js';
import type { PortalCancellationsTable } from '../db/schema.js';

/*
 * Cancellations asked for at the end of a period (the customer portal's "cancel at period end"):
 * a lifecycle request the billing clock carries out when the period ends (clock-repository.ts
 * claims them). The portal writes and withdraws them through these; this folder owns the table.
 */

export type PortalCancellationRow = Selectable<PortalCancellationsTable>;

export async function insertPortalCancellation(db: Queryable, row: Insertable<PortalCancellationsTable>): Promise<PortalCancellationRow> {
  return db.insertInto('portalCancellations').values(row).returningAll().executeTakeFirstOrThrow();
}

/** The cancellation a customer asked for and has neither withdrawn nor seen carried out by the billing clock, if any. */
export function findPendingCancellation(db: Queryable, subscriptionId: number): Promise<PortalCancellationRow | undefined> {
  return db
    .selectFrom('portalCancellations')
    .selectAll()
    .where('subscriptionId', '=', subscriptionId)
    .where('withdrawnAt', 'is', null)
    .where('carriedOutAt', 'is', null)
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

/** Withdraws a pending request; false when the billing clock carried it out meanwhile (or it was withdrawn). */
export async function withdrawCancellation(db: Queryable, id: number, now: Date): Promise<boolean> {
  const rows = await db
    .updateTable('portalCancellations')
    .set({ withdrawnAt: now })
    .where('id', '=', id)
    .where('withdrawnAt', 'is', null)
    .where('carriedOutAt', 'is', null)
    .returning('id')
    .execute();
  return rows.length === 1;
}
