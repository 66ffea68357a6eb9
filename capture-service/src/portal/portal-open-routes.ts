import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { randomBytes } from 'node:crypto';
import { addressBudgetKey, ApiError, enforceRateLimit, Refusal } from '@renew/billing-service/http';
import {
  hashPortalToken,
  openPortalLink,
  PortalSignInBody,
  portalTokenOwner,
  requestSignInLink,
  resendPortalLink,
} from '@renew/billing-service/portal';
import { parseBody, portalCookie, readCookie, sessionCookie, type PortalRouteKit } from './portal-http.js';
import {
  linkPageLanguage,
  portalConfirmPage,
  portalLinkProblemPage,
  portalResentPage,
  type LinkPageLanguage as Lang,
  type LinkProblem,
} from './portal-link-pages.js';
import { PORTAL_OPEN_SCRIPT, PORTAL_SIGN_IN_SCRIPT, portalOpenPage, portalSignInPage } from './portal-pages.js';

/** Sign-in requests from one client address (an IPv6 one by its /64), whatever addresses they name. */
export const PORTAL_SIGN_IN_IP_LIMITS = { perMinute: 10, perDay: 100 };
/** Sign-in e-mails one client address asks for one e-mail address: a few a minute, so nobody floods an inbox through the page. */
export const PORTAL_SIGN_IN_LIMITS = { perMinute: 3, perDay: 20 };
/**
 * Every address's accepted requests for one e-mail address: loose, a cap on what many addresses together
 * can send. Only requests the address budgets accepted count, so one address cannot lock a customer out.
 */
export const PORTAL_SIGN_IN_EMAIL_CAP = { perMinute: 10, perDay: 60 };
/** How long the cookie that binds a sign-in link to the asking browser lives: the link's own lifetime. */
const SIGN_IN_NONCE_SECONDS = 15 * 60;
/** A portal session's cookie outlives the session, so that a visit after its end knows whose it was (one button sends a new link). */
const SESSION_COOKIE_SECONDS = 30 * 24 * 3600;

const isJson = (request: FastifyRequest) => /json/i.test(request.headers['content-type'] ?? '');
const field = (body: unknown, name: string) => {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
};

/** The cookie holding the nonce a sign-in link is bound to: HttpOnly, Lax (a link opened from a mail client is a top-level GET). */
function nonceCookieName(secure: boolean): string {
  return secure ? '__Host-renew_portal_sign_in' : 'renew_portal_sign_in';
}

/** This browser's sign-in nonce (kept when it has one, so earlier links still match), the cookie set again; returns its hash. */
function bindBrowser(request: FastifyRequest, reply: FastifyReply, secure: boolean): string {
  const sent = readCookie(request, nonceCookieName(secure));
  const nonce = sent && /^pn_[A-Za-z0-9_-]{43}$/.test(sent) ? sent : `pn_${randomBytes(32).toString('base64url')}`;
  const cookie = portalCookie(nonceCookieName(secure), nonce, { secure, maxAgeSeconds: SIGN_IN_NONCE_SECONDS, sameSite: 'Lax' });
  reply.header('set-cookie', cookie);
  return hashPortalToken(nonce);
}

/**
 * Whether another site sent this request (login forgery: a form on the attacker's page posting the attacker's
 * token): `Sec-Fetch-Site` other than same-origin or none, or an `Origin` other than this host's own.
 */
export function crossSite(request: FastifyRequest, portalBaseUrl: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  const own = new Set([`${request.protocol}://${request.headers.host ?? ''}`.toLowerCase()]);
  try {
    own.add(new URL(portalBaseUrl).origin.toLowerCase());
  } catch {
    // no usable base URL: this host's own origin alone
  }
  return !own.has(origin.toLowerCase());
}

const crossSiteRefused = () =>
  new ApiError(403, [
    {
      Key: 'Origin',
      Value: 'another site sent this request: open the link from its e-mail or from the sign-in page',
      Code: 'cross_site_refused',
    },
  ]);

const PROBLEM_OF: Record<string, LinkProblem> = { portal_link_expired: 'expired', portal_link_used: 'used' };

