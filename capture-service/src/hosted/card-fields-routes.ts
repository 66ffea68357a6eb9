import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, type ErrorItem } from '@renew/billing-service/http';
import type { ShopDomains } from '../shop-domains.js';
import { cardFieldsScript, cardFieldsStylesheet, type Asset } from './card-fields-assets.js';
import { CARD_FIELDS_PATH, CARD_FIELDS_SCRIPT_PATH, CARD_FIELDS_STYLESHEET_PATH, renderCardFieldsPage } from './card-fields-page.js';
import { isCardFieldsStyleKey, parseCardFieldsStyle, type CardFieldsStyleKey } from './card-fields-style.js';
import { cardFieldsLanguage, LANGUAGE_TAG } from './card-fields-text.js';

type ErrorEntry = ErrorItem;

/**
 * The page's Content Security Policy: its own script, style and connections
 * only (the card goes to this origin and nowhere else), no forms, no base
 * re-pointing, and framed only by the account's shop domains and this host's own pages (the customer portal).
 */
export function cardFieldsPolicy(domains: ShopDomains, challengeFrameSources: readonly string[] = ['https:']): string {
  const ancestors = domains.frameAncestors();
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    "img-src 'self'",
    // the bank's 3-D Secure page (the sandbox issuer's is on this host; a processor's where its gateway says)
    ["frame-src 'self'", ...challengeFrameSources].join(' '),
    "form-action 'none'",
    "base-uri 'none'",
    `frame-ancestors ${ancestors === "'none'" ? "'self'" : ancestors === '*' ? '*' : `'self' ${ancestors}`}`,
  ].join('; ');
}

/** A browser origin, exactly: scheme, host and port, nothing after. */
function exactOrigin(value: string): string | undefined {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return url.origin === value.toLowerCase().replace(/\/$/, '') ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The page's query: `origin` (the shop page's origin: required, one of the shop
 * domains), `lang` (a language tag; unsupported languages get English), and
 * the style keys. Anything else, or a value given twice, is a 400 keyed on it.
 */
function readQuery(query: unknown, domains: ShopDomains, ownOrigin: (origin: string) => boolean) {
  const given = (query ?? {}) as Record<string, string | string[] | undefined>;
  const errors: ErrorEntry[] = [];
  const style: Partial<Record<CardFieldsStyleKey, string>> = {};
  let origin: string | undefined;
  let lang: string | undefined;
  for (const [key, value] of Object.entries(given)) {
    if (Array.isArray(value)) {
      errors.push({ Key: key, Value: 'is given more than once', Code: 'value_invalid' });
      continue;
    }
    if (value === undefined || value === '') continue;
    if (key === 'origin') origin = value;
    else if (key === 'lang') lang = value;
    else if (isCardFieldsStyleKey(key)) style[key] = value;
    else
      errors.push({
        Key: key.slice(0, 50),
        Value:
          'is not a parameter of the card fields (origin, lang, fontFamily, fontSize, textColor, backgroundColor, borderColor, focusColor, errorColor, borderRadius)',
        Code: 'value_invalid',
      });
  }
  const parentOrigin = origin === undefined ? undefined : exactOrigin(origin);
  if (origin === undefined)
    errors.push({ Key: 'origin', Value: "required: the origin of the shop's page that embeds the card fields", Code: 'value_required' });
  else if (!parentOrigin) errors.push({ Key: 'origin', Value: 'must be an origin: scheme://host[:port]', Code: 'value_invalid' });
  if (lang !== undefined && !LANGUAGE_TAG.test(lang))
    errors.push({ Key: 'lang', Value: 'must be a language tag (en, fr, de-CH…)', Code: 'value_invalid' });
  const parsedStyle = parseCardFieldsStyle(style);
  errors.push(...parsedStyle.errors);
  if (errors.length > 0) throw new ApiError(400, errors);
  // Without an exact origin the errors above were thrown.
  if (!parentOrigin) throw new Error('no parent origin and no error');
  if (!domains.allowsOrigin(parentOrigin) && !ownOrigin(parentOrigin)) {
    throw new ApiError(403, [{ Key: 'origin', Value: "is not one of the account's shop domains", Code: 'forbidden' }]);
  }
  return { parentOrigin, lang: cardFieldsLanguage(lang), style: parsedStyle.style };
}

export async function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset, contentType: string) {
  // Revalidated on every load: a new release's script is never mixed with an old page.
  reply.header('cache-control', 'no-cache').header('etag', asset.etag).header('x-content-type-options', 'nosniff');
  if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
  return reply.type(contentType).send(asset.body);
}

/**
 * The hosted card fields: the page a shop embeds in an iframe, its script and
 * its stylesheet. The page needs no key (it shows empty fields); the card it
 * sends goes through POST /api/paymentsv2 like any other.
 */
export function registerCardFields(app: FastifyInstance, domains: ShopDomains): void {
  const challengeFrameSources = app.ctx.payments.gateway.challengeFrameSources ?? ['https:'];
  const assetRoute = { config: { public: true } };
  app.get(CARD_FIELDS_PATH, assetRoute, async (request, reply) => {
    const config = readQuery(request.query, domains, (origin) => isOwnOrigin(request, origin));
    return reply
      .header('content-security-policy', cardFieldsPolicy(domains, challengeFrameSources))
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .type('text/html; charset=utf-8')
      .send(renderCardFieldsPage(config));
  });
  app.get(CARD_FIELDS_SCRIPT_PATH, assetRoute, async (request, reply) =>
    sendAsset(request, reply, await cardFieldsScript(), 'text/javascript; charset=utf-8'),
  );
  app.get(CARD_FIELDS_STYLESHEET_PATH, assetRoute, async (request, reply) =>
    sendAsset(request, reply, await cardFieldsStylesheet(), 'text/css; charset=utf-8'),
  );
}

/**
 * Whether a request comes from one of this host's own pages (the hosted card
 * fields post the card to their own origin): its Origin names the host it was
 * sent to. A browser cannot forge Origin, and a non-browser client can leave it out anyway.
 */
export function isOwnOrigin(request: FastifyRequest, origin: string): boolean {
  try {
    const url = new URL(origin);
    return `${url.protocol}//${url.host}` === `${request.protocol}://${request.host}`.toLowerCase();
  } catch {
    return false;
  }
}
