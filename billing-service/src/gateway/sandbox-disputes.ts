import type { Selectable } from 'kysely';
import type { Queryable } from '../db/database.js';
import type { DisputeStatus, SandboxDisputesTable } from '../db/schema.js';

export type SandboxDisputeRow = Selectable<SandboxDisputesTable>;

/** The sandbox processor's disputes: one per disputed charge (a retried charge schedules it once). */
export async function scheduleSandboxDispute(
  db: Queryable,
  row: Omit<SandboxDisputeRow, 'status' | 'evidenceKey' | 'openedAcknowledgedAt' | 'closedAt' | 'closedAcknowledgedAt' | 'createdAt'>,
): Promise<void> {
  await db
    .insertInto('sandboxDisputes')
    .values(row)
    .onConflict((oc) => oc.column('transactionId').doNothing())
    .execute();
}

/**
 * Disputes with an event due at `now` and not acknowledged: the opening, then (once the opening was
 * acknowledged, so Renew never hears of a closing before its opening) the closing.
 */
export function findDueSandboxDisputes(db: Queryable, now: Date, limit: number): Promise<SandboxDisputeRow[]> {
  return db
    .selectFrom('sandboxDisputes')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb.and([eb('openedAt', '<=', now), eb('openedAcknowledgedAt', 'is', null)]),
        eb.and([eb('openedAcknowledgedAt', 'is not', null), eb('closedAt', '<=', now), eb('closedAcknowledgedAt', 'is', null)]),
      ]),
    )
    .orderBy('openedAt')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Marks the events of these disputes as fetched for good: `opened` and `closed` name which. */
export async function acknowledgeSandboxDisputes(db: Queryable, events: { opened: string[]; closed: string[] }, now: Date): Promise<void> {
  if (events.opened.length > 0)
    await db
      .updateTable('sandboxDisputes')
      .set({ openedAcknowledgedAt: now })
      .where('id', 'in', events.opened)
      .where('openedAcknowledgedAt', 'is', null)
      .execute();
  if (events.closed.length > 0)
    await db
      .updateTable('sandboxDisputes')
      .set({ closedAcknowledgedAt: now })
      .where('id', 'in', events.closed)
      .where('closedAt', 'is not', null)
      .where('closedAcknowledgedAt', 'is', null)
      .execute();
}

export function findSandboxDispute(db: Queryable, id: string): Promise<SandboxDisputeRow | undefined> {
  return db.selectFrom('sandboxDisputes').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Evidence submitted on a dispute still open: it moves to `status` (UnderReview, or Won/Lost with its
 * closing event due `closedAt`) under the evidence's key. False when the dispute was decided meanwhile.
 */
export async function decideSandboxDispute(
  db: Queryable,
  id: string,
  change: { status: DisputeStatus; evidenceKey: string; closedAt: Date | null },
): Promise<boolean> {
  const updated = await db
    .updateTable('sandboxDisputes')
    .set(change)
    .where('id', '=', id)
    .where('status', 'in', ['NeedsResponse', 'UnderReview'])
    .executeTakeFirst();
  return updated.numUpdatedRows > 0n;
}
