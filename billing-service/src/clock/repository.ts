import { sql } from 'kysely';
import type { Queryable } from '../db/database.js';
import type { InstanceLiveness } from '../db/instance-liveness.js';
import { reusableQuery } from '../db/reusable-query.js';
import { newClaimToken } from '../db/claims.js';

export interface AccountClockRow {
  accountId: number;
  frozenAt: Date;
  firstAdvancedAt: Date;
  advancingSince: Date | null;
}

const accountClockById = reusableQuery((db: Queryable, accountId: number) =>
  db.selectFrom('accountClocks').selectAll().where('accountId', '=', accountId),
);

export async function findAccountClock(db: Queryable, accountId: number): Promise<AccountClockRow | undefined> {
  const [row] = await accountClockById(db, accountId);
  return row;
}

/**
 * Claims the account's clock for one advance: creates it at `from` (the account's
 * time) when it has none. Answers how the claim went: 'claimed'; 'resumed' when the
 * claim was taken from an advance whose instance died (its heartbeat stopped) or that
 * started more than `staleAfterMs` ago; 'busy' when a live advance holds it.
 */
export async function claimClockForAdvance(
  db: Queryable,
  instance: InstanceLiveness,
  accountId: number,
  from: Date,
  wallNow: Date,
  staleAfterMs: number,
): Promise<{ claim: 'claimed' | 'resumed'; token: string } | { claim: 'busy' }> {
  await db
    .insertInto('accountClocks')
    .values({ accountId, frozenAt: from, firstAdvancedAt: wallNow, advancingSince: null })
    .onConflict((oc) => oc.column('accountId').doNothing())
    .execute();
  const before = await db
    .selectFrom('accountClocks')
    .select('advancingSince')
    .select(instance.holderGone('advancing_by').as('holderGone'))
    .where('accountId', '=', accountId)
    .executeTakeFirstOrThrow();
  const since = before.advancingSince;
  if (since !== null && since.getTime() >= wallNow.getTime() - staleAfterMs && !before.holderGone) return { claim: 'busy' };
  // compare-and-set on what was read: of two advances racing for the clock, one wins
  const token = newClaimToken();
  const claimed = await db
    .updateTable('accountClocks')
    .set({ advancingSince: wallNow, advancingBy: instance.id, advancingToken: token })
    .where('accountId', '=', accountId)
    .where('advancingSince', since === null ? 'is' : '=', since)
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) return { claim: 'busy' };
  return { claim: since === null ? 'claimed' : 'resumed', token };
}

/** Whether an advance holds the account's clock: one started less than `staleAfterMs` ago whose instance is alive. */
export async function isAdvancing(
  db: Queryable,
  instance: InstanceLiveness,
  accountId: number,
  wallNow: Date,
  staleAfterMs: number,
): Promise<boolean> {
  const row = await db
    .selectFrom('accountClocks as c')
    .select('c.accountId')
    .where('c.accountId', '=', accountId)
    .where('c.advancingSince', 'is not', null)
    .where('c.advancingSince', '>=', new Date(wallNow.getTime() - staleAfterMs))
    .where((eb) => eb.not(instance.holderGone('c.advancing_by')))
    .executeTakeFirst();
  return row !== undefined;
}

/** Moves the account's frozen time (during and at the end of an advance), only while the advance holds the clock (`token`); false when it was taken over. */
export async function setFrozenTime(db: Queryable, accountId: number, at: Date, token: string): Promise<boolean> {
  const moved = await db
    .updateTable('accountClocks')
    .set({ frozenAt: at })
    .where('accountId', '=', accountId)
    .where('advancingToken', '=', token)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) === 1;
}

/** Lets go of the clock, if the advance (`token`) still holds it. */
export async function releaseClock(db: Queryable, accountId: number, token: string): Promise<void> {
  await db
    .updateTable('accountClocks')
    .set({ advancingSince: null, advancingBy: null, advancingToken: null })
    .where('accountId', '=', accountId)
    .where('advancingToken', '=', token)
    .execute();
}

/** Back to real time (reset). */
export async function deleteAccountClock(db: Queryable, accountId: number): Promise<void> {
  await db.deleteFrom('accountClocks').where('accountId', '=', accountId).execute();
}

/**
 * Whether anything was recorded for the account since `since` (real time): every
 * change through the API writes an audit entry, and every amount the billing clock
 * moves writes a ledger entry.
 */
export async function changedSince(db: Queryable, accountId: number, since: Date): Promise<boolean> {
  const { rows } = await sql<{ one: number }>`
    select 1 as one where exists (select 1 from audit_log where account_id = ${accountId} and created_at >= ${since})
       or exists (select 1 from ledger_entries where account_id = ${accountId} and created_at >= ${since})`.execute(db);
  return rows.length > 0;
}

/** Invoices of the account posted with a posting time in (from, to]. */
export async function countPostedInvoices(db: Queryable, accountId: number, from: Date, to: Date): Promise<number> {
  const row = await db
    .selectFrom('invoices')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('accountId', '=', accountId)
    .where('postedAt', '>', from)
    .where('postedAt', '<=', to)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** E-mails and webhook events the account's outboxes received since `since` (real time). */
export async function countOutboxWritesSince(
  db: Queryable,
  accountId: number,
  since: Date,
): Promise<{ emails: number; webhookEvents: number }> {
  const { rows } = await sql<{ emails: string; webhookEvents: string }>`
    select (select count(*) from email_outbox where account_id = ${accountId} and created_at >= ${since}) as emails,
           (select count(*) from webhook_events where account_id = ${accountId} and created_at >= ${since}) as "webhookEvents"`.execute(db);
  // two counts in one row: always exactly one row
  const [counts] = rows;
  return { emails: Number(counts?.emails ?? 0), webhookEvents: Number(counts?.webhookEvents ?? 0) };
}
