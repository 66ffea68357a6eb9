import type { z } from 'zod';
import { API_ERROR_KEY, ApiError, refuseDuplicateKeys, unstorableText, validationError } from '@renew/billing-service/http';
import { BODY_TOO_LARGE, requestError } from './proxy-errors.js';
import type { ProxyFile } from './proxy-routes.js';

/** Bodies the proxy accepts are small JSON objects; anything bigger is refused unread. */
const MAX_BODY_BYTES = 64 * 1024;

/** `/customers/{customerId}/subscriptions` -> a regular expression with named groups, matched without regard to case. */
export function pathPattern(path: string): RegExp {
  const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, '(?<$1>[^/]+)');
  return new RegExp(`^${source}$`, 'i');
}

export function parsed(schema: z.ZodType, input: unknown): unknown {
  const unstorable = unstorableText(input);
  if (unstorable) throw validationError([{ code: 'custom', path: unstorable.path, message: unstorable.problem, input }]);
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(result.error.issues);
  return result.data;
}

/** The body as JSON: none is `{}` (so every missing field is named); anything that is not a JSON object is a 400. */
export async function jsonBody(request: Request): Promise<unknown> {
  if (Number(request.headers.get('content-length') ?? 0) > MAX_BODY_BYTES) throw requestError(413, BODY_TOO_LARGE, 'request_malformed');
  const text = await request.text();
  if (text.length > MAX_BODY_BYTES) throw requestError(413, BODY_TOO_LARGE, 'request_malformed');
  if (text.trim() === '') return {};
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/([\w.+-]*\+)?json\b/i.test(type))
    throw requestError(415, 'Content-Type must be application/json', 'request_malformed');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw ApiError.badRequest('body is not valid JSON', API_ERROR_KEY, 'request_malformed');
  }
  refuseDuplicateKeys(text, value);
  return value;
}

export function json(status: number, body: unknown, headers: Headers): Response {
  return new Response(JSON.stringify(body), { status, headers });
}

/** A download: the bytes as they are, never kept by a shared cache (they are one shopper's). */
export function file(mediaType: string, answer: ProxyFile, headers: Headers): Response {
  headers.set('content-type', mediaType);
  headers.set('content-disposition', `attachment; filename="${answer.filename}"`);
  headers.set('cache-control', 'private, no-store');
  return new Response(answer.bytes, { status: 200, headers });
}

export function headerSink(headers: Headers) {
  return { header: (name: string, value: string | number) => headers.set(name, String(value)) };
}
