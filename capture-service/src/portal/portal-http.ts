import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { AppContext } from '@renew/billing-service';
import { validationError, type RateLimitStore } from '@renew/billing-service/http';
import type { PortalSession } from '@renew/billing-service/portal';
import type { PublicKeyAuthenticator } from '../public-key.js';
import type { PortalBranding } from './portal-pages.js';

/** The session cookie: `__Host-` (this host only, Secure, path /) under HTTPS; plain HTTP (development) cannot use the prefix. */
export function sessionCookieName(secure: boolean): string {
  return secure ? '__Host-renew_portal' : 'renew_portal';
}

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

export function sessionCookie(token: string, secure: boolean, maxAgeSeconds: number): string {
  return portalCookie(sessionCookieName(secure), token, { secure, maxAgeSeconds, sameSite: 'Strict' });
}

/** A cookie of this host: HttpOnly, Path=/ (as `__Host-` needs), Secure under HTTPS. */
export function portalCookie(
  name: string,
  value: string,
  options: { secure: boolean; maxAgeSeconds: number; sameSite: 'Strict' | 'Lax' },
): string {
  return [
    `${name}=${value}`,
    'Path=/',
    'HttpOnly',
    `SameSite=${options.sameSite}`,
    `Max-Age=${options.maxAgeSeconds}`,
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}

export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) throw validationError(parsed.error.issues);
  return parsed.data;
}

/** How the portal's card form shows the CAPTCHA after a decline: dev (a checkbox), or Google's widget with this site key. */
export interface PortalCaptcha {
  mode: 'dev' | 'google';
  siteKey?: string;
  /** Where Google's script is loaded from (RENEW_RECAPTCHA_SCRIPT_URL; default Google's). */
  scriptUrl?: string;
}

/**
 * What the portal's pages must allow for Google's reCAPTCHA (script and frames), in google mode with a site key;
 * nothing in dev mode. A stand-in's script URL (RENEW_RECAPTCHA_SCRIPT_URL) is allowed by its origin.
 */
export function captchaPageSources(captcha?: PortalCaptcha): { scripts: string[]; frames: string[] } {
  if (captcha?.mode !== 'google' || !captcha.siteKey) return { scripts: [], frames: [] };
  if (captcha.scriptUrl) {
    const origin = new URL(captcha.scriptUrl).origin;
    return { scripts: [origin], frames: [origin] };
  }
  return {
    scripts: ['https://www.google.com/recaptcha/', 'https://www.gstatic.com/recaptcha/'],
    frames: ['https://www.google.com/recaptcha/', 'https://recaptcha.google.com/recaptcha/'],
  };
}

/** What every route group shares: the context, the limits' store, and the cookie's session. */
export interface PortalRouteKit {
  ctx: AppContext;
  rateLimitStore: RateLimitStore;
  publicKeys: PublicKeyAuthenticator;
  secureOf: (request: FastifyRequest) => boolean;
  /** Pages and their scripts are public (no limit, as the card fields). */
  page: { config: { public: true } };
  /** What spends a link, sends an e-mail or reads the session: limited per address (PORTAL_IP_LIMITS). */
  portalRoute: { config: { portal: true } };
  branding: PortalBranding;
  captcha?: PortalCaptcha;
  sendPage: (reply: FastifyReply, html: string) => FastifyReply;
  /** The cookie's session (a write also needs the CSRF token), its customer's request budget spent. */
  session: (request: FastifyRequest, reply: FastifyReply, write: boolean) => Promise<PortalSession>;
  /** The session's cookie value, as the request sent it. */
  sessionToken: (request: FastifyRequest) => string | undefined;
}
