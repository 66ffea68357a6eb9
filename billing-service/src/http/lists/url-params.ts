import { API_ERROR_KEY, ApiError } from '../errors.js';

/** Every client mistake in a list request gets this message (plus detail after a colon). */
export const QUERY_NOT_VALID = 'query not valid';

export function queryNotValid(detail?: string): ApiError {
  return ApiError.badRequest(detail ? `${QUERY_NOT_VALID}: ${detail}` : QUERY_NOT_VALID, API_ERROR_KEY, 'request_malformed');
}

/** Client text echoed in an error message, cut short so errors stay small. */
export function quote(text: string): string {
  return JSON.stringify(text.length > 50 ? `${text.slice(0, 50)}…` : text);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Percent-decodes one piece of a URL. Lenient like Fastify's own query parser:
 * a `%` not followed by two hex digits stays a literal `%`. Bytes that are not
 * valid UTF-8 are a client error (400), never a URIError.
 *
 * @param plusIsSpace form encoding (`+` = space), true for a value taken from a URL.
 */
export function percentDecode(raw: string, plusIsSpace = true): string {
  const text = plusIsSpace ? raw.replace(/\+/g, ' ') : raw;
  if (!text.includes('%')) return text;
  return text.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
    const bytes = new Uint8Array(run.length / 3);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(run.slice(i * 3 + 1, i * 3 + 3), 16);
    try {
      return utf8.decode(bytes);
    } catch {
      throw queryNotValid('percent-encoding is not valid UTF-8');
    }
  });
}

/**
 * The raw (still percent-encoded) value of one URL query parameter, or
 * undefined when absent. The name matches case-insensitively; `name` without
 * `=` gives ''. A parameter given twice is a 400: which one wins would be a guess.
 *
 * List routes must read `query` through this, not from Fastify's parsed
 * `request.query`: that one is already decoded, and the query language needs to
 * tell a separator `,` from an encoded literal `%2C`.
 */
export function rawQueryParam(url: string, name = 'query'): string | undefined {
  const start = url.indexOf('?');
  if (start < 0) return undefined;
  let search = url.slice(start + 1);
  const hash = search.indexOf('#');
  if (hash >= 0) search = search.slice(0, hash);
  const wanted = name.toLowerCase();
  let found: string | undefined;
  for (const part of search.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawKey = eq < 0 ? part : part.slice(0, eq);
    let key: string;
    try {
      key = percentDecode(rawKey);
    } catch {
      continue; // an undecodable name is not the one we look for
    }
    if (key.toLowerCase() !== wanted) continue;
    if (found !== undefined) throw queryNotValid(`parameter ${name} is given more than once`);
    found = eq < 0 ? '' : part.slice(eq + 1);
  }
  return found;
}
