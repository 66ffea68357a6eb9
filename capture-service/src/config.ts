import { z } from 'zod';
import { loadConfig } from '@renew/billing-service';
import type { Catalog } from '@renew/billing-service/catalog';
import { DEFAULT_IP_RATE_LIMITS } from './app.js';
import { GOOGLE_SITEVERIFY_URL } from './captcha/siteverify-captcha.js';
import { isLoopback } from '@renew/billing-service/observability';

const EnvSchema = z.object({
  RENEW_CAPTURE_PORT: z.coerce.number().int().min(0).max(65535).default(8081),
  RENEW_CAPTURE_PUBLIC_URL: z.string().url().optional(),
  RENEW_CAPTCHA: z.enum(['google', 'dev']).optional(),
  RENEW_RECAPTCHA_VERIFY_URL: z.url().default(GOOGLE_SITEVERIFY_URL),
  RENEW_RECAPTCHA_SECRET: z.string().min(1).optional(),
  RENEW_RECAPTCHA_SITE_KEY: z.string().min(1).optional(),
  RENEW_RECAPTCHA_SCRIPT_URL: z.url().optional(),
  RENEW_RECAPTCHA_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  RENEW_CAPTURE_IP_PER_MINUTE: z.coerce.number().int().positive().default(DEFAULT_IP_RATE_LIMITS.perMinute),
  RENEW_CAPTURE_IP_PER_DAY: z.coerce.number().int().positive().default(DEFAULT_IP_RATE_LIMITS.perDay),
});

export interface CaptureConfig {
  /** RENEW_HOST, shared with the billing API. */
  host: string;
  /** RENEW_CAPTURE_PORT, default 8081 (0: any free port). */
  port: number;
  /** RENEW_CAPTURE_PUBLIC_URL: this host as browsers reach it (portal links); unset: its listening address. */
  publicUrl?: string;
  captcha: {
    /** RENEW_CAPTCHA; when unset: google if a reCAPTCHA secret is configured, else dev. */
    mode: 'google' | 'dev';
    /** Whether the mode was chosen by RENEW_CAPTCHA or by that default. */
    modeFrom: 'RENEW_CAPTCHA' | 'default';
    /** RENEW_RECAPTCHA_VERIFY_URL, default Google's siteverify. */
    verifyUrl: string;
    /** RENEW_RECAPTCHA_SECRET: used for accounts without their own `capture.recaptchaSecret`. */
    secret?: string;
    /** RENEW_RECAPTCHA_TIMEOUT_MS, default 5000. */
    timeoutMs: number;
    /** RENEW_RECAPTCHA_SITE_KEY: the portal's card form shows the reCAPTCHA with it after a decline (the catalogue's capture.recaptchaSiteKey wins). */
    siteKey?: string;
    /** RENEW_RECAPTCHA_SCRIPT_URL: where that form loads Google's script from (default Google's). */
    scriptUrl?: string;
  };
  /** RENEW_CAPTURE_IP_PER_MINUTE / RENEW_CAPTURE_IP_PER_DAY (30 / 1000). */
  ipRateLimits: { perMinute: number; perDay: number };
  /** RENEW_PUBLIC_BASE_URL: base of `uri` values (the billing API's address). */
  publicBaseUrl?: string;
  /** RENEW_API_PORT: the billing API's port, for the default base of `uri` values. */
  apiPort: number;
  tls?: { certPath: string; keyPath: string };
  requireTls: boolean;
  trustProxy: string | boolean;
  logLevel: string;
  /** RENEW_METRICS_TOKEN, shared with the billing API: GET /metrics needs `Authorization: Bearer <token>`; unset: loopback clients only. */
  metricsToken?: string;
  /** RENEW_SMTP_URL is set: payments collected here write their e-mail to the outbox (the billing API sends it). */
  emailEnabled: boolean;
  /** RENEW_TEST_CLOCKS, shared with the billing API: a payment collected here is dated at its account's test clock. */
  testClocks: boolean;
  /** RENEW_CLAIM_STALE_MS (the billing service's setting): how long without a heartbeat before this instance's claims are taken over. */
  claimStaleMs: number;
  /** RENEW_ENV or NODE_ENV=production (any casing), read by the billing service's loadConfig. */
  production: boolean;
}

