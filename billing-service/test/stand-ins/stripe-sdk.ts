import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import type { StripeStandIn } from './stripe/index.js';

/** The official SDK pointed at the stand-in, as the adapter will configure it (no hidden retries in tests). */
export function sdkFor(standIn: StripeStandIn, secretKey = standIn.secretKey): Stripe {
  return new Stripe(secretKey, { host: standIn.host, port: standIn.port, protocol: 'http', maxNetworkRetries: 0 });
}

const EXPIRY = { exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: '123' };

/** A customer and a PaymentMethod made from a raw test card number (not attached yet). */
export async function customerWithCard(stripe: Stripe, number: string) {
  const customer = await stripe.customers.create({ email: 'shopper@example.com' });
  const card = await stripe.paymentMethods.create({ type: 'card', card: { number, ...EXPIRY } });
  return { customer: customer.id, paymentMethod: card.id };
}

/** A card saved for off-session use through a SetupIntent, its challenge completed when the card asks for one. */
export async function savedCard(standIn: StripeStandIn, stripe: Stripe, number: string) {
  const { customer, paymentMethod } = await customerWithCard(stripe, number);
  const setup = await stripe.setupIntents.create({
    customer,
    payment_method: paymentMethod,
    usage: 'off_session',
    confirm: true,
    return_url: 'https://shop.example/back',
  });
  if (setup.status === 'requires_action') standIn.completeChallenge(setup.id, 'succeed');
  return { customer, paymentMethod };
}

export interface ReceivedWebhook {
  body: string;
  headers: IncomingHttpHeaders;
}

/** A local webhook endpoint that keeps each raw body and answers 200. */
export async function startReceiver() {
  const received: ReceivedWebhook[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: request.headers });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/stripe/webhooks`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The rejection of a promise, for asserting on Stripe's error fields. */
export async function failureOf(promise: Promise<unknown>): Promise<Stripe.errors.StripeError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Stripe.errors.StripeError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

/** A PaymentIntent for a customer's card, confirmed at once; `extra` adds off_session, return_url, … */
export function pay(
  stripe: Stripe,
  card: { customer: string; paymentMethod: string },
  amount: number,
  currency: string,
  extra: Partial<Stripe.PaymentIntentCreateParams> = {},
  options?: Stripe.RequestOptions,
) {
  const params = { amount, currency, customer: card.customer, payment_method: card.paymentMethod, confirm: true, ...extra };
  return stripe.paymentIntents.create(params, options);
}
