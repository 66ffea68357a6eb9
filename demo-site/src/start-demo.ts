import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { CheckoutConfig } from '@renew/widget/checkout-contract';
import { buildDemoSite } from './demo-site.js';

export interface DemoKeys {
  apiKey: string;
  publicApiKey: string;
}

/** Where the launcher keeps the demo account's keys next to the embedded database (which holds everything else anyway). */
export const DEMO_KEYS_FILE = 'demo-store-keys.json';

/**
 * The keys the demo store's proxy uses: RENEW_API_KEY / RENEW_PUBLIC_API_KEY when
 * set, else the ones the first start created (saved in the embedded database's
 * folder, readable by its owner only, so `npm start` works again after a restart).
 */
export function demoKeys(options: {
  env: NodeJS.ProcessEnv;
  dataDir: string;
  embedded: boolean;
  created?: DemoKeys;
}): DemoKeys | undefined {
  const { env, dataDir, embedded, created } = options;
  const file = path.join(dataDir, DEMO_KEYS_FILE);
  if (created) {
    if (embedded) {
      writeFileSync(file, `${JSON.stringify({ apiKey: created.apiKey, publicApiKey: created.publicApiKey }, null, 2)}\n`, { mode: 0o600 });
      chmodSync(file, 0o600);
    }
    return { apiKey: created.apiKey, publicApiKey: created.publicApiKey };
  }
  if (env.RENEW_API_KEY && env.RENEW_PUBLIC_API_KEY) return { apiKey: env.RENEW_API_KEY, publicApiKey: env.RENEW_PUBLIC_API_KEY };
  if (embedded && existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as DemoKeys;
  return undefined;
}

export interface StartDemoOptions {
  host: string;
  port: number;
  billingApiUrl: string;
  captureUrl: string;
  keys: DemoKeys;
  captcha: CheckoutConfig['captcha'];
  currency: string;
  sessionSecret?: string;
}

/** Builds the storefront, checks its key against the billing API, listens. */
export async function startDemoSite(options: StartDemoOptions): Promise<{ app: FastifyInstance; url: string }> {
  const probe = await fetch(new URL('/v1/Plans?pageSize=1', options.billingApiUrl), {
    headers: { authorization: `Basic ${options.keys.apiKey}` },
  }).catch((error: Error) => {
    const cause = error.cause instanceof Error ? error.cause.message : error.message;
    throw new Error(
      `the billing API at ${options.billingApiUrl} cannot be reached (${cause}); with HTTPS and a certificate of your own, let Node trust it: NODE_EXTRA_CA_CERTS=cert.pem`,
    );
  });
  await probe.body?.cancel();
  if (probe.status === 401)
    throw new Error(
      "the demo store's private API key is refused by the billing API: set RENEW_API_KEY and RENEW_PUBLIC_API_KEY to this account's keys",
    );
  // The merchant key's own per-minute limit, as the billing API states it: a shopper may cause 10 % of it.
  const merchantPerMinute = Number(probe.headers.get('x-rate-limit-limit-minute')) || undefined;
  const app = await buildDemoSite({
    checkout: {
      ...(merchantPerMinute ? { merchantPerMinute } : {}),
      billingApiUrl: options.billingApiUrl,
      apiKey: options.keys.apiKey,
      captureUrl: options.captureUrl,
      publicApiKey: options.keys.publicApiKey,
      captcha: options.captcha,
      currency: options.currency,
      ...(options.sessionSecret ? { sessionSecret: options.sessionSecret } : {}),
    },
  });
  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return { app, url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}` };
}
