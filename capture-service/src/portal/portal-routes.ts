import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '@renew/billing-service';
import { addressBudgetKey, enforceRateLimit, type RateLimitStore } from '@renew/billing-service/http';
import type { PublicKeyAuthenticator } from '../public-key.js';
import { authenticatePortalSession, openPortalLink, PortalSignInBody, requestSignInLink } from '@renew/billing-service/portal';
import { fileURLToPath } from 'node:url';
import { browserBundle } from '../hosted/card-fields-assets.js';
import { sendAsset } from '../hosted/card-fields-routes.js';
import { merchantBranding } from '@renew/billing-service/catalog';
import { registerPortalApiRoutes } from './portal-api-routes.js';
import {
  captchaPageSources,
  parseBody,
  readCookie,
  sessionCookie,
  sessionCookieName,
  type PortalCaptcha,
  type PortalRouteKit,
} from './portal-http.js';
import {
  portalAppPage,
  portalBranding,
  portalOpenPage,
  portalPagePolicy,
  portalSignInPage,
  PORTAL_APP_SCRIPT_PATH,
  PORTAL_OPEN_SCRIPT,
  PORTAL_SIGN_IN_SCRIPT,
  type PortalBranding,
} from './portal-pages.js';

export { sessionCookieName } from './portal-http.js';

const PORTAL_APP_ENTRY = fileURLToPath(new URL('./browser/portal-app.ts', import.meta.url));

export const PORTAL_CSRF_HEADER = 'x-portal-csrf';
declare module 'fastify' {
  interface FastifyContextConfig {
    /** true: a portal route, limited per client address by PORTAL_IP_LIMITS (a portal page makes several requests) instead of the captures' limit. */
    portal?: boolean;
  }
}

/** A client address's portal requests (its pages read and write several times per view; each session is limited per customer too). */
export const PORTAL_IP_LIMITS = { perMinute: 300, perDay: 10_000 };
/** A customer's portal requests, whatever address they come from (the address has its own limit, per capture host). */
export const PORTAL_CUSTOMER_LIMITS = { perMinute: 60, perDay: 2000 };
/** The budget of one customer's portal requests (the card form's captures spend it too). */
export function portalCustomerBudgetKey(accountId: number, customerId: number): string {
  return `portal-customer:${accountId}:${customerId}`;
}
/** Sign-in e-mails asked for one address: a few a minute, so nobody floods an inbox through the page. */
export const PORTAL_SIGN_IN_LIMITS = { perMinute: 3, perDay: 20 };
/** Sign-in requests from one client address (an IPv6 one by its /64), whatever addresses they name. */
export const PORTAL_SIGN_IN_IP_LIMITS = { perMinute: 10, perDay: 100 };

export interface PortalRouteOptions {
  ctx: AppContext;
  rateLimitStore: RateLimitStore;
  publicKeys: PublicKeyAuthenticator;
  /** The card form's CAPTCHA after a decline (portal-card-attempts.ts). */
  captcha?: PortalCaptcha;
}

/**
 * The customer portal on the capture host: the link-opening page (a GET shows it, only its POST
 * spends the link, so mail scanners that fetch links do not burn them), the sign-in page, and the
 * JSON routes under /portal/api, each on the cookie's session; every write needs the session's
 * CSRF token in X-Portal-CSRF. Each call goes to @renew/billing-service/portal.
 */
export function registerPortal(app: FastifyInstance, options: PortalRouteOptions): void {
  const kit = portalRouteKit(options);
  registerOpenRoutes(app, kit);
  registerAppPageRoutes(app, kit);
  registerSignInRoutes(app, kit);
  registerPortalApiRoutes(app, kit);
}

function portalRouteKit(options: PortalRouteOptions): PortalRouteKit {
  const { ctx, rateLimitStore } = options;
  const secureOf = (request: FastifyRequest) => request.protocol === 'https';
  const sessionToken = (request: FastifyRequest) => readCookie(request, sessionCookieName(secureOf(request)));
  // The merchant as its e-mails show it (the catalogue's `emails`), heading every page.
  const branding = portalBranding(merchantBranding(ctx.catalog));
  return {
    ...options,
    secureOf,
    page: { config: { public: true } },
    portalRoute: { config: { portal: true } },
    branding,
    sendPage: (reply, html) =>
      sendPortalPage(reply, html, branding, ctx.payments.gateway.challengeFrameSources ?? ['https:'], captchaPageSources(options.captcha)),
    sessionToken,
    session: async (request, reply, write) => {
      const csrf = request.headers[PORTAL_CSRF_HEADER];
      const found = await authenticatePortalSession(ctx, sessionToken(request), { write, csrfToken: Array.isArray(csrf) ? csrf[0] : csrf });
      await enforceRateLimit(rateLimitStore, reply, portalCustomerBudgetKey(found.accountId, found.customerId), PORTAL_CUSTOMER_LIMITS);
      reply.header('cache-control', 'no-store');
      return found;
    },
  };
}

