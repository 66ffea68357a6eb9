import { Refusal } from '../refusals/refusal.js';
import { createHash, randomBytes } from 'node:crypto';
import type { AppContext } from '../app-context.js';
import { wallClockNow } from '../clock/account-clock.js';
import type { Queryable } from '../db/database.js';
import type { PortalScope } from '../db/schema.js';
import { API_ERROR_KEY } from '../http/errors.js';
import type { ErrorCode } from '../refusals/error-codes.js';
import { customerBalances } from '../ledger/balances.js';
import { findAwaitingPayment } from '../payments/repository.js';
import {
  endPortalSession as endSessionRow,
  insertPortalLink,
  insertPortalSession,
  findCustomerContact,
  lockPortalLinkByHash,
  markPortalLinkUsed,
  touchPortalSession,
  type PortalLinkRow,
} from './repository.js';
import { EMAIL_ACTION_LINK_DAYS, SESSION_LINK_MINUTES, SIGN_IN_LINK_MINUTES, type PortalFlow, type PortalLocale } from './schemas.js';

// Portal links and sessions are credentials: they live on the wall clock, never an account's test clock
// (as capture tokens do), so advancing a test clock neither expires nor revives them.

/** 256 random bits, base64url: the part of a link or cookie that is a secret. Only its SHA-256 is stored. */
export function newPortalToken(prefix: 'pl' | 'ps'): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

export function hashPortalToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * The CSRF token of a session, derived from its secret: the page reads it once (GET /portal/api/session)
 * and sends it in a header with every write; another site can neither read it nor make the browser send it.
 */
export function csrfTokenFor(sessionToken: string): string {
  return createHash('sha256').update(`renew-portal-csrf:${sessionToken}`).digest('base64url');
}

const MINUTE_MS = 60_000;

/** What a link may do, as stored: the scope its session gets, the task it opens on. */
export interface NewPortalLink {
  accountId: number;
  customerId: number;
  kind: PortalLinkRow['kind'];
  scope: PortalScope;
  flow: PortalFlow | null;
  subscriptionId: number | null;
  returnUrl: string | null;
  locale: PortalLocale | null;
  /** A sign-in link: the hash of the asking browser's nonce (portalBrowserNonce), which opens it without a confirmation. */
  browserNonceHash?: string | null;
}

const LIFETIME_MS: Record<PortalLinkRow['kind'], number> = {
  session: SESSION_LINK_MINUTES * MINUTE_MS,
  signIn: SIGN_IN_LINK_MINUTES * MINUTE_MS,
  emailAction: EMAIL_ACTION_LINK_DAYS * 24 * 60 * MINUTE_MS,
};

/** Stores a new link and returns its token (shown once) and URL on the capture host. */
export async function issuePortalLink(
  ctx: AppContext,
  trx: Queryable,
  link: NewPortalLink,
  now = wallClockNow(),
): Promise<{ row: PortalLinkRow; token: string; url: string }> {
  const token = newPortalToken('pl');
  const row = await insertPortalLink(trx, {
    ...link,
    tokenHash: hashPortalToken(token),
    expiresAt: new Date(now.getTime() + LIFETIME_MS[link.kind]),
  });
  return { row, token, url: portalLinkUrl(ctx, token, link.locale) };
}

/**
 * The token travels in the fragment, which browsers never send to a server nor in a Referer: the page's
 * script reads it and posts it (links sent before with ?token= still open, the page moves the token).
 */
export function portalLinkUrl(ctx: AppContext, token: string, locale: string | null): string {
  const query = locale ? `?lang=${locale}` : '';
  return `${ctx.portal.baseUrl}/portal/open${query}#token=${token}`;
}

function linkRefused(message: string, code: ErrorCode, kind: 'invalid' | 'gone' = 'invalid'): Refusal {
  return new Refusal(kind, [{ Key: 'token', Value: message, Code: code }]);
}

/** An opened link: the session's secret (for the cookie) and what the page opens on. */
export interface OpenedPortalLink {
  sessionToken: string;
  csrfToken: string;
  customerId: number;
  accountId: number;
  scope: PortalScope;
  flow: PortalFlow | null;
  /** The link's task was done before it opened (nothing left to pay): the session opens on the overview. */
  taskDone: boolean;
  subscriptionId: number | null;
  locale: PortalLocale | null;
  returnUrl: string | null;
  expiresTimestamp: string;
}

/** A link opened in a browser it is not bound to: whose portal it opens, for the customer to confirm with a click. */
export interface PortalLinkConfirmation {
  confirmationNeeded: true;
  /** The customer's primary address, masked (j•••@example.com). */
  maskedEmail: string;
  locale: PortalLocale | null;
}

/** j•••@example.com: enough for the owner to recognise the address, not enough to learn it. */
export function maskEmail(email: string | null): string {
  const address = (email ?? '').split(/[,;]/)[0]?.trim() ?? '';
  const at = address.lastIndexOf('@');
  if (at < 1) return '•••';
  return `${address.slice(0, 1)}•••${address.slice(at)}`;
}

/**
 * Whether the link's task is done, so that it opens on the overview ("nothing left to pay") instead:
 * payInvoices when nothing is owed; authenticatePayment when no payment waits for the bank and nothing is
 * owed. The card update, the invoices and the full portal have no end: they work until the link expires.
 */
async function taskDone(trx: Queryable, link: PortalLinkRow): Promise<boolean> {
  if (link.flow !== 'payInvoices' && link.flow !== 'authenticatePayment') return false;
  if (link.flow === 'authenticatePayment' && (await findAwaitingPayment(trx, link.customerId))) return false;
  const { arBalance, unallocatedPayments, unallocatedCredits } = await customerBalances(trx, link.customerId);
  return arBalance.minus(unallocatedPayments).minus(unallocatedCredits).lte(0);
}

