import type { FastifyInstance, HTTPMethods } from 'fastify';
import { findAccount } from '../accounts/repository.js';
import type { Db } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import { ApiError } from '../http/errors.js';
import { API_ERROR_KEY } from '../refusals/error-codes.js';
import { IN_PROCESS_CALLER_HEADER, type InProcessCallers } from '../http/in-process-callers.js';
import { sessionRequired } from './console-auth.js';
import { operatorCaller, type ConsoleOperator } from './operators/service.js';

/**
 * The path as the router will see it: percent-decoded, lower-cased
 * (routes ignore case), no trailing slash. Undefined for a path that could reach another route than it
 * reads (dot segments, empty segments, a backslash, an undecodable escape): those are refused.
 */
export function checkedPath(pathAndQuery: string): string | undefined {
  const rawPath = pathAndQuery.split('?')[0] ?? '';
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
    config: { consolePermission: 'console:read' },
    handler: async (request, reply) => {
      const operator: ConsoleOperator | undefined = request.operator;
      if (!operator) throw sessionRequired();
      // The part after /console/api, query included: routing ignored case, so the prefix has its length.
      const inner = request.url.slice('/console/api'.length);
      if (checkedPath(inner) === undefined)
        throw ApiError.badRequest(
          'the path is not one the console forwards (dot or empty segments, or a bad escape)',
          API_ERROR_KEY,
          'value_invalid',
        );
      const account = await findAccount(options.db, operator.accountId);
      if (!account) throw sessionRequired();
      const caller: Caller = {
        ...operatorCaller(operator),
        rateLimits: { perMinute: account.rateLimitPerMinute, perDay: account.rateLimitPerDay },
        keyHash: `console-operator:${operator.accountId}:${operator.id}`,
      };
      const nonce = options.inProcessCallers.issue(caller);
      const headers: Record<string, string> = { [IN_PROCESS_CALLER_HEADER]: nonce };
      for (const name of FORWARDED_REQUEST_HEADERS) {
        const value = request.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      const hasBody = request.body !== undefined && request.body !== null;
      if (hasBody) headers['content-type'] = 'application/json';
      // The operation is checked where the router has matched it (console-auth.ts, proxied-operations.ts).
      app.consoleProxyGrants.set(nonce, operator.role);
      const answer = await app
        .inject({
          method: request.method as HTTPMethods,
          url: inner,
          headers,
          ...(hasBody ? { payload: JSON.stringify(request.body) } : {}),
          remoteAddress: request.ip,
        })
        .finally(() => app.consoleProxyGrants.delete(nonce));
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value === undefined || DROPPED_RESPONSE_HEADERS.has(name.toLowerCase())) continue;
        reply.header(name, value);
      }
      return reply.code(answer.statusCode).send(answer.rawPayload);
    },
  });
}
