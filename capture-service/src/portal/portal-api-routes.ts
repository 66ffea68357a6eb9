import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  applyPortalPlanChange,
  cancelPortalSubscription,
  csrfTokenFor,
  endPortalSession,
  getPortalEmailPreferences,
  getPortalOverview,
  listPortalInvoices,
  listPortalPlanChanges,
  payPortalInvoices,
  portalCardCaptureToken,
  portalCountries,
  portalInvoicePdf,
  listPortalCreditNotes,
  portalCreditNotePdf,
  getPortalSubscriptionUsage,
  listPortalUsage,
  previewPortalPlanChange,
  PortalBillingAddressBody,
  PortalCancelBody,
  PortalContactBody,
  PortalDefaultCardBody,
  PortalEmailPreferencesBody,
  PortalIdParams,
  PortalAuthenticatePaymentBody,
  authenticatePortalPayment,
  type PortalAuthenticationNeeded,
  PortalPayBody,
  PortalPlanChangeBody,
  confirmPortalEmailChange,
  setPortalDefaultCard,
  uncancelPortalSubscription,
  updatePortalBillingAddress,
  updatePortalContact,
  updatePortalEmailPreferences,
  withdrawPortalPlanChange,
} from '@renew/billing-service/portal';
import { portalCardFormGate } from './portal-card-attempts.js';
import { emailChangeConfirmPage, emailChangeResultPage } from './email-change-page.js';
import { Refusal } from '@renew/billing-service/http';
import { parseBody, sessionCookie, type PortalRouteKit } from './portal-http.js';

/**
 * The portal's JSON routes under /portal/api, in groups by what the page does; each reads the cookie's
 * session (a write also its CSRF token) and calls @renew/billing-service/portal.
 */
export function registerPortalApiRoutes(app: FastifyInstance, kit: PortalRouteKit): void {
  registerSessionRoutes(app, kit);
  registerPaymentRoutes(app, kit);
  registerSubscriptionRoutes(app, kit);
  registerDetailsRoutes(app, kit);
  registerEmailChangeRoutes(app, kit);
}

/** The cookie of a session just authenticated: one is there, or authenticating it would have refused. */
function requiredSessionToken(kit: PortalRouteKit, request: FastifyRequest): string {
  const token = kit.sessionToken(request);
  if (!token) throw new Error('an authenticated portal session always came with its cookie');
  return token;
}

