import type { Money } from '../money/money.js';
import type { CardBrand } from './card-brand.js';

/**
 * A payment processor. Expected failures (a declined card) are values, not
 * exceptions; an exception means the gateway itself failed (timeout, outage).
 * Card numbers and CVVs pass through here and are never kept or logged.
 */
export interface CardToValidate {
  number: string;
  expirationMonth: number;
  /** Four digits. */
  expirationYear: number;
  cvv: string;
  firstName: string;
  lastName: string;
  postalZip?: string | null;
  /** Risk signals the built-in processing asks for (capture host). */
  risk?: { riskToken: string; clientIp: string; email: string } | null;
  /** The key the processor's calls for this save are made under (a retry saves once); a fresh one when absent. */
  idempotencyKey?: string;
}

export interface ValidatedCard {
  token: string;
  brand: CardBrand;
  lastFour: string;
  gatewayCustomerId: string;
}

export type { CardBrand } from './card-brand.js';

/**
 * What the processor needs before it goes on: the customer authenticates with their bank (3-D Secure)
 * on `challengeUrl` (absolute, or a path on the card-capture host, as the sandbox's is) until `expiresAt`.
 */
export interface GatewayAction {
  id: string;
  challengeUrl: string;
  expiresAt: Date;
}

export type Succeeded<T> = { status: 'succeeded'; value: T };
/** `code`: the processor's decline code (card_declined, insufficient_funds, authentication_failed, …). */
export type Declined = { status: 'declined'; code: string; message: string };
export type RequiresAction = { status: 'requiresAction'; action: GatewayAction };
/** A refund's outcome: done or refused, never waiting for the customer. */
export type SettledOutcome<T> = Succeeded<T> | Declined;
/** A card save's or a charge's outcome: it may wait for the customer's authentication. */
export type GatewayOutcome<T> = SettledOutcome<T> | RequiresAction;

/** A charge. `offSession`: merchant-initiated (a renewal, the API), the customer absent; on-session: the customer is there (capture, portal). */
export interface ChargeRequest {
  token: string;
  amount: Money;
  currency: string;
  idempotencyKey: string;
  offSession: boolean;
  /** The completed authentication this charge is the payment of (a capture's challenge that also authorised its first payment). */
  authenticatedBy?: string;
}

/**
 * An asynchronous event from the processor, in Renew's words (adapter-specific payloads stay in the adapter).
 * `eventId` is the processor's own id of the event: ingesting one twice changes nothing. `transactionId` is
 * the charge's id as `charge` answered it.
 */
export type GatewayEvent =
  | {
      kind: 'disputeOpened';
      eventId: string;
      disputeId: string;
      transactionId: string;
      amount: Money;
      currency: string;
      /** The processor's reason (fraudulent, product_not_received, …). */
      reason: string;
      evidenceDueAt: Date | null;
      /** What the processor charges the merchant for the dispute; null when it does not say. */
      fee: Money | null;
    }
  | {
      kind: 'disputeClosed';
      eventId: string;
      disputeId: string;
      transactionId: string;
      outcome: 'won' | 'lost';
    };

/**
 * The port every processor's adapter implements (README "Payment gateways"). A card is saved for
 * later off-session charges (the processor keeps the mandate when the customer authenticated);
 * charges name whether the customer is present. Idempotency keys go to the processor on every
 * money-moving call.
 */
export interface PaymentGateway {
  readonly name: string;
  /**
   * Where its 3-D Secure pages come from, for the frames that show them (CSP `frame-src` sources beside the capture
   * host itself, which serves the sandbox's issuer page and processors' return pages). Unset: `https:`.
   */
  readonly challengeFrameSources?: readonly string[];
  /** Saves the card for off-session use; its bank may first ask the customer to authenticate (`requiresAction`). */
  validateCard(card: CardToValidate, signal: AbortSignal): Promise<GatewayOutcome<ValidatedCard>>;
  /**
   * Where a card save that asked for authentication stands now: `requiresAction` (the same action) while
   * the customer has not answered, then succeeded or declined (authentication_failed, _expired).
   */
  resumeCardValidation(actionId: string, signal: AbortSignal): Promise<GatewayOutcome<ValidatedCard>>;
  charge(request: ChargeRequest, signal: AbortSignal): Promise<GatewayOutcome<{ transactionId: string }>>;
  /**
   * Pays back `amount` of a charge (all of it or a part). A refusal (the processor's code) is an outcome;
   * a retry with one idempotency key refunds once.
   */
  refund(
    request: { transactionId: string; amount: Money; currency: string; idempotencyKey: string },
    signal: AbortSignal,
  ): Promise<SettledOutcome<{ refundId: string }>>;
  /**
   * The refund made (or refused) under this idempotency key, as `refund` answered it; null when the
   * gateway never received one (settles a refund whose answer was lost in a crash). `transactionId`: the
   * charge it was asked against, for a processor that finds refunds only through their charge (Stripe).
   */
  findRefund(idempotencyKey: string, signal: AbortSignal, transactionId?: string): Promise<SettledOutcome<{ refundId: string }> | null>;
  /**
   * Events the processor holds for Renew to fetch (the sandbox's disputes); a processor that pushes its
   * events to a webhook (Stripe) answers none here. A worker fetches them on every instance, ingests each
   * (idempotent on `eventId`), then acknowledges them: an event fetched twice is ingested once.
   */
  dueEvents(limit: number, signal: AbortSignal): Promise<GatewayEvent[]>;
  acknowledgeEvents(eventIds: string[], signal: AbortSignal): Promise<void>;
  /**
   * The merchant's evidence on a dispute (Stripe: the dispute's `evidence`, submitted). The processor decides
   * later and says so with a disputeClosed event; a closed dispute takes none (declined `dispute_closed`).
   */
  submitDisputeEvidence(
    request: { disputeId: string; text: string; idempotencyKey: string },
    signal: AbortSignal,
  ): Promise<SettledOutcome<{ disputeId: string }>>;
}

/**
 * The key a gateway call is made under: the caller's own key (a client's Idempotency-Key, a bulk
 * record's, a refund's), namespaced by account so two accounts' keys never meet at the processor.
 */
export function gatewayIdempotencyKey(accountId: number, key: string): string {
  return `acct_${accountId}:${key}`;
}

/** The gateway did not answer in time or failed: the client sees 502/504, never a hang. */
export class GatewayUnavailableError extends Error {
  constructor(
    message: string,
    readonly timedOut: boolean,
  ) {
    super(message);
  }
}

/** Runs a gateway call with a deadline; the gateway gets an AbortSignal it may honour. */
export async function withGatewayTimeout<T>(timeoutMs: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new GatewayUnavailableError(`the payment gateway did not answer within ${timeoutMs} ms`, true));
    }, timeoutMs);
  });
  try {
    return await Promise.race([call(controller.signal), deadline]);
  } catch (error) {
    if (error instanceof GatewayUnavailableError) throw error;
    throw new GatewayUnavailableError(`the payment gateway failed: ${(error as Error).message}`, false);
  } finally {
    clearTimeout(timer);
  }
}
