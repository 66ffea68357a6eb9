import type { Insertable, Selectable } from 'kysely';
import type { Queryable } from '../../db/database.js';
import type { OperatorInvitationsTable, OperatorSessionsTable, OperatorsTable } from '../../db/schema.js';

export type OperatorRow = Selectable<OperatorsTable>;
export type OperatorSessionRow = Selectable<OperatorSessionsTable>;
export type OperatorInvitationRow = Selectable<OperatorInvitationsTable>;

// ---- operators

/** Live operators with this (lower-cased) e-mail, in any account: sign-in names no account. */
export function operatorsByEmail(db: Queryable, email: string): Promise<OperatorRow[]> {
  return db.selectFrom('operators').selectAll().where('email', '=', email).where('deletedAt', 'is', null).orderBy('id').limit(5).execute();
}

export function findOperator(db: Queryable, accountId: number, id: number): Promise<OperatorRow | undefined> {
  return db
    .selectFrom('operators')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .where('deletedAt', 'is', null)
    .executeTakeFirst();
}

export function findOperatorByEmail(db: Queryable, accountId: number, email: string): Promise<OperatorRow | undefined> {
  return db
    .selectFrom('operators')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('email', '=', email)
    .where('deletedAt', 'is', null)
    .executeTakeFirst();
}

export function listOperators(db: Queryable, accountId: number): Promise<OperatorRow[]> {
  return db.selectFrom('operators').selectAll().where('accountId', '=', accountId).where('deletedAt', 'is', null).orderBy('id').execute();
}

