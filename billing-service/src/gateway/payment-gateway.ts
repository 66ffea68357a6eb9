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
}

export interface ValidatedCard {
  token: string;
  brand: CardBrand;
  lastFour: string;
  gatewayCustomerId: string;
}

export type { CardBrand } from './card-brand.js';

export type GatewayOutcome<T> = { ok: true; value: T } | { ok: false; code: string; message: string };

export interface PaymentGateway {
  readonly name: string;
  validateCard(card: CardToValidate, signal: AbortSignal): Promise<GatewayOutcome<ValidatedCard>>;
  charge(
    request: { token: string; amount: Money; currency: string; idempotencyKey: string },
    signal: AbortSignal,
  ): Promise<GatewayOutcome<{ transactionId: string }>>;
  /**
   * Pays back `amount` of a charge (all of it or a part). A refusal (the processor's code) is an outcome;
   * a retry with one idempotency key refunds once.
   */
  refund(
    request: { transactionId: string; amount: Money; currency: string; idempotencyKey: string },
    signal: AbortSignal,
  ): Promise<GatewayOutcome<{ refundId: string }>>;
  /**
   * The refund made (or refused) under this idempotency key, as `refund` answered it; null when the
   * gateway never received one (settles a refund whose answer was lost in a crash).
   */
  findRefund(idempotencyKey: string, signal: AbortSignal): Promise<GatewayOutcome<{ refundId: string }> | null>;
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
