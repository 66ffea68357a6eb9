import type { FastifyError, FastifyInstance } from 'fastify';
import { errorBody } from '@renew/billing-service/http';
import { createCheckoutHandler, type CheckoutProxyOptions } from './checkout-handler.js';
import { BODY_TOO_LARGE, requestErrorItem, SHOP_SERVER_FAILED } from './proxy-errors.js';

export type { CheckoutProxyOptions } from './checkout-handler.js';

/**
 * The checkout proxy as a Fastify plugin: a thin adapter over the fetch handler
 * (checkout-handler.ts), which routes, validates and answers. Register it under a
 * prefix: `app.register(checkoutProxy, { prefix: '/checkout', ... })`. The shopper's
 * address is Fastify's `request.ip` (so the app's `trustProxy` decides what to believe).
 */
export async function checkoutProxy(fastify: FastifyInstance, options: CheckoutProxyOptions) {
  const handle = createCheckoutHandler({ ...options, basePath: fastify.prefix });
  // In this plugin's scope only (the host app keeps its parsers): the handler reads and validates the body itself.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_request, body, done) => done(null, body));
  // What Fastify refuses before the handler runs (a body over the limit) still gets the spec's error body.
  fastify.setErrorHandler((error: FastifyError, _request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    return reply
      .code(status)
      .send(
        errorBody(status, [
          status === 500
            ? requestErrorItem(SHOP_SERVER_FAILED, 'internal_error')
            : requestErrorItem(status === 413 ? BODY_TOO_LARGE : error.message, 'request_malformed'),
        ]),
      );
  });
  const route = async (request: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const hasBody = typeof request.body === 'string' && request.method !== 'GET' && request.method !== 'HEAD';
    const response = await handle(
      new Request(`${request.protocol}://${request.host}${request.url}`, {
        method: request.method,
        headers,
        ...(hasBody ? { body: request.body as string } : {}),
      }),
      { clientIp: request.ip },
    );
    reply.code(response.status);
    response.headers.forEach((value, name) => void reply.header(name, value));
    // Bytes, not text: some answers are files (an invoice's PDF).
    return reply.send(Buffer.from(await response.arrayBuffer()));
  };
  fastify.all('/', route);
  fastify.all('/*', route);
}