export async function countOperators(db: Queryable, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('operators')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('accountId', '=', accountId)
    .where('deletedAt', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The account's live owners, locked in id order: a demotion or removal that checks "another owner
 * remains" holds them, so two at once (on any instance) cannot remove the last two owners together.
 */
export function lockOwners(db: Queryable, accountId: number): Promise<Array<{ id: number }>> {
  return db
    .selectFrom('operators')
    .select('id')
    .where('accountId', '=', accountId)
    .where('role', '=', 'owner')
    .where('deletedAt', 'is', null)
    .orderBy('id')
    .forUpdate()
    .execute();
}

export function insertOperator(db: Queryable, row: Insertable<OperatorsTable>): Promise<OperatorRow> {
  return db.insertInto('operators').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateOperator(
  db: Queryable,
  id: number,
  set: Partial<Pick<OperatorRow, 'role' | 'totpSecret' | 'totpEnabled' | 'lastSignInAt' | 'deletedAt'>> & { totpLastStep?: number | null },
): Promise<void> {
  await db.updateTable('operators').set(set).where('id', '=', id).execute();
}

/**
 * Records a TOTP step as used, only if it is newer than the last one: false when the code (or a later
 * one) was already accepted, so a code seen over a shoulder cannot be replayed within its window.
 */
export async function takeTotpStep(db: Queryable, id: number, step: number): Promise<boolean> {
  const updated = await db
    .updateTable('operators')
    .set({ totpLastStep: step })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('totpLastStep', 'is', null), eb('totpLastStep', '<', String(step))]))
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

// ---- sessions

export function insertOperatorSession(db: Queryable, row: Insertable<OperatorSessionsTable>): Promise<OperatorSessionRow> {
  return db.insertInto('operatorSessions').values(row).returningAll().executeTakeFirstOrThrow();
}

/** A live session and its live operator, by the token's hash. */
export function findLiveSession(db: Queryable, tokenHash: string, now: Date) {
  return db
    .selectFrom('operatorSessions')
    .innerJoin('operators', 'operators.id', 'operatorSessions.operatorId')
    .select([
      'operatorSessions.id as sessionId',
      'operatorSessions.idleExpiresAt',
      'operatorSessions.absoluteExpiresAt',
      'operatorSessions.lastSeenAt',
      'operators.id',
      'operators.accountId',
      'operators.email',
      'operators.name',
      'operators.role',
      'operators.totpEnabled',
    ])
    .where('operatorSessions.tokenHash', '=', tokenHash)
    .where('operatorSessions.endedAt', 'is', null)
    .where('operatorSessions.idleExpiresAt', '>', now)
    .where('operatorSessions.absoluteExpiresAt', '>', now)
    .where('operators.deletedAt', 'is', null)
    .executeTakeFirst();
}

/** Slides a session's idle expiry (the caller caps it at the absolute expiry). */
export async function slideSession(db: Queryable, sessionId: number, now: Date, idleExpiresAt: Date): Promise<void> {
  await db.updateTable('operatorSessions').set({ lastSeenAt: now, idleExpiresAt }).where('id', '=', sessionId).execute();
}

export async function endSession(db: Queryable, tokenHash: string, now: Date): Promise<void> {
  await db.updateTable('operatorSessions').set({ endedAt: now }).where('tokenHash', '=', tokenHash).where('endedAt', 'is', null).execute();
}

/** Ends every live session of an operator (removed, or its role changed: it signs in again). */
export async function endSessionsOf(db: Queryable, operatorId: number, now: Date): Promise<void> {
  await db
    .updateTable('operatorSessions')
    .set({ endedAt: now })
    .where('operatorId', '=', operatorId)
    .where('endedAt', 'is', null)
    .execute();
}

// ---- invitations

export function insertInvitation(db: Queryable, row: Insertable<OperatorInvitationsTable>): Promise<OperatorInvitationRow> {
  return db.insertInto('operatorInvitations').values(row).returningAll().executeTakeFirstOrThrow();
}

export function findInvitationByHash(db: Queryable, tokenHash: string): Promise<OperatorInvitationRow | undefined> {
  return db.selectFrom('operatorInvitations').selectAll().where('tokenHash', '=', tokenHash).executeTakeFirst();
}

/** The invitation, locked: two accepts of a one-use link at once cannot both pass. */
export function lockInvitationByHash(db: Queryable, tokenHash: string): Promise<OperatorInvitationRow | undefined> {
  return db.selectFrom('operatorInvitations').selectAll().where('tokenHash', '=', tokenHash).forUpdate().executeTakeFirst();
}

export async function markInvitationAccepted(db: Queryable, id: number, operatorId: number, now: Date): Promise<void> {
  await db.updateTable('operatorInvitations').set({ acceptedAt: now, acceptedOperatorId: operatorId }).where('id', '=', id).execute();
}

/** The account's invitations not yet accepted nor expired, newest first. */
export function openInvitations(db: Queryable, accountId: number, now: Date): Promise<OperatorInvitationRow[]> {
  return db
    .selectFrom('operatorInvitations')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('acceptedAt', 'is', null)
    .where('expiresAt', '>', now)
    .orderBy('id', 'desc')
    .execute();
}

// ---- sign-in failures

export async function insertSignInFailures(db: Queryable, keys: Array<{ scope: 'ip' | 'pair'; key: string }>, now: Date): Promise<void> {
  await db
    .insertInto('operatorSignInFailures')
    .values(keys.map((k) => ({ ...k, failedAt: now })))
    .execute();
}

/** How many failures a key has since `since`, the oldest of them (when the window frees a place) and the newest. */
export async function signInFailuresSince(db: Queryable, scope: 'ip' | 'pair', key: string, since: Date) {
  const row = await db
    .selectFrom('operatorSignInFailures')
    .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.min('failedAt').as('oldest'), eb.fn.max('failedAt').as('newest')])
    .where('scope', '=', scope)
    .where('key', '=', key)
    .where('failedAt', '>', since)
    .executeTakeFirstOrThrow();
  const date = (value: unknown) => (value === null ? null : new Date(value as Date | string));
  return { count: Number(row.n), oldest: date(row.oldest), newest: date(row.newest) };
}

/** Forgets a pair's failures (a successful sign-in from that address), and any key's failures past the window. */
export async function clearSignInFailures(db: Queryable, pairKey: string, before: Date): Promise<void> {
  await db
    .deleteFrom('operatorSignInFailures')
    .where((eb) => eb.or([eb.and([eb('scope', '=', 'pair'), eb('key', '=', pairKey)]), eb('failedAt', '<', before)]))
    .execute();
}

/** Forgets failures past the window (kept small: the throttle looks at the last minutes only). */
export async function pruneSignInFailures(db: Queryable, before: Date): Promise<void> {
  await db.deleteFrom('operatorSignInFailures').where('failedAt', '<', before).execute();
}
