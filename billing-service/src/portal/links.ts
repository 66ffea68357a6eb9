import { Refusal } from '../refusals/refusal.js';
import { createHash, randomBytes } from 'node:crypto';
import type { AppContext } from '../app-context.js';
import { wallClockNow } from '../clock/account-clock.js';
import type { Queryable } from '../db/database.js';
import type { PortalScope } from '../db/schema.js';
import { API_ERROR_KEY } from '../http/errors.js';
import type { ErrorCode } from '../refusals/error-codes.js';
import { recordChange } from '../audit/audit-log.js';
import { findCustomerRow, lockCustomer } from '../customers/repository.js';
import type { Caller } from '../http/auth.js';
import { findSubscriptionCustomerId } from '../subscriptions/repository.js';
import {
  customersByPrimaryEmail,
  endPortalSession as endSessionRow,
  insertPortalLink,
  insertPortalSession,
  lockPortalLinkByHash,
  markPortalLinkUsed,
  supersedeEmailActionLinks,
  touchPortalSession,
  type PortalLinkRow,
} from './repository.js';
import {
  EMAIL_ACTION_LINK_DAYS,
  PORTAL_LOCALES,
  SESSION_LINK_MINUTES,
  SIGN_IN_LINK_MINUTES,
  type CreatePortalSessionInput,
  type PortalFlow,
  type PortalLocale,
  type PortalSessionResponse,
} from './schemas.js';

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
  // An e-mail link replaces the older ones of its customer and task: only the newest e-mail works. Under the
  // customer's lock, so two e-mails written at once (two instances) leave one live link, not two.
  if (link.kind === 'emailAction' && link.flow) {
    await lockCustomer(trx, link.accountId, link.customerId);
    await supersedeEmailActionLinks(trx, link.customerId, link.flow, now);
  }
  const token = newPortalToken('pl');
  const row = await insertPortalLink(trx, {
    ...link,
    tokenHash: hashPortalToken(token),
    expiresAt: new Date(now.getTime() + LIFETIME_MS[link.kind]),
  });
  return { row, token, url: portalLinkUrl(ctx, token, link.locale) };
}

export function portalLinkUrl(ctx: AppContext, token: string, locale: string | null): string {
  const query = new URLSearchParams({ token, ...(locale ? { lang: locale } : {}) });
  return `${ctx.portal.baseUrl}/portal/open?${query.toString()}`;
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
  subscriptionId: number | null;
  locale: PortalLocale | null;
  returnUrl: string | null;
  expiresTimestamp: string;
}

/**
 * Exchanges a link's token for a new portal session. A session or sign-in link opens once; an e-mail
 * link opens until it expires or a newer one supersedes it. Refusals carry the spec's error body
 * with a Code: portal_link_invalid, _expired, _used, _superseded.
 */
