import type { FastifyInstance } from 'fastify';
import { ingestGatewayEvent } from '@renew/billing-service/disputes';
import { ApiError } from '@renew/billing-service/http';
import { type StripeGateway, StripeWebhookSignatureError } from '@renew/billing-service/payments';

/** Where the merchant points Stripe's webhook endpoint (Dashboard → Developers → Webhooks): README "Payment gateways". */
export const STRIPE_WEBHOOK_PATH = '/api/gateway/stripe/webhooks';

/**
 * Stripe's events (its disputes) at the capture host: the raw body is verified against `Stripe-Signature` with the
 * webhook secret (the SDK's constructEvent, in the adapter), then each event is ingested as the worker ingests the
 * sandbox's; ingesting is idempotent on the dispute, so Stripe's retries and duplicate deliveries record once.
 * 200 once ingested; a forged or stale delivery 400 (`signature_invalid`), nothing done; a database failure 5xx, so Stripe
 * delivers it again. Signed by Stripe, it needs neither a key nor the address budget shoppers' calls have.
 */
export function registerStripeWebhooks(app: FastifyInstance, gateway: StripeGateway) {
  void app.register(async (scope) => {
    // The signature is over the exact bytes Stripe sent: the body is kept raw, whatever its content type says.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.post(STRIPE_WEBHOOK_PATH, { config: { public: true }, bodyLimit: 512 * 1024 }, async (request) => {
      const signature = request.headers['stripe-signature'];
      let events: ReturnType<StripeGateway['parseWebhook']>;
      try {
        events = gateway.parseWebhook(request.body as Buffer, typeof signature === 'string' ? signature : '');
      } catch (error) {
        if (!(error instanceof StripeWebhookSignatureError)) throw error;
        throw new ApiError(400, [{ Key: 'Stripe-Signature', Value: error.message.slice(0, 200), Code: 'signature_invalid' }]);
      }
      for (const event of events) await ingestGatewayEvent(app.ctx, event);
      return { received: true };
    });
  });
}
