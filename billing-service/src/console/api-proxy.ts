import type { FastifyInstance, HTTPMethods } from 'fastify';
import { findAccount } from '../accounts/repository.js';
import type { Db } from '../db/database.js';
import type { OperatorRole } from '../db/schema.js';
import type { Caller } from '../http/auth.js';
import { ApiError } from '../http/errors.js';
import { IN_PROCESS_CALLER_HEADER, type InProcessCallers } from '../http/in-process-callers.js';
import { roleForbidden, sessionRequired } from './console-auth.js';
import { operatorCaller, type ConsoleOperator } from './operators/service.js';

/** Writes only an owner makes: webhook endpoints and their deliveries, and API keys. */
const OWNER_ONLY_PREFIXES = ['/v1/webhookendpoints', '/v1/webhookdeliveries', '/v1/webhooks', '/v1/apikeys'];

/** The writes a support operator makes: notes, and portal links for a customer. */
const SUPPORT_WRITES: ReadonlyArray<{ methods: readonly string[]; path: RegExp }> = [
  { methods: ['POST'], path: /^\/v1\/customernotes$/ },
  { methods: ['DELETE'], path: /^\/v1\/customernotes\/(delete\/)?[^/]+$/ },
  { methods: ['POST', 'PUT', 'DELETE'], path: /^\/v1\/customers\/[^/]+\/notes(\/[^/]+)?$/ },
  { methods: ['POST'], path: /^\/v1\/portalsessions$/ },
];

function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * Whether an operator's role may make this /v1 request (README "Console"): every role reads; support
 * also writes notes and portal links; billing writes everything but webhooks and API keys; owner all.
 * `path`: decoded, lower-cased, without query or trailing slash.
 */
export function proxyAllows(role: OperatorRole, method: string, path: string): boolean {
  if (method === 'GET' || method === 'HEAD') return true;
  switch (role) {
    case 'owner':
      return true;
    case 'billing':
      return !OWNER_ONLY_PREFIXES.some((prefix) => under(path, prefix));
    case 'support':
      return SUPPORT_WRITES.some((rule) => rule.methods.includes(method) && rule.path.test(path));
    default:
      return false;
  }
}

/**
 * The path the role table is checked on, as the router will see it: percent-decoded, lower-cased
 * (routes ignore case), no trailing slash. Undefined for a path that could reach another route than it
 * reads (dot segments, empty segments, a backslash, an undecodable escape): those are refused.
 */
export function checkedPath(pathAndQuery: string): string | undefined {
  const rawPath = pathAndQuery.split('?')[0]!;
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return undefined;
  }
  if (
    decoded.includes('\\') ||
    /\/\.{1,2}(\/|$)/.test(decoded) ||
    /\/\/./.test(decoded) ||
    [...decoded].some((c) => c.charCodeAt(0) < 0x20)
  )
    return undefined;
  return decoded.toLowerCase().replace(/\/+$/, '');
}

/** Request headers passed to the API; everything else (cookies, Authorization, the in-process header, x-audit-source) stays out. */
const FORWARDED_REQUEST_HEADERS = ['accept', 'accept-language', 'idempotency-key', 'if-none-match'];
/** Answer headers not passed back: the transport's own, and the console's security headers set on the outer answer. */
const DROPPED_RESPONSE_HEADERS = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'content-encoding',
  'date',
  'set-cookie',
  'cache-control',
  'content-security-policy',
  'x-frame-options',
  'vary',
]);

export interface ConsoleApiProxyOptions {
  db: Db;
  inProcessCallers: InProcessCallers;
}

const PROXIED_METHODS: HTTPMethods[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * `/console/api/v1/*` → the app's own `/v1/*` route, in process, as the operator: the API-key hook
 * takes the one-time nonce for a private caller of the operator's account, with the operator's e-mail
 * as audit actor and `Console` as audit source, counted under the account's rate limits in a budget of
 * the operator's own. Status, headers and body (bytes: a PDF stays intact) come back as they are.
 */
export async function consoleApiProxy(app: FastifyInstance, options: ConsoleApiProxyOptions) {
  app.route({
    method: PROXIED_METHODS,
    url: '/console/api/v1/*',
    config: { consoleRole: 'viewer' },
    handler: async (request, reply) => {
      const operator: ConsoleOperator | undefined = request.operator;
      if (!operator) throw sessionRequired();
      // The part after /console/api, query included: routing ignored case, so the prefix has its length.
      const inner = request.url.slice('/console/api'.length);
      const path = checkedPath(inner);
      if (path === undefined)
        throw ApiError.badRequest('the path is not one the console forwards (dot or empty segments, or a bad escape)');
      if (!proxyAllows(operator.role, request.method, path)) throw roleForbidden(operator.role, `${request.method} ${path}`);
      const account = await findAccount(options.db, operator.accountId);
      if (!account) throw sessionRequired();
      const caller: Caller = {
        ...operatorCaller(operator),
        rateLimits: { perMinute: account.rateLimitPerMinute, perDay: account.rateLimitPerDay },
        keyHash: `console-operator:${operator.accountId}:${operator.id}`,
      };
      const headers: Record<string, string> = { [IN_PROCESS_CALLER_HEADER]: options.inProcessCallers.issue(caller) };
      for (const name of FORWARDED_REQUEST_HEADERS) {
        const value = request.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      const hasBody = request.body !== undefined && request.body !== null;
      if (hasBody) headers['content-type'] = 'application/json';
      const answer = await app.inject({
        method: request.method as HTTPMethods,
        url: inner,
        headers,
        ...(hasBody ? { payload: JSON.stringify(request.body) } : {}),
        remoteAddress: request.ip,
      });
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value === undefined || DROPPED_RESPONSE_HEADERS.has(name.toLowerCase())) continue;
        reply.header(name, value);
      }
      return reply.code(answer.statusCode).send(answer.rawPayload);
    },
  });
}
