import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { STRIPE_RETURN_PATH } from '@renew/billing-service/payments';
import { page } from '../sandbox/challenge-routes.js';

/** The intents Stripe names when it sends the browser back: a SetupIntent (a card save) or a PaymentIntent (a payment). */
const INTENT_ID = /^(seti|pi)_[A-Za-z0-9]{1,200}$/;

/**
 * Where Stripe sends the shopper's browser after the bank's 3-D Secure page (the `return_url` of every intent, with
 * `setup_intent` or `payment_intent` and `redirect_status` in the query). Like the sandbox issuer's page, it tells the
 * window that framed or opened it (`renew-3ds`, to this host's origin only), and the card fields or the portal then
 * complete the capture or the payment by asking Stripe: `redirect_status` is only a hint, never believed.
 */
export function registerStripeReturnPage(app: FastifyInstance) {
  app.get<{ Querystring: Record<string, string | undefined> }>(STRIPE_RETURN_PATH, async (request, reply) => {
    const id = request.query.setup_intent ?? request.query.payment_intent ?? '';
    if (!INTENT_ID.test(id)) {
      return page(reply.code(400), 'Authentication', '<p>This page is where your bank sends you back after confirming a payment.</p>');
    }
    const answer = request.query.redirect_status === 'succeeded' ? 'complete' : 'fail';
    const nonce = randomBytes(16).toString('base64');
    // The id is checked above (letters, digits, one underscore): safe inside the script as JSON.
    const message = JSON.stringify({ type: 'renew-3ds', id, answer });
    return page(
      reply,
      'Authentication',
      `<p role="status">${answer === 'complete' ? 'Authenticated. You can go back to the shop.' : 'Authentication failed.'}</p>
      <script nonce="${nonce}">(window.opener || window.parent).postMessage(${message}, window.location.origin);</script>`,
      nonce,
    );
  });
}
