/**
 * Runs the Stripe stand-in on its own (for e2e runs): `npx tsx billing-service/test/stand-ins/stripe/start-stripe-stand-in.ts`.
 * Env: STRIPE_STAND_IN_PORT (default 12111), STRIPE_STAND_IN_HOST (default 127.0.0.1), STRIPE_STAND_IN_WEBHOOK_URL
 * (where events go, optional). It prints one JSON line with url, secretKey and webhookSecret for the caller to use.
 */
import { startStripeStandIn } from './stand-in.js';

const port = Number(process.env.STRIPE_STAND_IN_PORT ?? 12111);
if (!Number.isInteger(port) || port < 0 || port > 65535)
  throw new Error(`STRIPE_STAND_IN_PORT must be a port number, not ${process.env.STRIPE_STAND_IN_PORT}`);
const standIn = await startStripeStandIn({ port, host: process.env.STRIPE_STAND_IN_HOST ?? '127.0.0.1' });
if (process.env.STRIPE_STAND_IN_WEBHOOK_URL) standIn.setWebhookEndpoint(process.env.STRIPE_STAND_IN_WEBHOOK_URL);
console.log(JSON.stringify({ url: standIn.url, secretKey: standIn.secretKey, webhookSecret: standIn.webhookSecret }));
const stop = () => {
  standIn.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
