import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { AppContext } from '@renew/billing-service';
import { addressBudgetKey, enforceRateLimit, validationError, type RateLimitStore } from '@renew/billing-service/http';
import {
  applyPortalPlanChange,
  authenticatePortalSession,
  cancelPortalSubscription,
  csrfTokenFor,
  endPortalSession,
  getPortalEmailPreferences,
  getPortalOverview,
  listPortalInvoices,
  listPortalPlanChanges,
  openPortalLink,
  payPortalInvoices,
  portalCardCaptureToken,
  portalInvoicePdf,
  previewPortalPlanChange,
  PortalBillingAddressBody,
  PortalCancelBody,
  PortalContactBody,
  PortalDefaultCardBody,
  PortalEmailPreferencesBody,
  PortalIdParams,
  PortalPayBody,
  PortalPlanChangeBody,
  PortalSignInBody,
  requestSignInLink,
  setPortalDefaultCard,
  uncancelPortalSubscription,
  updatePortalBillingAddress,
  updatePortalContact,
  updatePortalEmailPreferences,
  withdrawPortalPlanChange,
  type PortalSession,
} from '@renew/billing-service/portal';
import type { PublicKeyAuthenticator } from '../public-key.js';
import { fileURLToPath } from 'node:url';
import { browserBundle } from '../hosted/card-fields-assets.js';
import { sendAsset } from '../hosted/card-fields-routes.js';
import { merchantBranding } from '@renew/billing-service/catalog';
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

/** The session cookie: `__Host-` (this host only, Secure, path /) under HTTPS; plain HTTP (development) cannot use the prefix. */
export function sessionCookieName(secure: boolean): string {
  return secure ? '__Host-renew_portal' : 'renew_portal';
}

function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

function sessionCookie(token: string, secure: boolean, maxAgeSeconds: number): string {
  return [
    `${sessionCookieName(secure)}=${token}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${maxAgeSeconds}`,
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) throw validationError(parsed.error.issues);
  return parsed.data;
}

export interface PortalRouteOptions {
  ctx: AppContext;
  rateLimitStore: RateLimitStore;
  publicKeys: PublicKeyAuthenticator;
}

/**
 * The customer portal on the capture host: the link-opening page (a GET shows it, only its POST
 * spends the link, so mail scanners that fetch links do not burn them), the sign-in page, and the
 * JSON routes under /portal/api, each on the cookie's session; every write needs the session's
 * CSRF token in X-Portal-CSRF. Each call goes to @renew/billing-service/portal.
 */
