import type { FastifyServerOptions } from 'fastify';

/** Paths that may hold secrets or card data: never written to the log. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.body.cardNumber',
  'req.body.cvv',
  'body.cardNumber',
  'body.cvv',
];

/**
 * The service's logger: pino with redaction, and request URLs logged without
 * their query string (a form-encoded card capture can carry card data there).
 */
export function loggerOptions(level: string, stream?: NodeJS.WritableStream): NonNullable<FastifyServerOptions['logger']> {
  return {
    level,
    ...(stream ? { stream } : {}),
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: {
      req(request: { method: string; url: string; ip?: string }) {
        return { method: request.method, url: request.url.split('?')[0], remoteAddress: request.ip };
      },
    },
  } as NonNullable<FastifyServerOptions['logger']>;
}
