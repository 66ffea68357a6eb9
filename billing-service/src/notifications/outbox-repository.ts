import { sql, type Selectable } from 'kysely';
import type { Db, Queryable } from '../db/database.js';
import type { InstanceLiveness } from '../db/instance-liveness.js';
import type { EmailOutboxTable } from '../db/schema.js';

export type OutboxEmail = Selectable<EmailOutboxTable>;

export async function insertOutboxEmail(
  trx: Queryable,
  email: {
    accountId: number;
    customerId: number | null;
    emailType: string;
    toAddress: string;
    subject: string;
    body: string;
    htmlBody?: string | null;
    attachedInvoiceId?: number | null;
  },
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
 * LOCKED), marks them as its own and pushes their next attempt `leaseMs` ahead: if
 * this instance dies mid-send, another picks them up as soon as its heartbeat is
 * stale (seconds), or after the lease (a send that hung).
 */
export async function claimDueEmails(
  db: Db,
  instance: InstanceLiveness,
  now: Date,
  limit: number,
  leaseMs: number,
): Promise<OutboxEmail[]> {
  return db.transaction().execute(async (trx) => {
    const due = await trx
      .selectFrom('emailOutbox')
      .select('id')
      .where('status', '=', 'Pending')
      .where((eb) => eb.or([eb('nextAttemptAt', '<=', now), eb.and([eb('claimedBy', 'is not', null), instance.holderGone('claimed_by')])]))
      .orderBy('id')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    if (due.length === 0) return [];
    return trx
      .updateTable('emailOutbox')
      .set({ nextAttemptAt: new Date(now.getTime() + leaseMs), claimedBy: instance.id })
      .where(
        'id',
        'in',
        due.map((d) => d.id),
      )
      .returningAll()
      .execute();
  });
}

/** Makes an instance's claims due again at once (claims it holds but is not working on: see the e-mail worker). */
export async function releaseClaimsOf(db: Queryable, instanceId: string) {
  await db
    .updateTable('emailOutbox')
    .set({ claimedBy: null, nextAttemptAt: sql`now()` })
    .where('claimedBy', '=', instanceId)
    .where('status', '=', 'Pending')
    .execute();
}

export async function markSent(db: Queryable, id: number, now: Date) {
  await db
    .updateTable('emailOutbox')
    .set({ status: 'Sent', sentAt: now, attempts: sql`attempts + 1`, claimedBy: null })
    .where('id', '=', id)
    .execute();
}

export async function markAttemptFailed(db: Queryable, id: number, error: string, retryAt: Date | null) {
  await db
    .updateTable('emailOutbox')
    .set({
      attempts: sql`attempts + 1`,
      lastError: error.slice(0, 1000),
      claimedBy: null,
      ...(retryAt ? { nextAttemptAt: retryAt } : { status: 'Failed' }),
    })
    .where('id', '=', id)
    .execute();
}