export function registerPortal(app: FastifyInstance, options: PortalRouteOptions): void {
  const { ctx, rateLimitStore } = options;
  const secureOf = (request: FastifyRequest) => request.protocol === 'https';
  // Pages and their scripts are public (no limit, as the card fields); what spends a link or sends an e-mail is limited per address.
  const page = { config: { public: true } };
  const portalRoute = { config: { portal: true } };
  // The merchant as its e-mails show it (the catalogue's `emails`), heading every page.
  const branding = portalBranding(merchantBranding(ctx.catalog));
  const sendPage = (reply: FastifyReply, html: string) => sendPortalPage(reply, html, branding);

  const session = async (request: FastifyRequest, reply: FastifyReply, write: boolean): Promise<PortalSession> => {
    const token = readCookie(request, sessionCookieName(secureOf(request)));
    const csrf = request.headers[PORTAL_CSRF_HEADER];
    const found = await authenticatePortalSession(ctx, token, { write, csrfToken: Array.isArray(csrf) ? csrf[0] : csrf });
    await enforceRateLimit(rateLimitStore, reply, portalCustomerBudgetKey(found.accountId, found.customerId), PORTAL_CUSTOMER_LIMITS);
    reply.header('cache-control', 'no-store');
    return found;
  };

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

  // The portal's pages (after a link opened a session; without one they say so), and their script.
  app.get('/portal/', page, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    return sendPage(reply, portalAppPage({ lang: typeof query.lang === 'string' ? query.lang : undefined, branding }));
  });
  app.get(PORTAL_APP_SCRIPT_PATH, page, async (request, reply) =>
    sendAsset(request, reply, await browserBundle(PORTAL_APP_ENTRY), 'text/javascript; charset=utf-8'),
  );

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
    const caller = await options.publicKeys.authenticate(body.account);
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

  app.get('/portal/api/session', portalRoute, async (request, reply) => {
    const found = await session(request, reply, false);
    return { ...found, csrfToken: csrfTokenFor(readCookie(request, sessionCookieName(secureOf(request)))!) };
  });
  app.post('/portal/api/sign-out', portalRoute, async (request, reply) => {
    await session(request, reply, true);
    await endPortalSession(ctx, readCookie(request, sessionCookieName(secureOf(request))));
    return reply
      .header('set-cookie', sessionCookie('', secureOf(request), 0))
      .code(204)
      .send();
  });
  app.get('/portal/api/overview', portalRoute, async (request, reply) => getPortalOverview(ctx, await session(request, reply, false)));
  app.get('/portal/api/invoices', portalRoute, async (request, reply) => listPortalInvoices(ctx, await session(request, reply, false)));
  app.get('/portal/api/invoices/:id/pdf', portalRoute, async (request, reply) => {
    const found = await session(request, reply, false);
    const { id } = parseBody(PortalIdParams, request.params);
    const file = await portalInvoicePdf(ctx, found, id);
    return reply.type('application/pdf').header('content-disposition', `attachment; filename="${file.filename}"`).send(file.content);
  });
  // With the client address the card fields send as clientIp (the risk check's), as the widget's proxy gives it.
  app.post('/portal/api/card-capture-token', portalRoute, async (request, reply) => ({
    ...(await portalCardCaptureToken(ctx, await session(request, reply, true))),
    clientIp: request.ip,
  }));
  app.post('/portal/api/default-card', portalRoute, async (request, reply) => {
    const found = await session(request, reply, true);
    return setPortalDefaultCard(ctx, found, parseBody(PortalDefaultCardBody, request.body).paymentMethodId);
  });
  app.post('/portal/api/pay', portalRoute, async (request, reply) => {
    const found = await session(request, reply, true);
    const key = request.headers['idempotency-key'];
    return payPortalInvoices(ctx, found, parseBody(PortalPayBody, request.body), typeof key === 'string' ? key.slice(0, 255) : undefined);
  });
  app.post('/portal/api/subscriptions/:id/cancel', portalRoute, async (request, reply) => {
    const found = await session(request, reply, true);
    return cancelPortalSubscription(ctx, found, parseBody(PortalIdParams, request.params).id, parseBody(PortalCancelBody, request.body));
  });
  app.post('/portal/api/subscriptions/:id/uncancel', portalRoute, async (request, reply) => {
    const found = await session(request, reply, true);
    return uncancelPortalSubscription(ctx, found, parseBody(PortalIdParams, request.params).id);
  });
  // "Change plan" and "Seats": what each Active subscription may change to, a preview (a POST: it carries the change,
  // and the CSRF token like every write, though it changes nothing), the change, and withdrawing one scheduled.
  app.get('/portal/api/plan-changes', portalRoute, async (request, reply) =>
    listPortalPlanChanges(ctx, await session(request, reply, false)),
  );
  app.post('/portal/api/subscriptions/:id/changes/preview', portalRoute, async (request, reply) => {
    const found = await session(request, reply, true);
    return previewPortalPlanChange(ctx, found, parseBody(PortalIdParams, request.params).id, parseBody(PortalPlanChangeBody, request.body));
  });
  app.post('/portal/api/subscriptions/:id/changes', portalRoute, async (request, reply) => {
    const found = await session(request, reply, true);
    return applyPortalPlanChange(ctx, found, parseBody(PortalIdParams, request.params).id, parseBody(PortalPlanChangeBody, request.body));
  });
  app.delete('/portal/api/subscriptions/:id/changes/pending', portalRoute, async (request, reply) => {
    const found = await session(request, reply, true);
    return withdrawPortalPlanChange(ctx, found, parseBody(PortalIdParams, request.params).id);
  });
  app.put('/portal/api/contact', portalRoute, async (request, reply) => {
    const found = await session(request, reply, true);
    return updatePortalContact(ctx, found, parseBody(PortalContactBody, request.body));
  });
  app.put('/portal/api/billing-address', portalRoute, async (request, reply) => {
    const found = await session(request, reply, true);
    return updatePortalBillingAddress(ctx, found, parseBody(PortalBillingAddressBody, request.body));
  });
  app.get('/portal/api/email-preferences', portalRoute, async (request, reply) =>
    getPortalEmailPreferences(ctx, await session(request, reply, false)),
  );
  app.put('/portal/api/email-preferences', portalRoute, async (request, reply) => {
    const found = await session(request, reply, true);
    return updatePortalEmailPreferences(ctx, found, parseBody(PortalEmailPreferencesBody, request.body));
  });
}

function sendPortalPage(reply: FastifyReply, html: string, branding: PortalBranding) {
  return reply
    .header('content-security-policy', portalPagePolicy(branding))
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .type('text/html; charset=utf-8')
    .send(html);
}
