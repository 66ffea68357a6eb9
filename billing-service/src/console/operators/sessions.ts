// A signed-in session: opened, checked on every request (idle and absolute limits), ended.
import { wallClockNow } from '../../clock/account-clock.js';
import type { Db, Queryable } from '../../db/database.js';
import { hashPortalToken } from '../../portal/links.js';
import { endSession, findLiveSession, insertOperatorSession, slideSession, type OperatorRow } from './repository.js';
import { type ConsoleSettings, type LiveSession, MINUTE_MS, type SignedIn, operatorView } from './model.js';
import { consoleCsrfToken, newToken } from './credentials.js';

export async function openSession(db: Queryable, settings: ConsoleSettings, operator: OperatorRow, now: Date): Promise<SignedIn> {
  const sessionToken = newToken('rcs');
  const absoluteMs = settings.absoluteHours * 60 * MINUTE_MS;
  const idleMs = Math.min(settings.idleMinutes * MINUTE_MS, absoluteMs);
  await insertOperatorSession(db, {
    accountId: operator.accountId,
    operatorId: operator.id,
    tokenHash: hashPortalToken(sessionToken),
    lastSeenAt: now,
    idleExpiresAt: new Date(now.getTime() + idleMs),
    absoluteExpiresAt: new Date(now.getTime() + absoluteMs),
  });
  return {
    operator: operatorView(operator),
    sessionToken,
    csrfToken: consoleCsrfToken(sessionToken),
    maxAgeSeconds: Math.ceil(absoluteMs / 1000),
  };
}

/**
 * The live session of a cookie's token, its idle expiry slid forward (never past the absolute cap);
 * undefined when there is none (never issued, signed out, idle too long, past its cap, operator removed).
 */
export async function authenticateSession(
  db: Db,
  settings: ConsoleSettings,
  sessionToken: string | undefined,
  now = wallClockNow(),
): Promise<LiveSession | undefined> {
  if (!sessionToken || sessionToken.length > 200 || !sessionToken.startsWith('rcs_')) return undefined;
  const row = await findLiveSession(db, hashPortalToken(sessionToken), now);
  if (!row) return undefined;
  const slid = new Date(Math.min(now.getTime() + settings.idleMinutes * MINUTE_MS, row.absoluteExpiresAt.getTime()));
  // Written at most every 30 s per session: a page's burst of requests costs one write.
  if (slid.getTime() - row.idleExpiresAt.getTime() >= 30_000) await slideSession(db, row.sessionId, now, slid);
  return {
    operator: { id: row.id, accountId: row.accountId, email: row.email, name: row.name, role: row.role, totpEnabled: row.totpEnabled },
    csrfToken: consoleCsrfToken(sessionToken),
  };
}

export async function signOut(db: Db, sessionToken: string | undefined, now = wallClockNow()): Promise<void> {
  if (sessionToken && sessionToken.length <= 200) await endSession(db, hashPortalToken(sessionToken), now);
}

// ---- sign-in and its throttle
