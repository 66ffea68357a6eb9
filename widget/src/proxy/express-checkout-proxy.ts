import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody } from '@renew/billing-service/http';
import { createCheckoutHandler, type CheckoutProxyOptions } from './checkout-handler.js';
import { BODY_TOO_LARGE, requestErrorItem } from './proxy-errors.js';

/** What Express adds to Node's request, when there (Connect has none of it). */
interface ExpressLikeRequest extends IncomingMessage {
  originalUrl?: string;
  baseUrl?: string;
  ip?: string;
  protocol?: string;
  /** Set by a body parser mounted before the proxy (express.json()). */
  body?: unknown;
}

/** Bodies the proxy accepts are small JSON objects. */
const MAX_BODY_BYTES = 64 * 1024;

/**
 * The checkout proxy as Express (or Connect) middleware, over the fetch handler:
 * `app.use('/checkout', expressCheckoutProxy({ ... }))`. The shopper's address is
 * Express's `req.ip` (its `trust proxy` setting decides what to believe), else the socket's.
 * Works with or without `express.json()` before it.
 */
export function expressCheckoutProxy(options: CheckoutProxyOptions) {
  const handle = createCheckoutHandler(options);
  return (request: ExpressLikeRequest, response: ServerResponse, next: (error?: unknown) => void): void => {
    void (async () => {
      const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await bodyOf(request);
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      if (body === null) {
        response.writeHead(413, { 'content-type': 'application/json; charset=utf-8' });
        return response.end(JSON.stringify(errorBody(413, [requestErrorItem(BODY_TOO_LARGE, 'request_malformed')])));
      }
      const url = `${request.protocol ?? 'http'}://${request.headers.host ?? 'localhost'}${request.originalUrl ?? request.url ?? '/'}`;
      const answer = await handle(new Request(url, { method: request.method, headers, ...(body !== undefined ? { body } : {}) }), {
        clientIp: request.ip ?? request.socket.remoteAddress,
        ...(request.baseUrl !== undefined ? { basePath: request.baseUrl } : {}),
      });
      const out: Record<string, string> = {};
      for (const [name, value] of answer.headers) out[name] = value;
      response.writeHead(answer.status, out);
      // Bytes, not text: some answers are files (an invoice's PDF).
      response.end(Buffer.from(await answer.arrayBuffer()));
    })().catch(next);
  };
}

/** The raw body, or what a body parser before us made of it; null when over the limit. */
async function bodyOf(request: ExpressLikeRequest): Promise<string | undefined | null> {
  // express.json() has read the stream already: its result, as JSON again.
  if (request.body !== undefined && request.readableEnded)
    return typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return chunks.length > 0 ? Buffer.concat(chunks).toString('utf8') : undefined;
}
