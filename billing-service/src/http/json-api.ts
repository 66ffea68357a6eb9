import type { FastifyServerOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { AppContext } from '../app-context.js';
import './context.js';
import { API_ERROR_KEY, ApiError, errorBody, registerErrorHandling, sendError } from './errors.js';
import { refuseDuplicateKeys } from './json-duplicate-keys.js';
import { MethodIndex } from './method-index.js';
import { jsonSerializerCompiler, zodValidatorCompiler } from './validation.js';

/** What the billing API, the card-capture host and the checkout proxy share: one Fastify setup for a JSON API. */

export function jsonApiServerOptions(options: {
  logger?: FastifyServerOptions['logger'];
  trustProxy?: string | boolean;
  bodyLimit: number;
  https?: { cert: Buffer; key: Buffer };
}): FastifyServerOptions {
  return {
    logger: options.logger ?? false,
    trustProxy: options.trustProxy ?? 'loopback',
    bodyLimit: options.bodyLimit,
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true },
    // A malformed HTTP request is answered without logging its raw bytes (they may hold secrets or card data).
    clientErrorHandler: (error, socket) => {
      if ((error as NodeJS.ErrnoException).code === 'ECONNRESET' || !socket.writable) return;
      const body = JSON.stringify(errorBody(400, [{ Key: API_ERROR_KEY, Value: 'malformed HTTP request', Code: 'request_malformed' }]));
      socket.end(
        `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    },
    // Errors Fastify answers before any route or hook runs (a path segment over 100 characters, a URL
    // it cannot decode) get the spec's error body too.
    frameworkErrors: (error, _request, reply) => {
      if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
        return sendError(reply, 414, [
          { Key: API_ERROR_KEY, Value: 'a part of the path is longer than 100 characters: no such id exists', Code: 'request_malformed' },
        ]);
      }
      return sendError(reply, 400, [
        {
          Key: API_ERROR_KEY,
          Value: error.code === 'FST_ERR_BAD_URL' ? 'the URL is not valid' : 'the request cannot be routed',
          Code: 'request_malformed',
        },
      ]);
    },
    ...(options.https ? { https: options.https } : {}),
  } as FastifyServerOptions;
}

export interface JsonApiOptions {
  /**
   * The services' context, decorated as `app.ctx` (with `request.caller`, set by
   * authentication). Apps that reach the billing API over HTTP (the checkout proxy) have none.
   */
  ctx?: AppContext;
  /**
   * Request bodies: JSON, and what else the app accepts, named in the 415 answer
   * (default `application/json`). `false` leaves the body parsers alone: the
   * checkout proxy is mounted in a merchant's app, whose parsers it keeps.
   */
  bodies?: { accepted: string } | false;
  /** A known path asked with another method is 405 with `Allow` (default); false: 404. */
  methodNotAllowed?: boolean;
}

/**
 * The JSON-API setup, as one plugin applied to the app that registers it
 * (fastify-plugin): JSON bodies (an object naming one property twice is a 400; an empty one, with any Content-Type, counts as
 * no body: many clients send a Content-Type on every request), zod validation,
 * plain JSON.stringify responses, the spec's error bodies (405 for a known path
 * with the wrong method), and `app.ctx` / `request.caller`. Register it before
 * any route. The server options it needs are jsonApiServerOptions.
 */
export const jsonApi = fp<JsonApiOptions>(
  async (app, options) => {
    const bodies = options.bodies ?? { accepted: 'application/json' };
    if (bodies) {
      app.removeContentTypeParser('text/plain');
      const parseJson = app.getDefaultJsonParser('error', 'error');
      app.removeContentTypeParser('application/json');
      app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
        const text = body as string;
        if (text.trim() === '') return done(null, undefined);
        return parseJson(request, text, (error, value) => {
          if (error) return done(error, undefined);
          try {
            refuseDuplicateKeys(text, value);
          } catch (refusal) {
            return done(refusal as Error, undefined);
          }
          return done(null, value);
        });
      });
      // An empty body (nothing, or only whitespace) is no body whatever its Content-Type: some clients send
      // `application/x-www-form-urlencoded` with `Content-Length: 0` on every POST. Any other non-JSON body is 415.
      app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
        if ((body as string).trim() === '') return done(null, undefined);
        return done(ApiError.of(415, `Content-Type must be ${bodies.accepted}`, 'request_malformed'), undefined);
      });
    }
    app.setValidatorCompiler(zodValidatorCompiler);
    app.setSerializerCompiler(jsonSerializerCompiler);

    if (options.methodNotAllowed === false) {
      registerErrorHandling(app, () => []);
    } else {
      const methodIndex = new MethodIndex();
      app.addHook('onRoute', (route) => methodIndex.add(route));
      registerErrorHandling(app, (request) => methodIndex.allowed(request.url));
    }

    if (options.ctx) {
      app.decorate('ctx', options.ctx);
      // The instance's heartbeat (its claims' liveness) runs while the app does.
      const instance = options.ctx.instance;
      app.addHook('onReady', async () => instance.start());
      app.addHook('onClose', async () => instance.stop());
      app.decorateRequest('caller', undefined as never);
    }
  },
  { name: 'renew-json-api', fastify: '5.x' },
);
