import { sql, type Insertable, type Selectable } from 'kysely';
import type { Queryable } from '../db/database.js';
import type { PortalLinksTable, PortalSessionsTable } from '../db/schema.js';

export type PortalLinkRow = Selectable<PortalLinksTable>;
export type PortalSessionRow = Selectable<PortalSessionsTable>;

export async function insertPortalLink(db: Queryable, row: Insertable<PortalLinksTable>): Promise<PortalLinkRow> {
  return db.insertInto('portalLinks').values(row).returningAll().executeTakeFirstOrThrow();
}

/** The link with this token hash, locked: two opens of a one-use link at once cannot both pass. */
export function lockPortalLinkByHash(db: Queryable, tokenHash: string): Promise<PortalLinkRow | undefined> {
  return db.selectFrom('portalLinks').selectAll().where('tokenHash', '=', tokenHash).forUpdate().executeTakeFirst();
}

/** The link with this token hash, whatever its state (a used or expired link still names its customer). */
export function findPortalLinkByHash(db: Queryable, tokenHash: string) {
  return db.selectFrom('portalLinks').select(['accountId', 'customerId', 'locale']).where('tokenHash', '=', tokenHash).executeTakeFirst();
}

/** The session with this token hash, whatever its state (an ended session still names its customer). */
export function findPortalSessionByHash(db: Queryable, tokenHash: string) {
  return db
    .selectFrom('portalSessions')
    .select(['accountId', 'customerId', 'locale'])
    .where('tokenHash', '=', tokenHash)
    .executeTakeFirst();
}

const CONTACT_COLUMNS = ['id', 'accountId', 'firstName', 'lastName', 'companyName', 'primaryEmail', 'language', 'status'] as const;

/** Who a link or session names, as a sign-in e-mail needs them. */
export function findCustomerContact(db: Queryable, accountId: number, customerId: number) {
  return db
    .selectFrom('customers')
    .select(CONTACT_COLUMNS)
    .where('accountId', '=', accountId)
    .where('id', '=', customerId)
    .executeTakeFirst();
}

/** The accounts this deployment serves (its capture host serves them all), at most `limit`, oldest first. */
export async function accountIdsOnHost(db: Queryable, limit: number): Promise<number[]> {
  const rows = await db.selectFrom('accounts').select('id').orderBy('id').limit(limit).execute();
  return rows.map((row) => row.id);
}

export async function markPortalLinkUsed(db: Queryable, id: number, now: Date): Promise<void> {
  await db.updateTable('portalLinks').set({ usedAt: now }).where('id', '=', id).execute();
}

export async function insertPortalSession(db: Queryable, row: Insertable<PortalSessionsTable>): Promise<PortalSessionRow> {
  return db.insertInto('portalSessions').values(row).returningAll().executeTakeFirstOrThrow();
}

/**
 * Slides a live session's idle expiry forward (never past its absolute cap) and returns it; undefined
 * when no live session has this hash. One statement: instances sharing the database agree.
 */
export async function touchPortalSession(
  db: Queryable,
  tokenHash: string,
  now: Date,
  idleMs: number,
): Promise<PortalSessionRow | undefined> {
  const session = await db
    .selectFrom('portalSessions')
    .selectAll()
    .where('tokenHash', '=', tokenHash)
    .where('endedAt', 'is', null)
    .where('idleExpiresAt', '>', now)
    .where('absoluteExpiresAt', '>', now)
    .executeTakeFirst();
  if (!session) return undefined;
  const slid = new Date(Math.min(now.getTime() + idleMs, session.absoluteExpiresAt.getTime()));
  if (slid.getTime() - session.idleExpiresAt.getTime() < 30_000) return session;
  return db.updateTable('portalSessions').set({ idleExpiresAt: slid }).where('id', '=', session.id).returningAll().executeTakeFirst();
}

export async function endPortalSession(db: Queryable, tokenHash: string, now: Date): Promise<void> {
  await db.updateTable('portalSessions').set({ endedAt: now }).where('tokenHash', '=', tokenHash).where('endedAt', 'is', null).execute();
}

/**
 * The first address of primary_email, without case: the expression of the index customers_primary_email_first
 * (migration 0027), written with the same literals so that the planner uses the index.
 */
const FIRST_PRIMARY_EMAIL = sql<string>`lower(trim(split_part(replace(primary_email, ';', ','), ',', 1)))`;

/** Customers of an account whose primary address is this one (compared without case; a list's first address counts). */
export function customersByPrimaryEmail(db: Queryable, accountId: number, email: string) {
  return customersByPrimaryEmailQuery(db, accountId, email).execute();
}

export function customersByPrimaryEmailQuery(db: Queryable, accountId: number, email: string) {
  return (
    db
      .selectFrom('customers')
      .select(CONTACT_COLUMNS)
      .where('accountId', '=', accountId)
      .where(FIRST_PRIMARY_EMAIL, '=', email.trim().toLowerCase())
      // a Draft customer is anyone who started a checkout: signing in as one would open card testing to everyone
      .where('status', 'not in', ['Cancelled', 'Draft'])
      .orderBy('id')
      .limit(5)
  );
}

/**
 * The live portal session that minted this (unspent, unexpired) capture token: its account and customer.
 * Undefined for the API's tokens and for a session that has ended.
 */
export function findPortalCaptureSession(db: Queryable, captureTokenHash: string, now: Date) {
  return db
    .selectFrom('captureTokens')
    .innerJoin('portalSessions', 'portalSessions.id', 'captureTokens.portalSessionId')
    .select(['portalSessions.id as sessionId', 'portalSessions.accountId', 'portalSessions.customerId'])
    .where('captureTokens.tokenHash', '=', captureTokenHash)
    .where('captureTokens.spentAt', 'is', null)
    .where('captureTokens.expiresAt', '>', now)
    .where('portalSessions.endedAt', 'is', null)
    .where('portalSessions.idleExpiresAt', '>', now)
    .where('portalSessions.absoluteExpiresAt', '>', now)
    .executeTakeFirst();
}