/** The session itself, the overview and the invoices (each read on the cookie's session). */
function registerSessionRoutes(app: FastifyInstance, kit: PortalRouteKit): void {
  const { ctx, portalRoute, session, secureOf } = kit;
  app.get('/portal/api/session', portalRoute, async (request, reply) => {
    const found = await session(request, reply, false);
    return { ...found, csrfToken: csrfTokenFor(requiredSessionToken(kit, request)) };
  });
  app.post('/portal/api/sign-out', portalRoute, async (request, reply) => {
    await session(request, reply, true);
    await endPortalSession(ctx, kit.sessionToken(request));
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
  app.get('/portal/api/credit-notes', portalRoute, async (request, reply) =>
    listPortalCreditNotes(ctx, await session(request, reply, false)),
  );
  app.get('/portal/api/credit-notes/:id/pdf', portalRoute, async (request, reply) => {
    const found = await session(request, reply, false);
    const { id } = parseBody(PortalIdParams, request.params);
    const file = await portalCreditNotePdf(ctx, found, id);
    return reply.type('application/pdf').header('content-disposition', `attachment; filename="${file.filename}"`).send(file.content);
  });
  // The overview's "Used so far this period" (issue 41): the metered subscriptions' usage, or one of them (own only).
  app.get('/portal/api/usage', portalRoute, async (request, reply) => listPortalUsage(ctx, await session(request, reply, false)));
  app.get('/portal/api/subscriptions/:id/usage', portalRoute, async (request, reply) => {
    const found = await session(request, reply, false);
    return getPortalSubscriptionUsage(ctx, found, parseBody(PortalIdParams, request.params).id);
  });
}

/** The card (a capture token for the card fields, the default card) and paying what is due. */
function registerPaymentRoutes(app: FastifyInstance, kit: PortalRouteKit): void {
  const { ctx, portalRoute, session } = kit;
  // With the client address the card fields send as clientIp (the risk check's), as the widget's proxy gives it.
  // Refused (429) once the customer's cards were declined too often this hour; captchaRequired after a decline
  // (the form then shows the reCAPTCHA, whose answer the card fields send with the card).
  app.post('/portal/api/card-capture-token', portalRoute, async (request, reply) => {
    const found = await session(request, reply, true);
    const { captchaRequired } = await portalCardFormGate(ctx, reply, found.customerId);
    return {
      ...(await portalCardCaptureToken(ctx, found)),
      clientIp: request.ip,
      captchaRequired,
      captcha: kit.captcha ?? { mode: 'dev' },
    };
  });
  app.post('/portal/api/default-card', portalRoute, async (request, reply) => {
    const found = await session(request, reply, true);
    return setPortalDefaultCard(ctx, found, parseBody(PortalDefaultCardBody, request.body).paymentMethodId);
  });
  app.post('/portal/api/pay', portalRoute, async (request, reply) => {
    const found = await session(request, reply, true);
    const key = request.headers['idempotency-key'];
    const paid = await payPortalInvoices(
      ctx,
      found,
      parseBody(PortalPayBody, request.body),
      typeof key === 'string' ? key.slice(0, 255) : undefined,
    );
    return paidOrChallenge(request, reply, paid);
  });
  // The AuthenticationRequired e-mail's flow: the payment a renewal left waiting for the customer's bank.
  app.post('/portal/api/payments/:id/authenticate', portalRoute, async (request, reply) => {
    const found = await session(request, reply, true);
    const { id } = parseBody(PortalIdParams, request.params);
    const paid = await authenticatePortalPayment(ctx, found, id, parseBody(PortalAuthenticatePaymentBody, request.body ?? {}));
    return paidOrChallenge(request, reply, paid);
  });
}

/** A payment made, or (202) the bank's challenge the customer answers first (3-D Secure): on this host for the sandbox, so made absolute. */
function paidOrChallenge<T extends object>(request: FastifyRequest, reply: FastifyReply, paid: T | PortalAuthenticationNeeded) {
  if (!('authenticationId' in paid)) return paid;
  reply.code(202);
  return { ...paid, challengeUrl: new URL(paid.challengeUrl, `${request.protocol}://${request.host}`).toString() };
}

/** Cancelling, keeping, and changing a subscription's plan or quantities. */
function registerSubscriptionRoutes(app: FastifyInstance, kit: PortalRouteKit): void {
  const { ctx, portalRoute, session } = kit;
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
}

/** The customer's contact, billing address and e-mail preferences. */
function registerDetailsRoutes(app: FastifyInstance, kit: PortalRouteKit): void {
  const { ctx, portalRoute, session } = kit;
  app.put('/portal/api/contact', portalRoute, async (request, reply) => {
    const found = await session(request, reply, true);
    return updatePortalContact(ctx, found, parseBody(PortalContactBody, request.body));
  });
  app.put('/portal/api/billing-address', portalRoute, async (request, reply) => {
    const found = await session(request, reply, true);
    return updatePortalBillingAddress(ctx, found, parseBody(PortalBillingAddressBody, request.body));
  });
  // The billing address form's countries and their subdivisions: the same for everyone, cacheable for a day.
  app.get('/portal/api/countries', portalRoute, async (request, reply) => {
    await session(request, reply, false);
    return reply.header('cache-control', 'private, max-age=86400').send(portalCountries());
  });
  app.get('/portal/api/email-preferences', portalRoute, async (request, reply) =>
    getPortalEmailPreferences(ctx, await session(request, reply, false)),
  );
  app.put('/portal/api/email-preferences', portalRoute, async (request, reply) => {
    const found = await session(request, reply, true);
    return updatePortalEmailPreferences(ctx, found, parseBody(PortalEmailPreferencesBody, request.body));
  });
}

/**
 * The link a new e-mail address's confirmation carries (README "Customer portal"): GET shows a button, its POST
 * applies the change once; a used, expired or replaced link answers a page saying so (410), never JSON.
 */
function registerEmailChangeRoutes(app: FastifyInstance, kit: PortalRouteKit): void {
  const { ctx, page, portalRoute, branding, sendPage } = kit;
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  app.get('/portal/confirm-email', page, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    return sendPage(reply, emailChangeConfirmPage({ token: text(query.token) ?? '', lang: text(query.lang), branding }));
  });
  app.post('/portal/confirm-email', portalRoute, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const lang = text(body.lang);
    try {
      const confirmed = await confirmPortalEmailChange(ctx, text(body.token) ?? '');
      return sendPage(
        reply,
        emailChangeResultPage({ email: confirmed.primaryEmail, lang: lang ?? confirmed.locale ?? undefined, branding }),
      );
    } catch (error) {
      if (!(error instanceof Refusal) || !error.hasCode('email_change_invalid')) throw error;
      reply.code(410);
      return sendPage(reply, emailChangeResultPage({ email: null, lang, branding }));
    }
  });
}