/** The link-opening page and its script, and the POST that spends the link into a session cookie. */
function registerOpenRoutes(app: FastifyInstance, kit: PortalRouteKit): void {
  const { ctx, page, portalRoute, branding, sendPage, secureOf } = kit;
  app.get('/portal/open', page, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const token = typeof query.token === 'string' ? query.token : '';
    return sendPage(reply, portalOpenPage({ token, lang: typeof query.lang === 'string' ? query.lang : undefined, branding }));
  });
  app.get(PORTAL_OPEN_SCRIPT.path, page, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(PORTAL_OPEN_SCRIPT.body),
  );

  // Spends the link: a form post (the page) is answered with a redirect into the portal; JSON with the session's details.
  app.post('/portal/open', portalRoute, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const opened = await openPortalLink(ctx, typeof body.token === 'string' ? body.token : '');
    const secure = secureOf(request);
    const maxAge = Math.max(60, ctx.catalog.portal.sessionMaxMinutes * 60);
    reply
      .header('set-cookie', sessionCookie(opened.sessionToken, secure, maxAge))
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer');
    const where = new URLSearchParams({ ...(opened.flow ? { flow: opened.flow } : {}), ...(opened.locale ? { lang: opened.locale } : {}) });
    if (!/json/i.test(request.headers['content-type'] ?? ''))
      return reply
        .code(303)
        .header('location', `/portal/${where.size ? `?${where.toString()}` : ''}`)
        .send();
    const { sessionToken: _secret, ...visible } = opened;
    return visible;
  });
}

/** The portal's page and its bundled script (browser/portal-app.ts). */
function registerAppPageRoutes(app: FastifyInstance, kit: PortalRouteKit): void {
  const { page, branding, sendPage } = kit;
  // The portal's pages (after a link opened a session; without one they say so), and their script.
  app.get('/portal/', page, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    return sendPage(reply, portalAppPage({ lang: typeof query.lang === 'string' ? query.lang : undefined, branding }));
  });
  app.get(PORTAL_APP_SCRIPT_PATH, page, async (request, reply) =>
    sendAsset(request, reply, await browserBundle(PORTAL_APP_ENTRY), 'text/javascript; charset=utf-8'),
  );
}

/** The sign-in page, its script, and the POST that e-mails a sign-in link. */
function registerSignInRoutes(app: FastifyInstance, kit: PortalRouteKit): void {
  const { ctx, rateLimitStore, page, portalRoute, branding, sendPage, publicKeys } = kit;
  app.get('/portal/sign-in', page, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    return sendPage(
      reply,
      portalSignInPage({
        account: typeof query.account === 'string' ? query.account : '',
        lang: typeof query.lang === 'string' ? query.lang : undefined,
        branding,
      }),
    );
  });
  app.get(PORTAL_SIGN_IN_SCRIPT.path, page, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(PORTAL_SIGN_IN_SCRIPT.body),
  );

  // The same 202 whether or not the address is a customer's: the page tells nobody who is one.
  app.post('/portal/sign-in', portalRoute, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const caller = await publicKeys.authenticate(body.account);
    const input = parseBody(PortalSignInBody, { email: body.email, locale: body.locale || undefined });
    await enforceRateLimit(
      rateLimitStore,
      reply,
      `portal-sign-in:${caller.accountId}:${input.email.trim().toLowerCase()}`,
      PORTAL_SIGN_IN_LIMITS,
    );
    await enforceRateLimit(rateLimitStore, reply, `portal-sign-in-ip:${addressBudgetKey(request.ip)}`, PORTAL_SIGN_IN_IP_LIMITS);
    // The lookup and the e-mail happen once the answer is sent: a known address is not answered more slowly than an unknown one.
    reply.raw.once('finish', () => {
      requestSignInLink(ctx, { accountId: caller.accountId, email: input.email, locale: input.locale ?? null }).catch((error: unknown) =>
        request.log.error({ err: error }, 'portal sign-in link not sent'),
      );
    });
    return reply
      .code(202)
      .send({ message: 'If this address belongs to a customer, a sign-in link is on its way. It works once, within 15 minutes.' });
  });
}

function sendPortalPage(
  reply: FastifyReply,
  html: string,
  branding: PortalBranding,
  challengeFrameSources: readonly string[],
  captcha: ReturnType<typeof captchaPageSources>,
) {
  return reply
    .header('content-security-policy', portalPagePolicy(branding, challengeFrameSources, captcha))
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .type('text/html; charset=utf-8')
    .send(html);
}
