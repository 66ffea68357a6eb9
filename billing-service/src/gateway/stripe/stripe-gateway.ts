import Stripe from 'stripe';
import type { Money } from '../../money/money.js';
import type {
  CardToValidate,
  ChargeRequest,
  GatewayEvent,
  GatewayOutcome,
  PaymentGateway,
  SettledOutcome,
  ValidatedCard,
} from '../payment-gateway.js';
import { saveCard, resumeCardSave } from './stripe-card-save.js';
import { chargeCard } from './stripe-charge.js';
import { declined } from './stripe-declines.js';
import { findRefundOf, refundPayment } from './stripe-refunds.js';
import { stripeClient, type StripeSettings } from './stripe-settings.js';
import { requestKey } from './stripe-values.js';
import { parseStripeWebhook } from './stripe-webhooks.js';

/**
 * The Stripe adapter (RENEW_GATEWAY=stripe; README "Payment gateways"), on the official SDK. Declines are outcomes;
 * a network failure, a 5xx or a refusal of Renew's own request throws (the port's contract: the gateway failed).
 * Every POST carries an Idempotency-Key derived from the caller's. The SDK takes no AbortSignal: the port's deadline
 * (withGatewayTimeout) answers the caller, and the SDK's own timeout ends the request.
 */
export class StripeGateway implements PaymentGateway {
  readonly name = 'stripe';
  private readonly stripe: Stripe;

  /** Banks' pages behind Stripe's redirects are on https; a local stand-in of the API (tests) serves its own over http. */
  readonly challengeFrameSources: readonly string[];

  constructor(private readonly settings: StripeSettings) {
    this.stripe = stripeClient(settings);
    const api = new URL(settings.apiBase);
    this.challengeFrameSources = api.protocol === 'http:' ? ['https:', api.origin] : ['https:'];
  }

  validateCard(card: CardToValidate, _signal?: AbortSignal): Promise<GatewayOutcome<ValidatedCard>> {
    return saveCard(this.stripe, this.settings, card);
  }

  resumeCardValidation(actionId: string, _signal?: AbortSignal): Promise<GatewayOutcome<ValidatedCard>> {
    return resumeCardSave(this.stripe, actionId);
  }

  charge(request: ChargeRequest, _signal?: AbortSignal): Promise<GatewayOutcome<{ transactionId: string }>> {
    return chargeCard(this.stripe, this.settings, request);
  }

  refund(request: { transactionId: string; amount: Money; currency: string; idempotencyKey: string }, _signal?: AbortSignal) {
    return refundPayment(this.stripe, request);
  }

  findRefund(idempotencyKey: string, _signal?: AbortSignal, transactionId?: string) {
    return findRefundOf(this.stripe, idempotencyKey, transactionId);
  }

  /** Stripe pushes its events to the capture host's webhook endpoint (parseWebhook): nothing waits here. */
  async dueEvents(_limit?: number, _signal?: AbortSignal): Promise<GatewayEvent[]> {
    return [];
  }

  /** Nothing to acknowledge: Stripe counts a webhook delivered when the endpoint answers 2xx. */
  async acknowledgeEvents(_eventIds?: string[], _signal?: AbortSignal): Promise<void> {}

  /** A webhook delivery (raw body, Stripe-Signature header) as Renew's events; throws StripeWebhookSignatureError when forged. */
  parseWebhook(rawBody: string | Buffer, signatureHeader: string): GatewayEvent[] {
    return parseStripeWebhook(this.stripe, this.settings.webhookSecret, rawBody, signatureHeader);
  }

  /**
   * Answers a dispute: the merchant's text as uncategorized evidence, submitted at once (Stripe allows one
   * submission). A dispute Stripe no longer takes evidence for is declined `evidence_refused`.
   */
  async submitDisputeEvidence(
    request: { disputeId: string; text: string; idempotencyKey: string },
    _signal?: AbortSignal,
  ): Promise<SettledOutcome<{ disputeId: string }>> {
    try {
      const updated = await this.stripe.disputes.update(
        request.disputeId,
        { evidence: { uncategorized_text: request.text }, submit: true },
        { idempotencyKey: requestKey(request.idempotencyKey) },
      );
      return { status: 'succeeded', value: { disputeId: updated.id } };
    } catch (error) {
      // Closed, already submitted, unknown: Stripe's refusal of this dispute, not a failure of the gateway.
      if (error instanceof Stripe.errors.StripeInvalidRequestError) return declined('evidence_refused', error.message);
      throw error;
    }
  }
}