/**
 * Environment to typed configuration. The shared variables (RENEW_HOST, TLS,
 * proxies, log level, public base URL) are read by the billing service's
 * loadConfig; this adds the capture host's own. Throws with every problem listed.
 * With a catalogue, an account's own reCAPTCHA secret also selects google by default.
 */
export function loadCaptureConfig(env: NodeJS.ProcessEnv = process.env, catalog?: Catalog): CaptureConfig {
  const shared = loadConfig(env);
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(given);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  const anySecret = Boolean(e.RENEW_RECAPTCHA_SECRET || catalog?.capture.recaptchaSecret);
  const mode = e.RENEW_CAPTCHA ?? (anySecret ? 'google' : 'dev');
  if (!e.RENEW_CAPTCHA && mode === 'dev' && shared.production) {
    throw new Error(
      'invalid configuration: production (NODE_ENV or RENEW_ENV=production) needs RENEW_RECAPTCHA_SECRET (or RENEW_CAPTCHA=dev, which accepts any token)',
    );
  }
  // The development CAPTCHA accepts any token: as a default it serves only this machine.
  if (!e.RENEW_CAPTCHA && mode === 'dev' && !isLoopbackHost(shared.host)) {
    throw new Error(
      `invalid configuration: listening on ${shared.host} (not loopback) needs RENEW_RECAPTCHA_SECRET, or RENEW_CAPTCHA=dev set explicitly (it accepts any token)`,
    );
  }
  if (mode === 'google' && catalog && !anySecret) {
    throw new Error("invalid configuration: RENEW_CAPTCHA=google needs RENEW_RECAPTCHA_SECRET or the catalogue's capture.recaptchaSecret");
  }
  return {
    host: shared.host,
    port: e.RENEW_CAPTURE_PORT,
    ...(e.RENEW_CAPTURE_PUBLIC_URL ? { publicUrl: e.RENEW_CAPTURE_PUBLIC_URL.replace(/\/+$/, '') } : {}),
    captcha: {
      mode,
      modeFrom: e.RENEW_CAPTCHA ? 'RENEW_CAPTCHA' : 'default',
      verifyUrl: e.RENEW_RECAPTCHA_VERIFY_URL,
      ...(e.RENEW_RECAPTCHA_SECRET ? { secret: e.RENEW_RECAPTCHA_SECRET } : {}),
      timeoutMs: e.RENEW_RECAPTCHA_TIMEOUT_MS,
      ...(e.RENEW_RECAPTCHA_SITE_KEY ? { siteKey: e.RENEW_RECAPTCHA_SITE_KEY } : {}),
      ...(e.RENEW_RECAPTCHA_SCRIPT_URL ? { scriptUrl: e.RENEW_RECAPTCHA_SCRIPT_URL } : {}),
    },
    ipRateLimits: { perMinute: e.RENEW_CAPTURE_IP_PER_MINUTE, perDay: e.RENEW_CAPTURE_IP_PER_DAY },
    ...(shared.publicBaseUrl ? { publicBaseUrl: shared.publicBaseUrl } : {}),
    apiPort: shared.port,
    ...(shared.tls ? { tls: shared.tls } : {}),
    requireTls: shared.requireTls,
    trustProxy: shared.trustProxy,
    logLevel: shared.logLevel,
    ...(shared.metricsToken ? { metricsToken: shared.metricsToken } : {}),
    emailEnabled: shared.email !== undefined,
    testClocks: shared.testClocks,
    claimStaleMs: shared.claimStaleMs,
    production: shared.production,
  };
}

/** A listening address only this machine can reach: localhost, or a loopback address. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || isLoopback(h);
}
