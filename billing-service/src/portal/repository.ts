import { sql, type Insertable, type Selectable } from 'kysely';
import type { Queryable } from '../db/database.js';
import type { PortalLinksTable, PortalSessionsTable } from '../db/schema.js';

export type PortalLinkRow = Selectable<PortalLinksTable>;
export type PortalSessionRow = Selectable<PortalSessionsTable>;

export async function insertPortalLink(db: Queryable, row: Insertable<PortalLinksTable>): Promise<PortalLinkRow> {
  return db.insertInto('portalLinks').values(row).returningAll().executeTakeFirstOrThrow();
}

/** Marks the live e-mail action links of a customer and flow superseded (a newer one replaces them). */
export async function supersedeEmailActionLinks(db: Queryable, customerId: number, flow: string, now: Date): Promise<void> {
  await db
    .updateTable('portalLinks')
    .set({ supersededAt: now })
    .where('customerId', '=', customerId)
    .where('kind', '=', 'emailAction')
    .where('flow', '=', flow)
    .where('supersededAt', 'is', null)
    .execute();
}

/** The link with this token hash, locked: two opens of a one-use link at once cannot both pass. */
export function lockPortalLinkByHash(db: Queryable, tokenHash: string): Promise<PortalLinkRow | undefined> {
  return db.selectFrom('portalLinks').selectAll().where('tokenHash', '=', tokenHash).forUpdate().executeTakeFirst();
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
  return db
    .selectFrom('customers')
    .select(['id', 'accountId', 'firstName', 'lastName', 'companyName', 'primaryEmail', 'language', 'status'])
    .where('accountId', '=', accountId)
    .where(FIRST_PRIMARY_EMAIL, '=', email.trim().toLowerCase())
    .where('status', '!=', 'Cancelled')
    .orderBy('id')
    .limit(5);
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
