import type { FastifyServerOptions } from 'fastify';

/**
 * Card numbers and CVVs never reach the log. Fastify logs no bodies, but it
 * does log each request's URL, and a form-encoded capture may carry the card in
 * the query string: the request serializer logs the path only. The redaction
 * paths are a second line for anything that logs a body or its fields.
 */
export const CAPTURE_REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.body',
  'req.query',
  'body',
  'query',
  'cardNumber',
  'cvv',
  '*.cardNumber',
  '*.cvv',
  '*.*.cardNumber',
  '*.*.cvv',
];

/** `/api/paymentsv2?cardNumber=…` → `/api/paymentsv2?[redacted]`. */
export function scrubUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const at = url.indexOf('?');
  return at === -1 ? url : `${url.slice(0, at)}?[redacted]`;
}

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

export function serializeRequest(request: LoggedRequest) {
  return {
    method: request.method,
    url: scrubUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

type LoggerOption = FastifyServerOptions['logger'];

/** The given logger options (false, true or pino options with a level or stream) with the capture host's redaction forced in. */
export function captureLoggerOptions(logger: LoggerOption | undefined): LoggerOption {
  if (!logger) return false;
  const given = logger === true ? {} : (logger as Exclude<LoggerOption, boolean | undefined> & Record<string, unknown>);
  const givenRedact = given.redact as { paths?: string[] } | string[] | undefined;
  const extraPaths = Array.isArray(givenRedact) ? givenRedact : (givenRedact?.paths ?? []);
  return {
    level: 'info',
    ...given,
    redact: { paths: [...new Set([...CAPTURE_REDACT_PATHS, ...extraPaths])], censor: '[redacted]' },
    serializers: { ...(given.serializers ?? {}), req: serializeRequest },
  } as LoggerOption;
}
