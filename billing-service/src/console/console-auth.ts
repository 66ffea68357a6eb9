import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/database.js';
import type { OperatorRole } from '../db/schema.js';
import { ApiError } from '../http/errors.js';
import { IN_PROCESS_CALLER_HEADER } from '../http/in-process-callers.js';
import { authenticateSession, type ConsoleOperator, type ConsoleSettings } from './operators/service.js';
import { isConsolePermission, leastRoleFor, roleHolds, type ConsolePermission } from './permissions.js';
import { proxiedOperationId, proxiedPermission } from './proxied-operations.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in operator: set by the console's hook on every /console/api route not marked `consolePublic`. */
    operator: ConsoleOperator;
    /** The CSRF token of the operator's session (GET /console/api/session gives it to the page). */
    consoleCsrfToken: string;
    /** Whether the signed-in operator has turned on the TOTP second factor. */
    consoleTotpEnabled: boolean;
  }
  interface FastifyContextConfig {
    /** What a /console/api route needs (permissions.ts); a route without it or `consolePublic` is refused at registration. */
    consolePermission?: ConsolePermission;
    /** true: a /console/api route that needs no session (sign-in, invitations). */
    consolePublic?: boolean;
  }
  interface FastifyInstance {
    /** Every route under /console/api, as registered (the tests check each one's protection). */
    consoleApiRoutes: ConsoleApiRoute[];
    /** Every /v1 route, as registered, with what the console's proxy needs to forward it (undefined: never forwarded). */
    consoleProxiedRoutes: ProxiedRoute[];
    /** In-flight proxied requests: their in-process nonce → the operator's role (api-proxy.ts sets, the hook checks). */
    consoleProxyGrants: Map<string, OperatorRole>;
  }
}

export interface ConsoleApiRoute {
  method: string;
  url: string;
  consolePermission: ConsolePermission | undefined;
  /** The least role the permission names (undefined: public). */
  consoleRole: OperatorRole | undefined;
  consolePublic: boolean;
}

export interface ProxiedRoute {
  method: string;
  url: string;
  permission: ConsolePermission | undefined;
}

export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The session cookie: `__Host-` (this host only, Secure, Path=/) under HTTPS; plain HTTP (development) cannot use the prefix. */
export function consoleCookieName(secure: boolean): string {
  return secure ? '__Host-renew_console' : 'renew_console';
}

export function isSecure(request: FastifyRequest): boolean {
  return request.protocol === 'https';
}

export function readConsoleCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  const name = consoleCookieName(isSecure(request));
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Sets the session cookie (maxAgeSeconds 0 with an empty token: clears it). */
export function setConsoleCookie(request: FastifyRequest, reply: FastifyReply, token: string, maxAgeSeconds: number): void {
  const secure = isSecure(request);
  reply.header(
    'set-cookie',
    [
      `${consoleCookieName(secure)}=${token}`,
      'Path=/',
      'HttpOnly',
      'SameSite=Strict',
      `Max-Age=${maxAgeSeconds}`,
      ...(secure ? ['Secure'] : []),
    ].join('; '),
  );
}

/** The console's HTML may load only its own scripts, styles and images, and no page may frame it. */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

