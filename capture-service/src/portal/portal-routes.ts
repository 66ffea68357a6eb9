import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '@renew/billing-service';
import { enforceRateLimit, type RateLimitStore } from '@renew/billing-service/http';
import type { PublicKeyAuthenticator } from '../public-key.js';
import { authenticatePortalSession, portalTokenOwner } from '@renew/billing-service/portal';
import { fileURLToPath } from 'node:url';
import { browserBundle } from '../hosted/card-fields-assets.js';
import { sendAsset } from '../hosted/card-fields-routes.js';
import { merchantBranding } from '@renew/billing-service/catalog';
import { registerPortalApiRoutes } from './portal-api-routes.js';
import { captchaPageSources, readCookie, sessionCookieName, type PortalCaptcha, type PortalRouteKit } from './portal-http.js';
import { linkPageLanguage, portalLinkProblemPage } from './portal-link-pages.js';
import { registerOpenRoutes, registerSignInRoutes } from './portal-open-routes.js';
import { portalAppPage, portalBranding, portalPagePolicy, PORTAL_APP_SCRIPT_PATH, type PortalBranding } from './portal-pages.js';

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
export { PORTAL_SIGN_IN_EMAIL_CAP, PORTAL_SIGN_IN_IP_LIMITS, PORTAL_SIGN_IN_LIMITS } from './portal-open-routes.js';

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

/** The portal's page and its bundled script (browser/portal-app.ts). */
function registerAppPageRoutes(app: FastifyInstance, kit: PortalRouteKit): void {
  const { ctx, page, branding, sendPage } = kit;
  // The portal's pages (after a link opened a session), and their script. A cookie whose session ended gets a way
  // forward instead: one button that sends a new sign-in link to the customer on file.
  app.get('/portal/', page, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const lang = typeof query.lang === 'string' ? query.lang : undefined;
    const sessionToken = kit.sessionToken(request);
    if (sessionToken && !(await authenticatePortalSession(ctx, sessionToken).catch(() => undefined))) {
      const owner = await portalTokenOwner(ctx, { sessionToken });
      const html = portalLinkProblemPage({
        lang: linkPageLanguage(owner?.locale, lang, request.headers['accept-language']),
        branding,
        problem: 'sessionEnded',
        resend: owner ? { linkToken: null } : undefined,
      });
      return sendPage(reply.code(401), html);
    }
    return sendPage(reply, portalAppPage({ lang, branding, nothingToPay: query.notice === 'nothingToPay' }));
  });
  app.get(PORTAL_APP_SCRIPT_PATH, page, async (request, reply) =>
    sendAsset(request, reply, await browserBundle(PORTAL_APP_ENTRY), 'text/javascript; charset=utf-8'),
  );
}

// Referrer-Policy same-origin: this host's own form posts carry its Origin (no-referrer would send "Origin: null", which
// POST /portal/open refuses as cross-site); other sites get no Referer. No page's address holds a secret.
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
    .header('referrer-policy', 'same-origin')
    .type('text/html; charset=utf-8')
    .send(html);
}
