import { randomUUID } from 'node:crypto';
import { CompiledQuery, sql } from 'kysely';
import type { CommitMark, KeyedWrite } from '../db/keyed-commit.js';
import type { Db } from '../db/database.js';
import type { InstanceLiveness } from '../db/instance-liveness.js';
import { writeEventually } from '../db/write-eventually.js';

/** The idempotency_keys table's statements (http/idempotency.ts decides what they mean). */

export interface KeyIdentity {
  accountId: number;
  key: string;
}

/** A claim this instance holds: its fencing token, and what an earlier run of the key committed. */
export interface Claim {
  token: string;
  committedAt: Date | null;
  committedRef: Record<string, number[]> | null;
}

export function keyRow(db: Db, id: KeyIdentity, instance: InstanceLiveness) {
  return db
    .selectFrom('idempotencyKeys')
    .select(['createdAt', 'requestHash', 'responseStatus', 'responseBody', 'claimedBy', 'committedAt', 'committedRef'])
    .select(instance.holderGone('claimed_by').as('holderGone'))
    .where('accountId', '=', id.accountId)
    .where('key', '=', id.key)
    .executeTakeFirst();
}

/** Claims a new key; undefined when it is already known. */
export async function claimNewKey(
  db: Db,
  id: KeyIdentity,
  endpoint: string,
  requestHash: string,
  self: string,
): Promise<Claim | undefined> {
  const token = randomUUID();
  const claimed = await letGoIfInDoubt(db, id, token, () =>
    db
      .insertInto('idempotencyKeys')
      .values({ ...id, endpoint, requestHash, responseStatus: null, responseBody: null, claimedBy: self, claimToken: token })
      .onConflict((oc) => oc.columns(['accountId', 'key']).doNothing())
      .returning('key')
      .executeTakeFirst(),
  );
  return claimed ? { token, committedAt: null, committedRef: null } : undefined;
}

/**
 * Runs a claim's statement. When it fails, the claim may still have committed: the connection dropped
 * after COMMIT, or the primary died once its synchronous standby had the commit (a failover). Nobody
 * would then free the key (this instance lives on, so it is never taken over, and no request of its
 * runs it): the client's retries would hear "still being processed" for a day. So the claim is let go
 * by its token once the database answers; a claim that never committed is let go of as nothing.
 */
async function letGoIfInDoubt<T>(db: Db, id: KeyIdentity, token: string, claim: () => Promise<T>): Promise<T> {
  try {
    return await claim();
  } catch (error) {
    void writeEventually(() => releaseKey(db, id, token));
    throw error;
  }
}

/**
 * Claims an unanswered key held by nobody (a run freed it with a server-side failure) or by `deadHolder`
 * (an instance judged dead): a new token, so the former holder can neither save an answer nor commit.
 * Undefined when another retry was first.
 */
export async function takeKey(db: Db, id: KeyIdentity, deadHolder: string | null, self: string): Promise<Claim | undefined> {
  const token = randomUUID();
  const holder = sql.ref('claimed_by');
  const taken = await letGoIfInDoubt(db, id, token, () =>
    db
      .updateTable('idempotencyKeys')
      .set({ claimedBy: self, claimToken: token })
      .where('accountId', '=', id.accountId)
      .where('key', '=', id.key)
      .where(deadHolder === null ? sql<boolean>`${holder} is null` : sql<boolean>`${holder} = ${deadHolder}`)
      .where('responseStatus', 'is', null)
      .returning(['committedAt', 'committedRef'])
      .executeTakeFirst(),
  );
  return taken ? { token, ...taken } : undefined;
}

/** Marks the key committed when the transaction wrote (db/keyed-commit.ts), fenced by the claim's token. */
const MARK_COMMITTED = `with w as (select pg_current_xact_id_if_assigned() is not null as wrote),
  m as (update idempotency_keys set committed_at = now(), committed_ref = coalesce($4::jsonb, committed_ref)
    where account_id = $1 and key = $2 and claim_token = $3::uuid and (select wrote from w) returning 1)
  select (select wrote from w) as wrote, (select count(*) from m)::int as marked`;

/** The keyed write of a claim: what db/keyed-commit.ts needs to mark its commits. */
export function keyedWrite(id: KeyIdentity, token: string): KeyedWrite {
  return {
    ...id,
    claimToken: token,
    markCommitted: (created) => CompiledQuery.raw(MARK_COMMITTED, [id.accountId, id.key, token, created]) as CompiledQuery<CommitMark>,
  };
}

/** Saves the answer, only while `token` still holds the key (a taker's answer stands). */
export function saveAnswer(db: Db, id: KeyIdentity, token: string, status: number, body: string) {
  return db
    .updateTable('idempotencyKeys')
    .set({ responseStatus: status, responseBody: body, claimedBy: null, claimToken: null })
    .where('accountId', '=', id.accountId)
    .where('key', '=', id.key)
    .where('claimToken', '=', token)
    .executeTakeFirst();
}

/** Frees the key after a server-side failure, keeping its commit mark; only while `token` holds it. */
export function releaseKey(db: Db, id: KeyIdentity, token: string) {
  return db
    .updateTable('idempotencyKeys')
    .set({ claimedBy: null, claimToken: null })
    .where('accountId', '=', id.accountId)
    .where('key', '=', id.key)
    .where('claimToken', '=', token)
    .execute();
}

/** Forgets a key remembered past `before` (unless a request has just claimed it afresh). */
export function forgetExpiredKey(db: Db, id: KeyIdentity, before: Date) {
  return db
    .deleteFrom('idempotencyKeys')
    .where('accountId', '=', id.accountId)
    .where('key', '=', id.key)
    .where('createdAt', '<', before)
    .execute();
}

/** Every account's keys past `before`. */
export function sweepKeys(db: Db, before: Date) {
  return db.deleteFrom('idempotencyKeys').where('createdAt', '<', before).execute();
}
