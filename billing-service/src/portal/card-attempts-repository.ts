import type { Insertable } from 'kysely';
import type { Queryable } from '../db/database.js';
import type { PortalCardAttemptsTable, PortalCardOutcome } from '../db/schema.js';

/** When the customer's counted attempts since `since` began, newest first: declined ones, and those whose outcome never came. */
export async function countedCardAttemptStarts(db: Queryable, customerId: number, since: Date): Promise<Date[]> {
  const rows = await db
    .selectFrom('portalCardAttempts')
    .select('startedAt')
    .where('customerId', '=', customerId)
    .where('startedAt', '>', since)
    .where((eb) => eb.or([eb('outcome', '=', 'declined'), eb('outcome', 'is', null)]))
    .orderBy('startedAt', 'desc')
    .limit(20)
    .execute();
  return rows.map((r) => r.startedAt);
}

export async function insertCardAttempt(db: Queryable, row: Insertable<PortalCardAttemptsTable>): Promise<number> {
  const inserted = await db.insertInto('portalCardAttempts').values(row).returning('id').executeTakeFirstOrThrow();
  return inserted.id;
}

/** Writes the outcome once: a second report of the same attempt changes nothing (false). */
export async function finishCardAttempt(db: Queryable, id: number, outcome: PortalCardOutcome, now: Date): Promise<boolean> {
  const rows = await db
    .updateTable('portalCardAttempts')
    .set({ outcome, finishedAt: now })
    .where('id', '=', id)
    .where('outcome', 'is', null)
    .returning('id')
    .execute();
  return rows.length === 1;
}
