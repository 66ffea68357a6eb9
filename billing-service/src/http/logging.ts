import type { FastifyServerOptions } from 'fastify';
import pretty from 'pino-pretty';

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
 * Log lines for a person: one coloured line per entry with a local time, written
 * synchronously so they keep their place around what the start scripts print.
 */
export function prettyLogStream(destination: NodeJS.WritableStream | number = 1): NodeJS.WritableStream {
  return pretty({ sync: true, destination, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true });
}

/** Pretty lines when stdout is a terminal, else undefined: pino's JSON lines, for files and log collectors. */
export function defaultLogStream(isTty: boolean = process.stdout.isTTY === true): NodeJS.WritableStream | undefined {
  return isTty ? prettyLogStream() : undefined;
}

/**
 * The service's logger: pino with redaction, and request URLs logged without
 * their query string (a form-encoded card capture can carry card data there).
 * Without a stream: pretty at a terminal, JSON lines otherwise (defaultLogStream).
 */
export function loggerOptions(
  level: string,
  stream: NodeJS.WritableStream | undefined = defaultLogStream(),
): NonNullable<FastifyServerOptions['logger']> {
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