/**
 * Exchanges a link's token for a new portal session. A session or sign-in link opens once; an e-mail
 * link opens until it expires (a newer e-mail leaves it working). Opened in a browser that did not ask
 * for it (every link but a sign-in link bound to this browser's nonce), it first answers whose portal
 * it opens, and opens only when `confirmed` (the customer's click). Refusals carry the spec's error
 * body with a Code: portal_link_invalid, _expired, _used.
 */
export async function openPortalLink(
  ctx: AppContext,
  token: string,
  options: { confirmed?: boolean; browserNonce?: string | undefined } = {},
  now = wallClockNow(),
): Promise<OpenedPortalLink | PortalLinkConfirmation> {
  if (typeof token !== 'string' || token.length > 200 || !token.startsWith('pl_')) {
    throw linkRefused('this is not a portal link', 'portal_link_invalid');
  }
  const tokenHash = hashPortalToken(token);
  return ctx.db.transaction().execute(async (trx) => {
    const link = await lockPortalLinkByHash(trx, tokenHash);
    if (!link) throw linkRefused('this is not a portal link', 'portal_link_invalid');
    if (link.kind !== 'emailAction' && link.usedAt)
      throw linkRefused('this link was already opened; ask for a new one', 'portal_link_used', 'gone');
    if (link.expiresAt.getTime() <= now.getTime())
      throw linkRefused('this link has expired; ask for a new one', 'portal_link_expired', 'gone');
    const bound =
      link.kind === 'signIn' &&
      link.browserNonceHash !== null &&
      typeof options.browserNonce === 'string' &&
      hashPortalToken(options.browserNonce) === link.browserNonceHash;
    if (!bound && !options.confirmed) {
      const customer = await findCustomerContact(trx, link.accountId, link.customerId);
      return {
        confirmationNeeded: true,
        maskedEmail: maskEmail(customer?.primaryEmail ?? null),
        locale: link.locale as PortalLocale | null,
      };
    }
    await markPortalLinkUsed(trx, link.id, now);
    const flow = (await taskDone(trx, link)) ? null : (link.flow as PortalFlow | null);
    const settings = ctx.catalog.portal;
    const sessionToken = newPortalToken('ps');
    const absolute = new Date(now.getTime() + settings.sessionMaxMinutes * MINUTE_MS);
    const idle = new Date(Math.min(now.getTime() + settings.sessionMinutes * MINUTE_MS, absolute.getTime()));
    await insertPortalSession(trx, {
      accountId: link.accountId,
      customerId: link.customerId,
      linkId: link.id,
      tokenHash: hashPortalToken(sessionToken),
      scope: link.scope,
      flow,
      subscriptionId: link.subscriptionId,
      returnUrl: link.returnUrl,
      locale: link.locale,
      idleExpiresAt: idle,
      absoluteExpiresAt: absolute,
    });
    return {
      sessionToken,
      csrfToken: csrfTokenFor(sessionToken),
      customerId: link.customerId,
      accountId: link.accountId,
      scope: link.scope,
      flow,
      taskDone: flow === null && link.flow !== null,
      subscriptionId: link.subscriptionId,
      locale: link.locale as PortalLocale | null,
      returnUrl: link.returnUrl ?? settings.defaultReturnUrl ?? null,
      expiresTimestamp: idle.toISOString(),
    };
  });
}

/** A live portal session: whose it is and what it may do. Every portal operation takes one. */
export interface PortalSession {
  id: number;
  accountId: number;
  customerId: number;
  scope: PortalScope;
  flow: PortalFlow | null;
  subscriptionId: number | null;
  locale: PortalLocale | null;
  returnUrl: string | null;
  expiresTimestamp: string;
}

export function portalSessionExpired(): Refusal {
  return new Refusal('unauthenticated', [
    { Key: API_ERROR_KEY, Value: 'the portal session has ended; open a new portal link', Code: 'portal_session_expired' },
  ]);
}

/**
 * The session of a cookie's token, its idle expiry slid forward (within the absolute cap). With
 * `csrfToken` (every write), the token must be the session's: 403 otherwise.
 */
export async function authenticatePortalSession(
  ctx: AppContext,
  sessionToken: string | undefined,
  options: { csrfToken?: string | undefined; write?: boolean } = {},
  now = wallClockNow(),
): Promise<PortalSession> {
  if (!sessionToken || sessionToken.length > 200 || !sessionToken.startsWith('ps_')) throw portalSessionExpired();
  const row = await touchPortalSession(ctx.db, hashPortalToken(sessionToken), now, ctx.catalog.portal.sessionMinutes * MINUTE_MS);
  if (!row) throw portalSessionExpired();
  if (options.write && options.csrfToken !== csrfTokenFor(sessionToken)) {
    throw new Refusal('forbidden', [
      { Key: API_ERROR_KEY, Value: "the request lacks the portal session's CSRF token (header X-Portal-CSRF)", Code: 'csrf_token_invalid' },
    ]);
  }
  return {
    id: row.id,
    accountId: row.accountId,
    customerId: row.customerId,
    scope: row.scope,
    flow: row.flow as PortalFlow | null,
    subscriptionId: row.subscriptionId,
    locale: row.locale as PortalLocale | null,
    returnUrl: row.returnUrl ?? ctx.catalog.portal.defaultReturnUrl ?? null,
    expiresTimestamp: row.idleExpiresAt.toISOString(),
  };
}

/** Signs out: the cookie's session stops working at once. */
export async function endPortalSession(ctx: AppContext, sessionToken: string | undefined, now = wallClockNow()): Promise<void> {
  if (sessionToken && sessionToken.length <= 200) await endSessionRow(ctx.db, hashPortalToken(sessionToken), now);
}
