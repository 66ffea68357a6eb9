import { randomInt } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/connection-errors.js';
import { item, Refusal, type RefusalKind } from '../refusals/refusal.js';
import { API_ERROR_KEY, type ErrorCode, type ErrorItem } from './error-codes.js';

/** The spec's error body: every error response of every endpoint has this shape. */
export interface ErrorBody {
  ErrorId: number;
  HttpStatusCode: number;
  Errors: ErrorItem[];
}

export { API_ERROR_KEY };

/** A failure the client caused or must know about; the message is shown as is. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly errors: ErrorItem[],
  ) {
    super(errors.map((e) => `${e.Key}: ${e.Value}`).join('; '));
  }

  /** `code`: the machine code a client branches on (refusals/error-codes.ts): the specific one, else a generic one. */
  static badRequest(message: string, key: string, code: ErrorCode): ApiError;
  static badRequest(message: string, key: string, code: ErrorCode) {
    return new ApiError(400, [item(key, message, code)]);
  }

  /** Whether any item carries this code. */
  hasCode(code: ErrorCode): boolean {
    return this.errors.some((e) => e.Code === code);
  }
  /** Carries not_found. */
  static notFound(what: string, id: number | string) {
    return new ApiError(404, [item(API_ERROR_KEY, `${what} with id ${id} not found`, 'not_found')]);
  }
  static conflict(message: string, key: string, code: ErrorCode): ApiError;
  static conflict(message: string, key: string, code: ErrorCode) {
    return new ApiError(409, [item(key, message, code)]);
  }
  /** Carries unauthenticated. */
  static unauthorized(message: string) {
    return new ApiError(401, [item(API_ERROR_KEY, message, 'unauthenticated')]);
  }
  /** An error about the request as a whole, with any status and its code. */
  static of(statusCode: number, message: string, code: ErrorCode) {
    return new ApiError(statusCode, [item(API_ERROR_KEY, message, code)]);
  }
}

/** The status the API answers a service's refusal with. */
export const REFUSAL_STATUS: Readonly<Record<RefusalKind, number>> = {
  invalid: 400,
  unauthenticated: 401,
  declined: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  gateway_failed: 502,
  gateway_timed_out: 504,
};

const GATEWAY_CODES: Partial<Record<RefusalKind, ErrorCode>> = {
  gateway_failed: 'gateway_unavailable',
  gateway_timed_out: 'gateway_timed_out',
};

/** The error a client is answered with, when `error` is one (an ApiError, or a service's Refusal); undefined for anything else. */
export function clientError(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof Refusal) {
    const code = GATEWAY_CODES[error.kind];
    // The gateway's refusals say what failed; the code a client retries on is the kind's.
    const errors = code ? error.errors.map((e) => (e.Code ? e : { ...e, Code: code })) : error.errors;
    return new ApiError(REFUSAL_STATUS[error.kind], errors);
  }
  return undefined;
}

export function errorBody(statusCode: number, errors: ErrorBody['Errors']): ErrorBody {
  return { ErrorId: randomInt(1, 2 ** 31 - 1), HttpStatusCode: statusCode, Errors: errors };
}

/** Zod issue path to the field key clients see: `customerReference.salesTrackingCodes[0].code`. */
export function fieldKey(path: ReadonlyArray<PropertyKey>): string {
  let key = '';
  for (const part of path) {
    if (typeof part === 'number') key += `[${part}]`;
    else key += key ? `.${String(part)}` : String(part);
  }
  return key || API_ERROR_KEY;
}

/** Fastify's own client errors, given the spec's shape and plain words. */
const FRAMEWORK_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'body is not valid JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'body is empty but Content-Type is application/json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'request body too large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Content-Type must be application/json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length does not match the body',
};

export function sendError(reply: FastifyReply, statusCode: number, errors: ErrorBody['Errors']) {
  return reply.code(statusCode).type('application/json; charset=utf-8').send(errorBody(statusCode, errors));
}

/**
 * One error handler for the whole service: 4xx messages are shown, 5xx hidden
 * (logged with the ErrorId so an operator can find them).
 */
export function registerErrorHandling(app: FastifyInstance, allowedMethods: (req: FastifyRequest) => string[]) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const answered = clientError(error);
    if (answered) return sendError(reply, answered.statusCode, answered.errors);
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const known = error.code ? FRAMEWORK_MESSAGES[error.code] : undefined;
      // Fastify's own 4xx are all about a body or request it cannot read.
      return sendError(reply, status, [{ Key: API_ERROR_KEY, Value: known ?? error.message, Code: 'request_malformed' }]);
    }
    if (isDatabaseUnavailable(error)) return sendDatabaseUnavailable(request, reply, error);
    return sendInternalError(request, reply, error);
  });

  app.setNotFoundHandler((request, reply) => {
    const allowed = allowedMethods(request);
    if (allowed.length > 0) {
      reply.header('Allow', allowed.join(', '));
      return sendError(reply, 405, [
        { Key: API_ERROR_KEY, Value: `method ${request.method} not allowed; use ${allowed.join(', ')}`, Code: 'method_not_allowed' },
      ]);
    }
    return sendError(reply, 404, [
      { Key: API_ERROR_KEY, Value: `endpoint ${request.method} ${request.url.split('?')[0]} not found`, Code: 'endpoint_not_found' },
    ]);
  });
}

/** Seconds a client is asked to wait after a 503 for a database that is away (a restart takes a few). */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** The database is restarting or unreachable: nothing the client did, and worth retrying; the pool reconnects on next use. */
function sendDatabaseUnavailable(request: FastifyRequest, reply: FastifyReply, error: Error) {
  const body = errorBody(503, [{ Key: API_ERROR_KEY, Value: 'the database is unavailable; retry later', Code: 'database_unavailable' }]);
  request.log.warn({ err: error, errorId: body.ErrorId }, 'the database is unavailable');
  reply.header('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
  return reply.code(503).type('application/json; charset=utf-8').send(body);
}

function sendInternalError(request: FastifyRequest, reply: FastifyReply, error: Error) {
  const body = errorBody(500, [{ Key: API_ERROR_KEY, Value: 'internal server error', Code: 'internal_error' }]);
  request.log.error({ err: error, errorId: body.ErrorId }, 'internal server error');
  return reply.code(500).type('application/json; charset=utf-8').send(body);
}
