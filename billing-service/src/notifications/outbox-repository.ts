import { sql, type Selectable } from 'kysely';
import type { Db, Queryable } from '../db/database.js';
import type { InstanceLiveness } from '../db/instance-liveness.js';
import { newClaimToken } from '../db/claims.js';
import type { EmailOutboxTable } from '../db/schema.js';
import type { EmailContent } from './email-content.js';

export type OutboxEmail = Selectable<EmailOutboxTable>;

/** An e-mail this worker claimed, with the token that proves it still holds it. */
export type ClaimedEmail = OutboxEmail & { claimToken: string };

/** An e-mail to enqueue: what it says (written out when sent), or its text already written (a notice to the account). */
export type NewOutboxEmail = {
  accountId: number;
  customerId: number | null;
  emailType: string;
  toAddress: string;
  attachedInvoiceId?: number | null;
} & ({ content: EmailContent } | { subject: string; body: string; htmlBody?: string | null });

const rowOf = (email: NewOutboxEmail) =>
  'content' in email ? { ...email, content: JSON.stringify(email.content) } : { ...email, content: null };

export async function insertOutboxEmail(trx: Queryable, email: NewOutboxEmail) {
  await trx.insertInto('emailOutbox').values(rowOf(email)).execute();
}

/** Several e-mails in one statement, in the order given. */
export async function insertOutboxEmails(trx: Queryable, emails: NewOutboxEmail[]) {
  if (emails.length === 0) return;
  await trx.insertInto('emailOutbox').values(emails.map(rowOf)).execute();
}

/**
 * Takes up to `limit` e-mails due for sending, for this instance alone (SKIP
 * LOCKED), marks them as its own with a new claim token and pushes their next
 * attempt `leaseMs` ahead: if this instance dies mid-send, another picks them up
 * as soon as its heartbeat is stale (seconds), or after the lease (a send that
 * hung, a paused process). The token changes with every claim, so a holder that
 * was taken over can no longer send or record (holdClaim, markSent, markAttemptFailed).
 */
export async function claimDueEmails(
  db: Db,
  instance: InstanceLiveness,
  now: Date,
  limit: number,
  leaseMs: number,
): Promise<ClaimedEmail[]> {
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
    const claimed = await trx
      .updateTable('emailOutbox')
      .set({ nextAttemptAt: new Date(now.getTime() + leaseMs), claimedBy: instance.id, claimToken: newClaimToken() })
      .where(
        'id',
        'in',
        due.map((d) => d.id),
      )
      .returningAll()
      .execute();
    return claimed.sort((a, b) => a.id - b.id) as ClaimedEmail[];
  });
}

/**
 * Right before the send: whether the claim is still this holder's (its token unchanged, the e-mail still
 * Pending), pushing the lease to `leaseUntil` if so. One fenced statement; false: another instance took the
 * e-mail over meanwhile (this one was paused, or slow past its lease) and this one must leave it.
 */
export async function holdClaim(db: Queryable, instance: InstanceLiveness, claim: ClaimedEmail, leaseUntil: Date): Promise<boolean> {
  const held = await db
    .updateTable('emailOutbox')
    .set({ nextAttemptAt: leaseUntil })
    .where('id', '=', claim.id)
    .where('claimToken', '=', claim.claimToken)
    .where('status', '=', 'Pending')
    // and its own heartbeat fresh, so that nobody may take the e-mail for a while yet (db/instance-liveness.ts)
    .where(instance.ownHeartbeatFresh())
    .returning('id')
    .executeTakeFirst();
  return held !== undefined;
}

/** Makes an instance's claims due again at once (claims it holds but is not working on: see the e-mail worker). */
export async function releaseClaimsOf(db: Queryable, instanceId: string) {
  await db
    .updateTable('emailOutbox')
    .set({ claimedBy: null, claimToken: null, nextAttemptAt: sql`now()` })
    .where('claimedBy', '=', instanceId)
    .where('status', '=', 'Pending')
    .execute();
}

/** Records the send, if the claim is still this holder's; false: it was taken over, and the new holder records its own outcome. */
export async function markSent(db: Queryable, claim: ClaimedEmail, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('emailOutbox')
    .set({ status: 'Sent', sentAt: now, attempts: sql`attempts + 1`, claimedBy: null, claimToken: null })
    .where('id', '=', claim.id)
    .where('claimToken', '=', claim.claimToken)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Records a failed attempt (a retry at `retryAt`, or Failed), if the claim is still this holder's. */
export async function markAttemptFailed(db: Queryable, claim: ClaimedEmail, error: string, retryAt: Date | null): Promise<boolean> {
  const result = await db
    .updateTable('emailOutbox')
    .set({
      attempts: sql`attempts + 1`,
      lastError: error.slice(0, 1000),
      claimedBy: null,
      claimToken: null,
      ...(retryAt ? { nextAttemptAt: retryAt } : { status: 'Failed' }),
    })
    .where('id', '=', claim.id)
    .where('claimToken', '=', claim.claimToken)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
