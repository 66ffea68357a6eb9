import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance } from 'fastify';
import { isProduction } from '@renew/billing-service';
import { checkoutProxy, type CheckoutProxyOptions } from '@renew/widget/proxy';
import { registerDemoAccount } from './demo-account.js';

export const PUBLIC_DIR = fileURLToPath(new URL('../public/', import.meta.url));
/** The widget's build (`npm run build -w widget`): one ES module. */
export const WIDGET_DIST_DIR = fileURLToPath(new URL('../../widget/dist/', import.meta.url));

export interface DemoSiteOptions {
  /** The merchant's checkout proxy, mounted at /checkout. */
  checkout: CheckoutProxyOptions;
  logger?: boolean | { level: string };
  /** Serve the widget's source maps (default: unless in production, NODE_ENV or RENEW_ENV=production in any casing). */
  serveSourceMaps?: boolean;
}

/**
 * A merchant's storefront: a static page that embeds <renew-checkout> with one
 * script tag, the widget's bundle, and the checkout proxy holding the private key.
 */
export async function buildDemoSite(options: DemoSiteOptions): Promise<FastifyInstance> {
  if (!existsSync(`${WIDGET_DIST_DIR}renew-checkout.js`)) {
    throw new Error('the widget is not built: run `npm run build -w widget` (npm start does it)');
  }
  const app = Fastify({ logger: options.logger ?? false });
  const capture = new URL(options.checkout.captureUrl).origin;
  // A reCAPTCHA script served from elsewhere than Google (www.recaptcha.net, a test stand-in) is allowed too.
  const scriptUrl = options.checkout.captcha.scriptUrl;
  const captchaScript = scriptUrl ? ` ${new URL(scriptUrl).origin}` : '';
  app.addHook('onSend', async (request, reply) => {
    if (!request.url.startsWith('/checkout')) {
      // The page works under a strict policy: scripts from here (and reCAPTCHA), the card fields framed from the
      // capture host (hosted mode, the default), cards posted only to the capture host (direct mode).
      reply.header(
        'content-security-policy',
        [
          "default-src 'self'",
          `script-src 'self' https://www.google.com/recaptcha/ https://www.gstatic.com/recaptcha/${captchaScript}`,
          `frame-src ${capture} https://www.google.com/recaptcha/ https://recaptcha.google.com/recaptcha/`,
          `connect-src 'self' ${capture}`,
          "style-src 'self'",
          "img-src 'self' data:",
          // No other site may frame the shop (clickjacking), nor re-base its relative URLs.
          "frame-ancestors 'none'",
          "base-uri 'none'",
        ].join('; '),
      );
    }
  });
  await app.register(fastifyStatic, { root: PUBLIC_DIR, prefix: '/' });
  // Source maps help while developing; in production they are not served.
  const serveSourceMaps = options.serveSourceMaps ?? !isProduction(process.env);
  await app.register(fastifyStatic, {
    root: WIDGET_DIST_DIR,
    prefix: '/widget/',
    decorateReply: false,
    allowedPath: (pathName) => serveSourceMaps || !pathName.endsWith('.map'),
  });
  // "Account": the customer portal for the shopper signed in by their completed checkout (its hook sees the proxy's answers, so first).
  registerDemoAccount(app, {
    billingApiUrl: options.checkout.billingApiUrl,
    apiKey: options.checkout.apiKey,
    captureUrl: options.checkout.captureUrl,
    publicApiKey: options.checkout.publicApiKey,
    ...(options.checkout.sessionSecret ? { secret: options.checkout.sessionSecret } : {}),
  });
  await app.register(checkoutProxy, { prefix: '/checkout', ...options.checkout });
  return app;
}