export async function openPortalLink(ctx: AppContext, token: string, now = wallClockNow()): Promise<OpenedPortalLink> {
  if (typeof token !== 'string' || token.length > 200 || !token.startsWith('pl_')) {
    throw linkRefused('this is not a portal link', 'portal_link_invalid');
  }
  const tokenHash = hashPortalToken(token);
  return ctx.db.transaction().execute(async (trx) => {
    const link = await lockPortalLinkByHash(trx, tokenHash);
    if (!link) throw linkRefused('this is not a portal link', 'portal_link_invalid');
    if (link.supersededAt)
      throw linkRefused('a newer e-mail replaced this link; use the link of the newest e-mail', 'portal_link_superseded', 'gone');
    if (link.kind !== 'emailAction' && link.usedAt)
      throw linkRefused('this link was already opened; ask for a new one', 'portal_link_used', 'gone');
    if (link.expiresAt.getTime() <= now.getTime())
      throw linkRefused('this link has expired; ask for a new one', 'portal_link_expired', 'gone');
    await markPortalLinkUsed(trx, link.id, now);
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
      flow: link.flow,
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
      flow: link.flow as PortalFlow | null,
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

/**
 * POST /v1/portalSessions: a one-use link (15 minutes to open) into a full portal session for the
 * customer, optionally on one task. Audited; the token is in the URL only, shown once.
 */
export async function createPortalSession(
  ctx: AppContext,
  caller: Caller,
  input: CreatePortalSessionInput,
): Promise<PortalSessionResponse> {
  const customer = await findCustomerRow(ctx.db, caller.accountId, input.customerId);
  if (!customer) throw Refusal.notFound('customer', input.customerId);
  if (input.subscriptionId != null) {
    const owner = await findSubscriptionCustomerId(ctx.db, caller.accountId, input.subscriptionId);
    if (owner !== customer.id)
      throw Refusal.invalid(`the customer has no subscription with id ${input.subscriptionId}`, 'subscriptionId', 'not_found');
  }
  const issued = await ctx.db.transaction().execute(async (trx) => {
    const link = await issuePortalLink(ctx, trx, {
      accountId: caller.accountId,
      customerId: customer.id,
      kind: 'session',
      scope: 'full',
      flow: input.flow ?? null,
      subscriptionId: input.subscriptionId ?? null,
      returnUrl: input.returnUrl ?? null,
      locale: input.locale ?? null,
    });
    await recordChange(trx, caller, {
      entityType: 'Customer',
      entityId: customer.id,
      action: 'update',
      changes: {
        portalSession: 'issued',
        portalLinkId: link.row.id,
        flow: input.flow ?? null,
        expiresAt: link.row.expiresAt.toISOString(),
      },
    });
    return link;
  });
  return { id: issued.row.id, url: issued.url, expiresTimestamp: issued.row.expiresAt.toISOString() };
}

/**
 * A link for an e-mail that asks the customer to act (PaymentFailed, CreditCardExpiry, InvoiceOverdue,
 * CustomerSuspend, InvoicePost): 7 days, opens as often as needed, scoped to updating the card and
 * paying; a newer one for the same customer and flow supersedes it. `trx`: the e-mail's transaction (else one of its own).
 */
export async function createEmailActionLink(
  ctx: AppContext,
  link: { accountId: number; customerId: number; flow: Exclude<PortalFlow, 'subscriptionCancel'>; locale?: PortalLocale | null },
  trx?: Queryable,
): Promise<{ url: string; expiresTimestamp: string }> {
  const issue = (q: Queryable) =>
    issuePortalLink(ctx, q, {
      accountId: link.accountId,
      customerId: link.customerId,
      kind: 'emailAction',
      scope: 'cardAndPay',
      flow: link.flow,
      subscriptionId: null,
      returnUrl: null,
      locale: link.locale ?? null,
    });
  const issued = trx ? await issue(trx) : await ctx.db.transaction().execute(issue);
  return { url: issued.url, expiresTimestamp: issued.row.expiresAt.toISOString() };
}

/**
 * The sign-in page's request: each customer of the account whose primary address this is gets a
 * one-use sign-in link (15 minutes) by e-mail. The caller answers the same whatever happened here,
 * so the page does not tell who is a customer.
 */
export async function requestSignInLink(
  ctx: AppContext,
  request: { accountId: number; email: string; locale?: PortalLocale | null },
): Promise<void> {
  const customers = await customersByPrimaryEmail(ctx.db, request.accountId, request.email);
  for (const customer of customers) {
    // The customer's own language, else the sign-in page's, else the account's default: the e-mail and the portal it opens speak it.
    const locale = (PORTAL_LOCALES as readonly string[]).includes(customer.language ?? '')
      ? (customer.language as PortalLocale)
      : (request.locale ?? ctx.catalog.emails.defaultLanguage);
    await ctx.db.transaction().execute(async (trx) => {
      const link = await issuePortalLink(ctx, trx, {
        accountId: customer.accountId,
        customerId: customer.id,
        kind: 'signIn',
        scope: 'full',
        flow: null,
        subscriptionId: null,
        returnUrl: null,
        locale,
      });
      await ctx.notifier?.enqueueRequested(trx, customer, { type: 'PortalSignIn', url: link.url, minutes: SIGN_IN_LINK_MINUTES }, locale);
    });
  }
}
