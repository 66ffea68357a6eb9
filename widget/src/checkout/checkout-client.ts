import type {
  CheckoutConfig,
  CompletedCheckout,
  CountryOption,
  ErrorResponse,
  OrderChoice,
  OrderSummary,
  PlanOption,
  ShopperDetails,
  StartedCheckout,
} from '../checkout-contract.js';
import { SESSION_HEADER } from '../checkout-contract.js';

/** Expected failures are values, not exceptions: a declined card is part of checkout. */
export type Result<T> = { ok: true; value: T } | { ok: false; status: number; errors: ErrorResponse['Errors'] };

export interface CardDetails {
  cardNumber: string;
  firstName: string;
  lastName: string;
  expirationMonth: number;
  expirationYear: number;
  cvv: string;
}

/** Everything the checkout sends over the network: to the merchant's proxy, and the card to the capture host. */
export class CheckoutClient {
  constructor(private readonly proxyUrl: string) {}

  config = () => this.proxy<CheckoutConfig>('GET', '/config');
  plans = () => this.proxy<PlanOption[]>('GET', '/plans');
  countries = () => this.proxy<CountryOption[]>('GET', '/countries');
  startCheckout = (details: ShopperDetails) => this.proxy<StartedCheckout>('POST', '/customers', details);
  /** Steps 4-5; again with other quantities or another coupon: the new preview. */
  subscribe = (started: StartedCheckout, choice: OrderChoice) =>
    this.proxy<OrderSummary>('POST', `/customers/${started.customerId}/subscriptions`, choice, started.session);
  activate = (started: StartedCheckout) =>
    this.proxy<CompletedCheckout>('POST', `/customers/${started.customerId}/activation`, {}, started.session);
  /** After step 8: one of the customer's invoices as a PDF. */
  invoicePdf = (started: StartedCheckout, invoiceId: number) =>
    send<Blob>(
      'GET',
      `${this.proxyUrl.replace(/\/$/, '')}/customers/${started.customerId}/invoices/${invoiceId}/pdf`,
      undefined,
      { [SESSION_HEADER]: started.session },
      'blob',
    );

  /** Steps 6-7: the card goes straight to the capture host, with the first payment when there is one. */
  async captureCard(
    config: CheckoutConfig,
    request: {
      customerId: number;
      captureToken: string;
      card: CardDetails;
      recaptcha: string;
      riskToken: string;
      email: string;
      collectionAmount: string | null;
    },
  ) {
    const body = {
      customerId: request.customerId,
      publicApiKey: config.publicApiKey,
      captureToken: request.captureToken,
      ...request.card,
      recaptcha: request.recaptcha,
      riskToken: request.riskToken,
      clientIp: config.clientIp,
      email: request.email,
      makeDefault: true,
      ...(request.collectionAmount ? { paymentCollectOptions: { collectionAmount: request.collectionAmount } } : {}),
    };
    const result = await send<{ id: number | string; maskedCardNumber?: string; challengeUrl?: string }>(
      'POST',
      `${config.captureUrl.replace(/\/$/, '')}/api/paymentsv2`,
      body,
    );
    return capturedOrChallenge(result);
  }

  /** After the bank's challenge: the capture stored and its first payment taken, or the refusal (authentication_failed). */
  async completeAuthentication(config: CheckoutConfig, id: string): Promise<Result<CapturedCard>> {
    const url = `${config.captureUrl.replace(/\/$/, '')}/api/paymentsv2/authentications/${encodeURIComponent(id)}`;
    const result = await send<{ id: number | string; maskedCardNumber?: string; challengeUrl?: string }>('POST', url, {});
    return capturedOrChallenge(result);
  }

  private proxy<T>(method: string, path: string, body?: unknown, session?: string) {
    return send<T>(method, `${this.proxyUrl.replace(/\/$/, '')}${path}`, body, session ? { [SESSION_HEADER]: session } : {});
  }
}

/** A capture's answer: the card stored, or (202) the bank's challenge the shopper answers first. */
export type CapturedCard = { id: number; maskedCardNumber: string } | { authentication: { id: string; challengeUrl: string } };

/** The card stored, or (202) the bank's 3-D Secure challenge: answered, then completeAuthentication (README "3-D Secure"). */
function capturedOrChallenge(
  result: Result<{ id: number | string; maskedCardNumber?: string; challengeUrl?: string }>,
): Result<CapturedCard> {
  if (!result.ok || typeof result.value.id === 'number') return result as Result<CapturedCard>;
  return { ok: true, value: { authentication: { id: result.value.id, challengeUrl: result.value.challengeUrl ?? '' } } };
}

/** `as`: how a successful answer is read (JSON, or a file as a Blob); a refusal is always the spec's JSON error body. */
async function send<T>(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
  as: 'json' | 'blob' = 'json',
): Promise<Result<T>> {
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    return {
      ok: false,
      status: 0,
      errors: [{ Key: 'Api Error', Value: 'network error: check your connection and try again', Code: 'network_error' }],
    };
  }
  if (response.ok && as === 'blob') {
    const file = await response.blob().catch(() => undefined);
    if (file) return { ok: true, value: file as T };
    return {
      ok: false,
      status: 0,
      errors: [{ Key: 'Api Error', Value: 'network error: check your connection and try again', Code: 'network_error' }],
    };
  }
  const data = await response.json().catch(() => undefined);
  if (response.ok) return { ok: true, value: data as T };
  const errors = (data as ErrorResponse | undefined)?.Errors;
  return {
    ok: false,
    status: response.status,
    errors: Array.isArray(errors) ? errors : [{ Key: 'Api Error', Value: `request failed (${response.status})`, Code: 'internal_error' }],
  };
}
