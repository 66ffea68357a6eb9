import type { AppContext } from '../app-context.js';
import type { Queryable } from '../db/database.js';
import { hashPortalToken, issuePortalLink } from './links.js';
import {
  accountIdsOnHost,
  customersByPrimaryEmail,
  findCustomerContact,
  findPortalLinkByHash,
  findPortalSessionByHash,
} from './repository.js';
import { PORTAL_LOCALES, SIGN_IN_LINK_MINUTES, type PortalLocale } from './schemas.js';

// Sign-in links: asked for on the sign-in page, or from the page of a link that no longer opens.
// Every caller answers the same whatever happens here, so no page tells who is a customer.

type Contact = NonNullable<Awaited<ReturnType<typeof findCustomerContact>>>;

/** The most accounts one sign-in request without an account reaches (every account of the capture host). */
export const SIGN_IN_MAX_ACCOUNTS = 20;

/** A dead link's token, or the cookie of a session that ended. */
export interface PortalTokens {
  linkToken?: string | undefined;
  sessionToken?: string | undefined;
}

/** The sign-in request's browser: the hash of the nonce in its cookie, which the link is bound to. */
export interface SignInBrowser {
  browserNonceHash?: string | null;
}

/** A sign-in link (15 minutes, once) to the customer's primary address, in their language. Not for a Draft or Cancelled customer. */
async function sendSignInLink(
  ctx: AppContext,
  customer: Contact,
  request: SignInBrowser & { locale?: PortalLocale | null | undefined },
): Promise<void> {
  if (customer.status === 'Draft' || customer.status === 'Cancelled' || !customer.primaryEmail) return;
  // The customer's own language, else the page's, else the account's default: the e-mail and the portal it opens speak it.
  const locale = (PORTAL_LOCALES as readonly string[]).includes(customer.language ?? '')
    ? (customer.language as PortalLocale)
    : (request.locale ?? ctx.catalog.emails.defaultLanguage);
  await ctx.db.transaction().execute(async (trx: Queryable) => {
    const link = await issuePortalLink(ctx, trx, {
      accountId: customer.accountId,
      customerId: customer.id,
      kind: 'signIn',
      scope: 'full',
      flow: null,
      subscriptionId: null,
      returnUrl: null,
      locale,
      browserNonceHash: request.browserNonceHash ?? null,
    });
    await ctx.notifier?.enqueueRequested(trx, customer, { type: 'PortalSignIn', url: link.url, minutes: SIGN_IN_LINK_MINUTES }, locale);
  });
}

/**
 * The sign-in page's request: each customer of the account (every account of the host when none is
 * named) whose primary address this is gets a one-use sign-in link (15 minutes) by e-mail, bound to
 * the browser that asked. Draft customers get none: anyone can create one through a checkout.
 */
export async function requestSignInLink(
  ctx: AppContext,
  request: SignInBrowser & { accountId: number | null; email: string; locale?: PortalLocale | null },
): Promise<void> {
  const accountIds = request.accountId === null ? await accountIdsOnHost(ctx.db, SIGN_IN_MAX_ACCOUNTS) : [request.accountId];
  for (const accountId of accountIds) {
    const customers = await customersByPrimaryEmail(ctx.db, accountId, request.email);
    for (const customer of customers) await sendSignInLink(ctx, customer, request);
  }
}

/**
 * "Send me a new link" on the page of a link that no longer opens (used, expired) or of a session that
 * ended: the link or the session names its customer, who gets a fresh sign-in link at the address on
 * file. Nothing is sent for a token nobody issued.
 */
export async function resendPortalLink(
  ctx: AppContext,
  request: SignInBrowser & PortalTokens & { locale?: PortalLocale | null },
): Promise<void> {
  const owner = await findTokenOwner(ctx, request);
  const customer = owner && (await findCustomerContact(ctx.db, owner.accountId, owner.customerId));
  if (customer)
    await sendSignInLink(ctx, customer, { ...request, locale: (owner.locale as PortalLocale | null) ?? request.locale ?? null });
}

/** A link's token (any state) or a session's (ended or not): the customer it names, and its language. */
async function findTokenOwner(ctx: AppContext, token: PortalTokens) {
  const hashOf = (value: string | undefined, prefix: string) =>
    typeof value === 'string' && value.length <= 200 && value.startsWith(prefix) ? hashPortalToken(value) : undefined;
  const linkHash = hashOf(token.linkToken, 'pl_');
  if (linkHash) return findPortalLinkByHash(ctx.db, linkHash);
  const sessionHash = hashOf(token.sessionToken, 'ps_');
  return sessionHash ? findPortalSessionByHash(ctx.db, sessionHash) : undefined;
}

/** Who a link or a session names, without sending anything: the page of a dead link knows whether to offer one button. */
export async function portalTokenOwner(
  ctx: AppContext,
  token: PortalTokens,
): Promise<{ accountId: number; customerId: number; locale: PortalLocale | null } | undefined> {
  const owner = await findTokenOwner(ctx, token);
  return owner ? { accountId: owner.accountId, customerId: owner.customerId, locale: owner.locale as PortalLocale | null } : undefined;
}
