import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Below this size compressing is not worth it (the app-wide threshold of @fastify/compress). */
const GZIP_THRESHOLD = 1024;

interface Representation {
  body: Buffer;
  etag: string;
  encoding?: 'gzip';
}

/**
 * A JSON body that never changes within the process: serialized once, with a
 * strong ETag (SHA-256 of the bytes) and a gzip variant made on first demand
 * and kept. The gzip variant has its own ETag (a strong tag names exact bytes).
 */
export class StaticJson {
  readonly identity: Representation;
  /** Every tag this content is sent under (either encoding is the same content). */
  readonly etags: readonly string[];
  private readonly gzipEtag: string | undefined;
  private gzipped: Representation | undefined;

  constructor(value: unknown) {
    const body = Buffer.from(JSON.stringify(value), 'utf8');
    const hash = createHash('sha256').update(body).digest('base64url');
    this.identity = { body, etag: `"${hash}"` };
    this.gzipEtag = body.length >= GZIP_THRESHOLD ? `"${hash}-gzip"` : undefined;
    this.etags = this.gzipEtag ? [this.identity.etag, this.gzipEtag] : [this.identity.etag];
  }

  /** The gzip variant, or undefined for a body too small to be worth compressing. */
  gzip(): Representation | undefined {
    if (!this.gzipEtag) return undefined;
    this.gzipped ??= { body: gzipSync(this.identity.body, { level: 9 }), etag: this.gzipEtag, encoding: 'gzip' };
    return this.gzipped;
  }
}

/**
 * Sends a StaticJson body with caching headers: 304 without a body when
 * If-None-Match names a tag of this content, else 200 (gzip when accepted).
 * The route must have `compress: false` so @fastify/compress leaves it alone.
 */
export function sendStaticJson(request: FastifyRequest, reply: FastifyReply, content: StaticJson, cacheControl: string) {
  const gz = acceptsGzip(request.headers['accept-encoding']) ? content.gzip() : undefined;
  const chosen = gz ?? content.identity;
  reply.header('Cache-Control', cacheControl).header('Vary', 'Accept-Encoding');

  const matched = matchingTag(request.headers['if-none-match'], content.etags);
  if (matched) {
    // `*` matches any current representation: answer with the one this request would get.
    return reply
      .code(304)
      .header('ETag', matched === '*' ? chosen.etag : matched)
      .send();
  }
  reply.header('ETag', chosen.etag).type('application/json; charset=utf-8');
  if (chosen.encoding) reply.header('Content-Encoding', chosen.encoding);
  return reply.code(200).send(chosen.body);
}

/** Whether Accept-Encoding allows gzip (explicitly or through `*`) with a q-value above 0. */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  let gzip: number | undefined;
  let any: number | undefined;
  for (const part of header.split(',')) {
    const [rawName = '', ...params] = part.split(';');
    const name = rawName.trim().toLowerCase();
    let q = 1;
    for (const param of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(param);
      if (m) q = Number(m[1]);
    }
    if (Number.isNaN(q)) continue;
    if (name === 'gzip' || name === 'x-gzip') gzip = q;
    else if (name === '*') any = q;
  }
  return (gzip ?? any ?? 0) > 0;
}

/**
 * The tag of If-None-Match that matches one of `etags` (weak comparison, as
 * RFC 9110 prescribes for If-None-Match), `*`, or undefined.
 */
export function matchingTag(header: string | undefined, etags: readonly string[]): string | undefined {
  if (!header) return undefined;
  if (header.trim() === '*') return '*';
  for (const [, opaque] of header.matchAll(/(?:W\/)?("[^"]*")/g)) {
    if (opaque === undefined) continue;
    if (etags.includes(opaque)) return opaque;
  }
  return undefined;
}