/** The link-opening page and its script, the POST that spends the link, and "send me a new link". */
export function registerOpenRoutes(app: FastifyInstance, kit: PortalRouteKit): void {
  const { ctx, page, portalRoute, branding, sendPage, secureOf } = kit;
  const language = (request: FastifyRequest, locale?: string | null) =>
    linkPageLanguage(locale, field(request.body, 'lang') ?? field(request.query, 'lang'), request.headers['accept-language']);
  const problemPage = (reply: FastifyReply, status: number, html: string) => sendPage(reply.code(status), html);

  app.get('/portal/open', page, async (request, reply) =>
    sendPage(reply, portalOpenPage({ lang: field(request.query, 'lang'), branding })),
  );
  app.get(PORTAL_OPEN_SCRIPT.path, page, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(PORTAL_OPEN_SCRIPT.body),
  );

  // Spends the link: a form post (the page) is answered with a redirect into the portal, or a page (confirm, or
  // what went wrong and the way forward); JSON with the session's details, or the spec's error body.
  app.post('/portal/open', portalRoute, async (request, reply) => {
    const json = isJson(request);
    if (crossSite(request, ctx.portal.baseUrl)) {
      if (json) throw crossSiteRefused();
      return problemPage(reply, 403, portalLinkProblemPage({ lang: language(request), branding, problem: 'crossSite' }));
    }
    const token = field(request.body, 'token') ?? '';
    const confirmed = (request.body as Record<string, unknown> | undefined)?.confirmed;
    const secure = secureOf(request);
    let opened: Awaited<ReturnType<typeof openPortalLink>>;
    try {
      opened = await openPortalLink(ctx, token, {
        confirmed: confirmed === true || confirmed === '1',
        browserNonce: readCookie(request, nonceCookieName(secure)),
      });
    } catch (error) {
      if (json || !(error instanceof Refusal) || !error.errors[0]?.Code?.startsWith('portal_link_')) throw error;
      const problem = PROBLEM_OF[error.errors[0].Code] ?? 'invalid';
      const owner = problem === 'invalid' ? undefined : await portalTokenOwner(ctx, { linkToken: token });
      const html = portalLinkProblemPage({
        lang: language(request, owner?.locale),
        branding,
        problem,
        resend: owner ? { linkToken: token } : undefined,
      });
      return problemPage(reply, problem === 'invalid' ? 400 : 410, html);
    }
    reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
    if ('confirmationNeeded' in opened) {
      if (json) return { confirmationNeeded: true, maskedEmail: opened.maskedEmail, merchantName: branding.name };
      return sendPage(
        reply,
        portalConfirmPage({ lang: language(request, opened.locale), branding, token, maskedEmail: opened.maskedEmail }),
      );
    }
    reply.header('set-cookie', sessionCookie(opened.sessionToken, secure, SESSION_COOKIE_SECONDS));
    const where = new URLSearchParams({
      ...(opened.flow ? { flow: opened.flow } : {}),
      ...(opened.locale ? { lang: opened.locale } : {}),
      ...(opened.taskDone ? { notice: 'nothingToPay' } : {}),
    });
    if (!json)
      return reply
        .code(303)
        .header('location', `/portal/${where.size ? `?${where.toString()}` : ''}`)
        .send();
    const { sessionToken: _secret, ...visible } = opened;
    return visible;
  });
  registerResendRoute(app, kit, language, problemPage);
}