function sameSecret(sent: string, expected: string): boolean {
  const left = Buffer.from(sent, 'utf8');
  const right = Buffer.from(expected, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

function isConsolePath(url: string): boolean {
  const lower = url.toLowerCase();
  return lower === '/console' || lower.startsWith('/console/') || lower.startsWith('/console?') || lower.startsWith('/console#');
}

function isConsoleApiPath(url: string): boolean {
  const lower = url.toLowerCase();
  return lower === '/console/api' || lower.startsWith('/console/api/') || lower.startsWith('/console/api?');
}

export const sessionRequired = () =>
  new ApiError(401, [
    {
      Key: 'session',
      Value: 'sign in to the console: no session, or it ended (signed out, idle too long, or at its limit)',
      Code: 'console_session_required',
    },
  ]);

export const roleForbidden = (role: OperatorRole, what: string) =>
  new ApiError(403, [{ Key: 'role', Value: `the ${role} role may not ${what}`, Code: 'console_role_forbidden' }]);

const csrfInvalid = () =>
  new ApiError(403, [
    {
      Key: 'X-CSRF-Token',
      Value: "send the session's CSRF token (GET /console/api/session) in the X-CSRF-Token header",
      Code: 'csrf_token_invalid',
    },
  ]);

/**
 * A request the console's proxy made (its in-process nonce is in `grants`): the /v1 operation it
 * reached, as the router matched it, must be one the operator's role holds (proxied-operations.ts).
 * Unrouted (404) is left to the router; an operation the table does not name is refused.
 */
function checkProxiedOperation(grants: Map<string, OperatorRole>, request: FastifyRequest): void {
  const nonce = request.headers[IN_PROCESS_CALLER_HEADER];
  if (typeof nonce !== 'string') return;
  const role = grants.get(nonce);
  if (role === undefined) return;
  grants.delete(nonce);
  const url = request.routeOptions.url;
  if (!url) return;
  const permission = proxiedPermission(request.method, url);
  if (!permission || !roleHolds(role, permission)) throw roleForbidden(role, proxiedOperationId(request.method, url));
}

export interface ConsoleAuthOptions {
  db: Db;
  settings: ConsoleSettings;
}

/**
 * Everything under /console: security headers on every answer (no framing; no caching of the API);
 * every route under /console/api is marked public for the API-key hook (the console never holds a
 * key) and, unless it says `consolePublic`, needs the session cookie (401), the least role its
 * permission its `consolePermission` declares (403), and on a write the session's CSRF token (403).
 * `request.operator` is the signed-in operator. Register before any console route (fastify-plugin:
 * its hooks see every route registered after it).
 */
export const consoleAuth = fp<ConsoleAuthOptions>(
  async (app, options) => {
    const routes: ConsoleApiRoute[] = [];
    app.decorate('consoleApiRoutes', routes);
    app.decorateRequest('operator', undefined as never);
    app.decorateRequest('consoleCsrfToken', '');
    app.decorateRequest('consoleTotpEnabled', false);

    const proxied: ProxiedRoute[] = [];
    app.decorate('consoleProxiedRoutes', proxied);
    app.decorate('consoleProxyGrants', new Map<string, OperatorRole>());

    app.addHook('onRoute', (route) => {
      const methods = [route.method].flat();
      if (/^\/v1(\/|$)/i.test(route.url))
        for (const method of methods) proxied.push({ method, url: route.url, permission: proxiedPermission(method, route.url) });
      if (!isConsolePath(route.url)) return;
      // Not part of the billing API's document; no API key (the API-key hook skips public routes).
      route.config = { ...(route.config as object), public: true };
      route.schema = { ...(route.schema ?? {}), hide: true };
      if (!isConsoleApiPath(route.url)) return;
      const config = route.config as { consolePermission?: unknown; consolePublic?: boolean };
      const consolePublic = config.consolePublic === true;
      const permission = isConsolePermission(config.consolePermission) ? config.consolePermission : undefined;
      // Fail closed, at start: a console route that says nothing about who may call it is a mistake.
      if (!consolePublic && !permission)
        throw new Error(`console route ${methods.join(',')} ${route.url} declares neither consolePermission nor consolePublic`);
      for (const method of methods)
        routes.push({
          method,
          url: route.url,
          consolePermission: permission,
          consoleRole: permission ? leastRoleFor(permission) : undefined,
          consolePublic,
        });
    });

    app.addHook('onRequest', async (request, reply) => {
      checkProxiedOperation(app.consoleProxyGrants, request);
      if (!isConsolePath(request.url)) return;
      reply.header('content-security-policy', CONSOLE_CSP).header('x-frame-options', 'DENY').header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'no-referrer');
      if (!isConsoleApiPath(request.url)) return;
      reply.header('cache-control', 'no-store');
      const config = request.routeOptions.config;
      // Unrouted (404, 405) or open to anyone: nothing more to check.
      if (!request.routeOptions.url || config?.consolePublic) return;
      const permission = config?.consolePermission;
      // Unreachable (onRoute refuses such a route); refused anyway rather than let through.
      if (!permission) throw roleForbidden('viewer', `${request.method} ${request.routeOptions.url}`);
      const session = await authenticateSession(options.db, options.settings, readConsoleCookie(request));
      if (!session) throw sessionRequired();
      if (!SAFE_METHODS.has(request.method)) {
        const sent = request.headers[CSRF_HEADER];
        if (typeof sent !== 'string' || !sameSecret(sent, session.csrfToken)) throw csrfInvalid();
      }
      if (!roleHolds(session.operator.role, permission))
        throw roleForbidden(session.operator.role, `${request.method} ${request.routeOptions.url}`);
      const { totpEnabled, ...operator } = session.operator;
      request.operator = operator;
      request.consoleCsrfToken = session.csrfToken;
      request.consoleTotpEnabled = totpEnabled;
    });
  },
  { name: 'renew-console-auth', fastify: '5.x' },
);
