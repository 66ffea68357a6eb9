import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { GatewaySettings } from './gateway/gateway-from-config.js';
import { stripeSettingsFromEnv } from './gateway/stripe/stripe-settings.js';

const booleanString = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

export const DEMO_CATALOG_PATH = fileURLToPath(new URL('../catalog/demo-catalog.json', import.meta.url));

/**
 * Production, said by RENEW_ENV=production (the explicit switch) or by NODE_ENV=production, in any
 * casing and without surrounding spaces: `Production` and `PRODUCTION ` are what people type, and a
 * spelling that missed would quietly allow test clocks and plain HTTP. Nothing turns it off again
 * once either says so.
 */
export function isProduction(env: { NODE_ENV?: string; RENEW_ENV?: string }): boolean {
  return [env.RENEW_ENV, env.NODE_ENV].some((value) => value?.trim().toLowerCase() === 'production');
}

const EnvSchema = z.object({
  NODE_ENV: z.string().optional(),
  RENEW_ENV: z.string().optional(),
  RENEW_HOST: z.string().default('127.0.0.1'),
  RENEW_API_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  RENEW_DATA_DIR: z.string().default('.data'),
  DATABASE_URL: z.string().url().optional(),
  /** What is between Renew and PostgreSQL: `pgbouncer` (transaction mode) or `none`; unset: detected at start (db/pooler.ts). */
  RENEW_DATABASE_POOLER: z.enum(['pgbouncer', 'none']).optional(),
  /** Connections of this instance's main PostgreSQL pool (the counters' pool adds 4). */
  RENEW_DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(10),
  /** Instances sharing the database, for the connection budget said at start (db/connection-budget.ts). */
  RENEW_INSTANCES: z.coerce.number().int().min(1).max(10_000).default(1),
  RENEW_API_KEY: z.string().min(16).optional(),
  RENEW_PUBLIC_API_KEY: z.string().min(16).optional(),
  RENEW_CATALOG: z.string().optional(),
  RENEW_PUBLIC_BASE_URL: z.string().url().optional(),
  /** The card-capture host's address as customers' browsers reach it: where portal links point. */
  RENEW_CAPTURE_PUBLIC_URL: z.string().url().optional(),
  RENEW_TLS_CERT: z.string().optional(),
  RENEW_TLS_KEY: z.string().optional(),
  RENEW_REQUIRE_TLS: booleanString.optional(),
  RENEW_TRUST_PROXY: z.string().optional(),
  RENEW_GATEWAY: z.enum(['sandbox', 'stripe']).default('sandbox'),
  RENEW_GATEWAY_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  /** E-mail notifications: the SMTP server (smtp:// or smtps://, credentials in the URL) and the From address. */
  RENEW_SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  RENEW_EMAIL_FROM: z.string().min(3).default('billing@localhost'),
  /** How often the billing clock ticks (renewals, automatic collection, dunning); 0 turns it off on this instance. */
  RENEW_BILLING_CLOCK_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
  /** An instance whose heartbeat is older than this is judged dead and its claims are taken over (db/instance-liveness.ts). */
  RENEW_READ_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'a postgres:// URL')
    .optional(),
  RENEW_READ_MAX_LAG_SECONDS: z.coerce.number().min(0).max(3_600).default(5),
  RENEW_CLAIM_STALE_MS: z.coerce.number().int().min(3_000).max(3_600_000).default(30_000),
  /** Bearer token for GET /metrics; unset: /metrics answers loopback clients only. */
  RENEW_METRICS_TOKEN: z.string().min(16).optional(),
  /** Webhook endpoints: accept http:// URLs; accept hosts resolving to private, loopback, link-local… addresses (development, tests). */
  RENEW_WEBHOOK_ALLOW_HTTP: booleanString.default(false),
  RENEW_WEBHOOK_ALLOW_PRIVATE: booleanString.default(false),
  /** Test clocks: each account's time can be advanced (POST /v1/testclock/advance) to rehearse renewals and dunning; refused in production. */
  RENEW_TEST_CLOCKS: booleanString.default(false),
  /** The merchant console's sessions: idle minutes (slides with use) and the absolute cap in hours. */
  RENEW_CONSOLE_IDLE_MINUTES: z.coerce.number().int().min(1).max(1440).default(30),
  RENEW_CONSOLE_ABSOLUTE_HOURS: z.coerce.number().int().min(1).max(720).default(12),
  RENEW_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface Config {
  /** Webhook URL checks: http:// allowed, private addresses allowed (both off by default). */
  webhooks: { allowHttp: boolean; allowPrivate: boolean };
  /** RENEW_TEST_CLOCKS: accounts may advance their own clock (never in production). */
  testClocks: boolean;
  /** Billing clock interval; 0: off. */
  billingClockMs: number;
  /** RENEW_CLAIM_STALE_MS: how long without a heartbeat before an instance's claims are taken over. */
  claimStaleMs: number;
  /** E-mail notifications, when an SMTP server is configured. */
  email: { smtpUrl: string; from: string } | undefined;
  host: string;
  port: number;
  dataDir: string;
  databaseUrl?: string;
  /** RENEW_READ_DATABASE_URL: a streaming standby for the console's lists, revenue and exports (db/read-database.ts). */
  readDatabaseUrl?: string;
  /** RENEW_READ_MAX_LAG_SECONDS: how far behind the standby may be and still be read. */
  readMaxLagSeconds: number;
  /** RENEW_DATABASE_POOLER; undefined: detected. */
  databasePooler?: 'pgbouncer' | 'none';
  /** RENEW_DATABASE_POOL_SIZE: the main pool's connections on PostgreSQL. */
  databasePoolSize: number;
  /** RENEW_INSTANCES: how many instances share the database (the connection budget). */
  instances: number;
  apiKey?: string;
  publicApiKey?: string;
  catalogPath: string;
  publicBaseUrl?: string;
  /** RENEW_CAPTURE_PUBLIC_URL: the capture host's public origin (portal links); unset: the capture host's listening address. */
  capturePublicUrl?: string;
  tls?: { certPath: string; keyPath: string };
  requireTls: boolean;
  /** Fastify trustProxy: addresses or CIDRs whose X-Forwarded-* headers are believed. */
  trustProxy: string | boolean;
  logLevel: string;
  /** RENEW_METRICS_TOKEN: GET /metrics needs `Authorization: Bearer <token>`; unset: loopback clients only. */
  metricsToken?: string;
  /** Which payment gateway adapter: the built-in sandbox, or Stripe with its settings (RENEW_STRIPE_*). */
  gateway: GatewaySettings;
  /** The console's session lifetimes (RENEW_CONSOLE_IDLE_MINUTES, RENEW_CONSOLE_ABSOLUTE_HOURS). */
  console: { idleMinutes: number; absoluteHours: number };
  /** RENEW_ENV or NODE_ENV=production (any casing): defaults become strict, and test doubles (the sandbox gateway) are warned about at every start. */
  production: boolean;
}

/** Environment to typed configuration. Throws with every problem listed. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable counts as unset (VAR= in a shell or a compose file).
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(given);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  if (Boolean(e.RENEW_TLS_CERT) !== Boolean(e.RENEW_TLS_KEY)) {
    throw new Error('invalid configuration: RENEW_TLS_CERT and RENEW_TLS_KEY go together');
  }
  const production = isProduction(e);
  if (e.RENEW_TEST_CLOCKS && production) {
    throw new Error(
      'invalid configuration: RENEW_TEST_CLOCKS=true is refused in production (NODE_ENV or RENEW_ENV=production; test clocks move billing time, they are for rehearsals)',
    );
  }
  return {
    testClocks: e.RENEW_TEST_CLOCKS,
    host: e.RENEW_HOST,
    port: e.RENEW_API_PORT,
    dataDir: path.resolve(e.RENEW_DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    ...(e.RENEW_READ_DATABASE_URL ? { readDatabaseUrl: e.RENEW_READ_DATABASE_URL } : {}),
    readMaxLagSeconds: e.RENEW_READ_MAX_LAG_SECONDS,
    ...(e.RENEW_DATABASE_POOLER ? { databasePooler: e.RENEW_DATABASE_POOLER } : {}),
    databasePoolSize: e.RENEW_DATABASE_POOL_SIZE,
    instances: e.RENEW_INSTANCES,
    apiKey: e.RENEW_API_KEY,
    publicApiKey: e.RENEW_PUBLIC_API_KEY,
    catalogPath: e.RENEW_CATALOG ? path.resolve(e.RENEW_CATALOG) : DEMO_CATALOG_PATH,
    publicBaseUrl: e.RENEW_PUBLIC_BASE_URL?.replace(/\/+$/, ''),
    ...(e.RENEW_CAPTURE_PUBLIC_URL ? { capturePublicUrl: e.RENEW_CAPTURE_PUBLIC_URL.replace(/\/+$/, '') } : {}),
    tls: e.RENEW_TLS_CERT && e.RENEW_TLS_KEY ? { certPath: e.RENEW_TLS_CERT, keyPath: e.RENEW_TLS_KEY } : undefined,
    requireTls: e.RENEW_REQUIRE_TLS ?? production,
    trustProxy: parseTrustProxy(e.RENEW_TRUST_PROXY),
    logLevel: e.RENEW_LOG_LEVEL,
    ...(e.RENEW_METRICS_TOKEN ? { metricsToken: e.RENEW_METRICS_TOKEN } : {}),
    gateway:
      e.RENEW_GATEWAY === 'stripe'
        ? { name: 'stripe', timeoutMs: e.RENEW_GATEWAY_TIMEOUT_MS, stripe: stripeSettingsFromEnv(given, production) }
        : { name: 'sandbox', timeoutMs: e.RENEW_GATEWAY_TIMEOUT_MS },
    production,
    billingClockMs: e.RENEW_BILLING_CLOCK_MS,
    claimStaleMs: e.RENEW_CLAIM_STALE_MS,
    webhooks: { allowHttp: e.RENEW_WEBHOOK_ALLOW_HTTP, allowPrivate: e.RENEW_WEBHOOK_ALLOW_PRIVATE },
    email: e.RENEW_SMTP_URL ? { smtpUrl: e.RENEW_SMTP_URL, from: e.RENEW_EMAIL_FROM } : undefined,
    console: { idleMinutes: e.RENEW_CONSOLE_IDLE_MINUTES, absoluteHours: e.RENEW_CONSOLE_ABSOLUTE_HOURS },
  };
}

function parseTrustProxy(value: string | undefined): string | boolean {
  if (value === undefined || value === '' || value === 'false') return 'loopback';
  if (value === 'true') return true;
  return value;
}

/** Said at every start when production runs on the sandbox: no card is really charged. */
export const SANDBOX_IN_PRODUCTION_WARNING =
  'production (NODE_ENV or RENEW_ENV=production) with the sandbox payment gateway (RENEW_GATEWAY=sandbox): no card is really charged; test cards only';
