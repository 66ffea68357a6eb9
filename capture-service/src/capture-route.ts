import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, API_ERROR_KEY, enforceRateLimit, type RateLimitStore } from '@renew/billing-service/http';
import { authorizeCapture, readScope, rememberCustomerRow, type CreditCardResponse } from '@renew/billing-service/payments';
import { portalCaptureCaller } from '@renew/billing-service/portal';
import type { AuthenticationStarted } from '@renew/billing-service/card-authentications';
import {
  captureCard,
  localCardErrors,
  requirementErrors,
  verifyCaptcha,
  type CaptchaCheck,
  type CapturedCard,
  type CaptureSettings,
} from './capture.js';
import { isOwnOrigin } from './hosted/card-fields-routes.js';
import { collectParameters, validateParameters } from './params.js';
import { PORTAL_CUSTOMER_LIMITS, portalCustomerBudgetKey } from './portal/portal-routes.js';
import { admitPortalCardAttempt, capturePortalCard } from './portal/portal-card-attempts.js';
import type { PublicKeyAuthenticator } from './public-key.js';

export const CAPTURE_PATH = '/api/paymentsv2';
/** An extension of the spec: the id of the first payment a capture collected (the body is the card, as the spec says). */
export const PAYMENT_ID_HEADER = 'Renew-Payment-Id';

export interface CaptureRouteDeps {
  settingsFor(accountId: number): CaptureSettings;
  authenticator: PublicKeyAuthenticator;
  captcha: CaptchaCheck;
  rateLimitStore: RateLimitStore;
}

/** POST /api/paymentsv2 and its CORS preflight. */
export function registerCaptureRoute(app: FastifyInstance, deps: CaptureRouteDeps) {
  app.options(CAPTURE_PATH, answerPreflight);
  app.post(CAPTURE_PATH, (request, reply) => handleCapture(app, deps, request, reply));
}

/** Preflight is answered for any origin: which account is calling is only known from the body (or the capture's id). */
export async function answerPreflight(request: FastifyRequest, reply: FastifyReply) {
  const origin = request.headers.origin;
  if (origin) reply.header('Access-Control-Allow-Origin', origin);
  reply.header('Access-Control-Allow-Methods', 'POST');
  reply.header('Access-Control-Allow-Headers', 'Content-Type');
  reply.header('Access-Control-Max-Age', '600');
  return reply.code(204).send();
}

async function handleCapture(
  app: FastifyInstance,
  { settingsFor, authenticator, captcha, rateLimitStore }: CaptureRouteDeps,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<CreditCardResponse | AuthenticationStarted> {
  const contentType = request.headers['content-type'] ?? '';
  const raw = collectParameters([
    { kind: 'form', values: request.query },
    { kind: /json/i.test(contentType) ? 'json' : 'form', values: request.body },
  ]);

  // The customer portal's card form sends no public key: its capture token, minted by a live portal session, names the account.
  const portal =
    !raw.publicApiKey && typeof raw.captureToken === 'string' ? await portalCaptureCaller(app.ctx, raw.captureToken) : undefined;
  // The public key only names the account: every shop hands it out, so it authenticates nobody.
  const caller = portal?.caller ?? (await authenticator.authenticate(raw.publicApiKey));
  request.caller = caller;
  const account = settingsFor(caller.accountId);
  const origin = request.headers.origin;
  // The hosted card fields post from this host's own origin (the portal's only from there).
  if (origin && ((portal && !isOwnOrigin(request, origin)) || (!account.domains.allowsOrigin(origin) && !isOwnOrigin(request, origin)))) {
    reply.removeHeader('Access-Control-Allow-Origin');
    throw new ApiError(403, [
      { Key: API_ERROR_KEY, Value: `origin ${origin.slice(0, 200)} is not one of the account's shop domains`, Code: 'forbidden' },
    ]);
  }

  // Everything checkable without the CAPTCHA service comes first, so a token is not spent on a form error.
  const { input, errors } = validateParameters(raw);
  errors.push(...requirementErrors(raw, account));
  if (!portal && raw.recaptcha === undefined) errors.push({ Key: 'recaptcha', Value: 'required', Code: 'value_required' });
  if (input && errors.length === 0) errors.push(...localCardErrors(input));
  if (!input || errors.length > 0) throw new ApiError(400, errors);

  // One read scope for the capture: the customer row is read once (with the CAPTCHA token's claim, or by the first step that needs it).
  const ctx = { ...app.ctx, db: readScope(app.ctx.db) };
  // A portal session stands in for the CAPTCHA until a card of its customer is declined; then the CAPTCHA is needed,
  // and after three declines within the hour nothing is tried (README "Customer portal").
  const captchaSolved = portal
    ? await admitPortalCardAttempt(app.ctx, request, reply, {
        captcha,
        settings: account,
        customerId: portal.customerId,
        recaptcha: input.recaptcha,
      })
    : false;
  // input.customerId is a storable id (params.ts): the customer is read with the token's claim.
  const customer = portal
    ? undefined
    : await verifyCaptcha(captcha, input.recaptcha ?? '', request.ip, account, {
        accountId: caller.accountId,
        customerId: input.customerId,
      });
  // Who the public key may put a card on (a capture token, else the account's tokenless rule), before any gateway call.
  if (customer) rememberCustomerRow(ctx.db, customer);
  const permission = await authorizeCapture(ctx, caller, { customerId: input.customerId, captureToken: input.captureToken }, account);
  // Only now, authenticated by the CAPTCHA and the capture token (or the tokenless rule), does a request spend the key's
  // budget: a stranger's requests count against their address only. The capture host's budget is its own, apart from the billing API's.
  if (portal)
    await enforceRateLimit(rateLimitStore, reply, portalCustomerBudgetKey(caller.accountId, portal.customerId), PORTAL_CUSTOMER_LIMITS);
  else await enforceRateLimit(rateLimitStore, reply, `capture-key:${caller.keyHash}`, caller.rateLimits);
  const captured = portal
    ? await capturePortalCard(ctx, caller, input, request.log, {
        reply,
        settings: account,
        clientIp: request.ip,
        permission,
        captchaSolved,
      })
    : await captureCard(ctx, caller, input, request.log, { settings: account, clientIp: request.ip, permission });
  if ('authentication' in captured) return answerChallenge(request, reply, captured.authentication);
  return answerCard(reply, captured);
}

/** The bank asks the shopper to authenticate (3-D Secure): 202, with the challenge to show them (made absolute: the sandbox's is a path here). */
export function answerChallenge(
  request: FastifyRequest,
  reply: FastifyReply,
  authentication: AuthenticationStarted,
): AuthenticationStarted {
  reply.code(202);
  return { ...authentication, challengeUrl: new URL(authentication.challengeUrl, ownOrigin(request)).toString() };
}

/** The stored card, its first payment's id in a header (an extension of the spec). */
export function answerCard(reply: FastifyReply, captured: CapturedCard): CreditCardResponse {
  if (captured.paymentId !== null) reply.header(PAYMENT_ID_HEADER, String(captured.paymentId));
  return captured.card;
}

/** This host's origin as the client reached it (the sandbox's challenge page is a path on it). */
function ownOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}
