import type { FastifyInstance } from 'fastify';
import { loadCaptureConfig } from '@renew/capture-service/config';
import { startCaptureService } from '@renew/capture-service/start';
import { billingBanner, openBillingResources, startBillingService, type StartedBilling } from '@renew/billing-service';
import { demoKeys, startDemoSite, type DemoKeys } from '@renew/demo-site/start-demo.js';

export interface StartedProduct {
  billing: StartedBilling;
  captureUrl: string;
  /** Unset when the demo store's keys are unknown (see the banner). */
  demo?: { url: string; keys: DemoKeys };
  banner: string;
  /** Stops the demo store, the capture host and the billing API (in-flight requests finish), then closes the database. */
  close(): Promise<void>;
}

/**
 * The whole product in one process on one database (the embedded one cannot be
 * shared between processes): the billing API, the card-capture host, and the demo
 * storefront with <renew-checkout> and its proxy. `npm start` and the end-to-end
 * tests both start it through here.
 */
export async function startProduct(env: NodeJS.ProcessEnv = process.env): Promise<StartedProduct> {
  const billing = await startBillingService(env);
  const apps: FastifyInstance[] = [];
  const close = async () => {
    for (const app of apps.reverse()) await app.close();
    await billing.close();
  };
  try {
    const captureConfig = loadCaptureConfig(env, billing.catalog);
    const capture = await startCaptureService({
      database: billing.database,
      catalog: billing.catalog,
      config: captureConfig,
      gateway: billing.gateway,
      publicBaseUrl: billing.config.publicBaseUrl ?? billing.url,
    });
    apps.push(capture.app);
    // Portal links (POST /v1/portalSessions, e-mails) point at the capture host as browsers reach it.
    billing.app.ctx.portal.baseUrl = billing.config.capturePublicUrl ?? capture.url;
    const lines = [billingBanner(billing), `Card-capture host listening on ${capture.url} (POST ${capture.url}/api/paymentsv2)`];

    const keys = demoKeys({
      env,
      dataDir: billing.config.dataDir,
      embedded: billing.database.kind !== 'postgres',
      ...(billing.created ? { created: billing.created } : {}),
    });
    let demo: StartedProduct['demo'];
    if (keys) {
      // The store is a demo: when it cannot start, the API and the capture host still serve.
      const site = await startDemoSite({
        host: billing.config.host,
        port: Number(env.RENEW_DEMO_PORT || 8082),
        billingApiUrl: billing.url,
        captureUrl: env.RENEW_CAPTURE_PUBLIC_URL || capture.url,
        keys,
        captcha: {
          mode: captureConfig.captcha.mode,
          siteKey: billing.catalog.capture.recaptchaSiteKey ?? (env.RENEW_RECAPTCHA_SITE_KEY || null),
          scriptUrl: env.RENEW_RECAPTCHA_SCRIPT_URL || null,
        },
        currency: env.RENEW_DEMO_CURRENCY || billing.catalog.currencies.default,
        ...(env.RENEW_CHECKOUT_SESSION_SECRET ? { sessionSecret: env.RENEW_CHECKOUT_SESSION_SECRET } : {}),
      }).catch((error: Error) => {
        lines.push(`Demo store not started: ${error.message}`);
        return undefined;
      });
      if (site) {
        apps.push(site.app);
        demo = { url: site.url, keys };
        lines.push(`Demo store with <renew-checkout> on ${site.url} (test card 4242 4242 4242 4242)`);
      }
    } else {
      lines.push("Demo store not started: set RENEW_API_KEY and RENEW_PUBLIC_API_KEY to the account's keys to run it on this database.");
    }
    return { billing, captureUrl: capture.url, ...(demo ? { demo } : {}), banner: lines.join('\n'), close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * The card-capture host alone (`npm start -- capture`): the same configuration as the billing API
 * (database, catalogue, gateway, RENEW_CAPTURE_PORT); the billing API's public address (RENEW_PUBLIC_BASE_URL) writes `uri`s.
 */
export async function startCaptureRole(env: NodeJS.ProcessEnv = process.env): Promise<{ banner: string; close(): Promise<void> }> {
  const { config, catalog, database, gateway } = await openBillingResources(env);
  try {
    const capture = await startCaptureService({
      database,
      catalog,
      config: loadCaptureConfig(env, catalog),
      gateway,
      ...(config.publicBaseUrl ? { publicBaseUrl: config.publicBaseUrl } : {}),
    });
    return {
      banner: `Card-capture host listening on ${capture.url} (POST ${capture.url}/api/paymentsv2; database: ${database.kind === 'postgres' ? 'PostgreSQL' : `embedded, ${config.dataDir}`})`,
      async close() {
        await capture.app.close();
        await database.close();
      },
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}