/** "Send me a new link": a sign-in link to the customer a dead link or an ended session names. */
function registerResendRoute(
  app: FastifyInstance,
  kit: PortalRouteKit,
  language: (request: FastifyRequest, locale?: string | null) => Lang,
  problemPage: (reply: FastifyReply, status: number, html: string) => FastifyReply,
): void {
  const { ctx, portalRoute, branding, sendPage, secureOf, rateLimitStore } = kit;
  // "Send me a new link" from the page of a dead link (its token) or of a session that ended (its cookie): a sign-in
  // link to the customer on file, bound to this browser. The same answer whether or not anything is sent.
  app.post('/portal/resend', portalRoute, async (request, reply) => {
    const json = isJson(request);
    if (crossSite(request, ctx.portal.baseUrl)) {
      if (json) throw crossSiteRefused();
      return problemPage(reply, 403, portalLinkProblemPage({ lang: language(request), branding, problem: 'crossSite' }));
    }
    await enforceRateLimit(rateLimitStore, reply, `portal-sign-in-ip:${addressBudgetKey(request.ip)}`, PORTAL_SIGN_IN_IP_LIMITS);
    const tokens = { linkToken: field(request.body, 'token'), sessionToken: kit.sessionToken(request) };
    const owner = await portalTokenOwner(ctx, tokens);
    if (owner) await enforceRateLimit(rateLimitStore, reply, `portal-resend:${owner.accountId}:${owner.customerId}`, PORTAL_SIGN_IN_LIMITS);
    const browserNonceHash = bindBrowser(request, reply, secureOf(request));
    const lang = language(request, owner?.locale);
    reply.raw.once('finish', () => {
      resendPortalLink(ctx, { ...tokens, locale: lang, browserNonceHash }).catch((error: unknown) =>
        request.log.error({ err: error }, 'portal sign-in link not sent'),
      );
    });
    if (json) return reply.code(202).send({ message: 'If this link belongs to a customer, a new sign-in link is on its way.' });
    return sendPage(reply.code(202), portalResentPage({ lang, branding }));
  });
}

/** The sign-in page, its script, and the POST that e-mails a sign-in link. */
export function registerSignInRoutes(app: FastifyInstance, kit: PortalRouteKit): void {
  const { ctx, rateLimitStore, page, portalRoute, branding, sendPage, publicKeys, secureOf } = kit;
  app.get('/portal/sign-in', page, async (request, reply) =>
    sendPage(reply, portalSignInPage({ account: field(request.query, 'account') ?? '', lang: field(request.query, 'lang'), branding })),
  );
  app.get(PORTAL_SIGN_IN_SCRIPT.path, page, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(PORTAL_SIGN_IN_SCRIPT.body),
  );

  // The same 202 whether or not the address is a customer's: the page tells nobody who is one. Without an account
  // (a sign-in page reached from the shop without a key), every account of this host is asked.
  app.post('/portal/sign-in', portalRoute, async (request, reply) => {
    const account = field(request.body, 'account') || undefined;
    const caller = account ? await publicKeys.authenticate(account) : undefined;
    const input = parseBody(PortalSignInBody, { email: field(request.body, 'email'), locale: field(request.body, 'locale') || undefined });
    const email = input.email.trim().toLowerCase();
    const address = addressBudgetKey(request.ip);
    const where = caller ? String(caller.accountId) : 'host';
    const lang = linkPageLanguage(null, input.locale ?? undefined, request.headers['accept-language']);
    try {
      // In this order, each budget counting only what the ones before accepted: a refused request fills nothing of the e-mail's.
      await enforceRateLimit(rateLimitStore, reply, `portal-sign-in-ip:${address}`, PORTAL_SIGN_IN_IP_LIMITS);
      await enforceRateLimit(rateLimitStore, reply, `portal-sign-in:${where}:${email}:${address}`, PORTAL_SIGN_IN_LIMITS);
      await enforceRateLimit(rateLimitStore, reply, `portal-sign-in-email:${where}:${email}`, PORTAL_SIGN_IN_EMAIL_CAP);
    } catch (error) {
      // A form post (no script) is a navigation: a page, never JSON.
      if (isJson(request) || !(error instanceof ApiError)) throw error;
      return sendPage(reply.code(error.statusCode), portalResentPage({ lang, branding, address: true }));
    }
    const browserNonceHash = bindBrowser(request, reply, secureOf(request));
    // The lookup and the e-mail happen once the answer is sent: a known address is not answered more slowly than an unknown one.
    reply.raw.once('finish', () => {
      requestSignInLink(ctx, { accountId: caller?.accountId ?? null, email, locale: input.locale ?? null, browserNonceHash }).catch(
        (error: unknown) => request.log.error({ err: error }, 'portal sign-in link not sent'),
      );
    });
    if (!isJson(request)) return sendPage(reply.code(202), portalResentPage({ lang, branding, address: true }));
    return reply
      .code(202)
      .send({ message: 'If this address belongs to a customer, a sign-in link is on its way. It works once, within 15 minutes.' });
  });
}
