import type { Insertable, Selectable } from 'kysely';
import type { Queryable } from '../db/database.js';
import type { PortalEmailChangesTable } from '../db/schema.js';

export type PortalEmailChangeRow = Selectable<PortalEmailChangesTable>;

export async function insertEmailChange(db: Queryable, row: Insertable<PortalEmailChangesTable>): Promise<void> {
  await db.insertInto('portalEmailChanges').values(row).execute();
}

/** A newer request replaces the customer's pending ones: only the newest link can apply a change. */
export async function supersedeEmailChanges(db: Queryable, customerId: number, now: Date): Promise<void> {
  await db
    .updateTable('portalEmailChanges')
    .set({ supersededAt: now })
    .where('customerId', '=', customerId)
    .where('usedAt', 'is', null)
    .where('supersededAt', 'is', null)
    .execute();
}

/** The address waiting for its confirmation (the newest live request), or undefined. */
export async function findPendingEmailChange(db: Queryable, customerId: number, now: Date): Promise<PortalEmailChangeRow | undefined> {
  return db
    .selectFrom('portalEmailChanges')
    .selectAll()
    .where('customerId', '=', customerId)
    .where('usedAt', 'is', null)
    .where('supersededAt', 'is', null)
    .where('expiresAt', '>', now)
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

/** The address waiting for confirmation, shown by the portal ("pending confirmation at …"); null when none. */
export async function pendingPortalEmail(db: Queryable, customerId: number, now: Date): Promise<string | null> {
  return (await findPendingEmailChange(db, customerId, now))?.newEmail ?? null;
}

/** Spends the link in one statement: of two opens at once, one gets the row, the other nothing. */
export async function claimEmailChange(db: Queryable, tokenHash: string, now: Date): Promise<PortalEmailChangeRow | undefined> {
  return db
    .updateTable('portalEmailChanges')
    .set({ usedAt: now })
    .where('tokenHash', '=', tokenHash)
    .where('usedAt', 'is', null)
    .where('supersededAt', 'is', null)
    .where('expiresAt', '>', now)
    .returningAll()
    .executeTakeFirst();
}

/** Gives a claimed link back when its change could not be applied (the customer is gone or its row refused it). */
export async function releaseEmailChange(db: Queryable, id: number, usedAt: Date): Promise<void> {
  await db.updateTable('portalEmailChanges').set({ usedAt: null }).where('id', '=', id).where('usedAt', '=', usedAt).execute();
}
