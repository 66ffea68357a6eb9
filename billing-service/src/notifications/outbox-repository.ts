import { sql, type Selectable } from 'kysely';
import type { Db, Queryable } from '../db/database.js';
import type { EmailOutboxTable } from '../db/schema.js';

export type OutboxEmail = Selectable<EmailOutboxTable>;

export async function insertOutboxEmail(
  trx: Queryable,
  email: { accountId: number; customerId: number | null; emailType: string; toAddress: string; subject: string; body: string; attachedInvoiceId?: number | null },
) {
  await trx.insertInto('emailOutbox').values(email).execute();
}

/** Several e-mails in one statement, in the order given. */
export async function insertOutboxEmails(trx: Queryable, emails: Array<Parameters<typeof insertOutboxEmail>[1]>) {
  if (emails.length === 0) return;
  await trx.insertInto('emailOutbox').values(emails).execute();
}

/**
 * Takes up to `limit` e-mails due for sending, for this instance alone (SKIP
 * LOCKED), and pushes their next attempt `leaseMs` ahead: if this instance dies
 * mid-send, another picks them up after the lease.
 */
export async function claimDueEmails(db: Db, now: Date, limit: number, leaseMs: number): Promise<OutboxEmail[]> {
  return db.transaction().execute(async (trx) => {
    const due = await trx
      .selectFrom('emailOutbox')
      .select('id')
      .where('status', '=', 'Pending')
      .where('nextAttemptAt', '<=', now)
      .orderBy('id')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    if (due.length === 0) return [];
    return trx
      .updateTable('emailOutbox')
      .set({ nextAttemptAt: new Date(now.getTime() + leaseMs) })
      .where('id', 'in', due.map((d) => d.id))
      .returningAll()
      .execute();
  });
}

export async function markSent(db: Queryable, id: number, now: Date) {
  await db.updateTable('emailOutbox').set({ status: 'Sent', sentAt: now, attempts: sql`attempts + 1` }).where('id', '=', id).execute();
}

export async function markAttemptFailed(db: Queryable, id: number, error: string, retryAt: Date | null) {
  await db
    .updateTable('emailOutbox')
    .set({ attempts: sql`attempts + 1`, lastError: error.slice(0, 1000), ...(retryAt ? { nextAttemptAt: retryAt } : { status: 'Failed' }) })
    .where('id', '=', id)
    .execute();
}
