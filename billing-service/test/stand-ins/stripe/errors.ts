/**
 * Stripe's error object (https://docs.stripe.com/api/errors): `{ error: { type, code, decline_code, message, param,
 * doc_url, payment_intent, setup_intent, payment_method, charge } }` with the HTTP status Stripe documents: 400 bad
 * request, 401 no valid key, 402 the parameters were valid but the request failed (card errors), 404 missing resource.
 */

export type StripeErrorType = 'api_error' | 'card_error' | 'idempotency_error' | 'invalid_request_error';

export interface StripeErrorBody {
  type: StripeErrorType;
  message: string;
  code?: string;
  decline_code?: string;
  param?: string;
  doc_url?: string;
  charge?: string;
  payment_intent?: object;
  setup_intent?: object;
  payment_method?: object;
}

/** A refusal in Stripe's shape. `remembered` is false where Stripe's idempotency layer saves no result (see README). */
export class StripeFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: StripeErrorBody,
    readonly remembered = true,
  ) {
    super(body.message);
  }
}

/** The page Stripe links from each error code. */
export function docUrl(code: string): string {
  return `https://docs.stripe.com/error-codes/${code.replace(/_/g, '-')}`;
}

function withDocs(body: StripeErrorBody): StripeErrorBody {
  return body.code ? { ...body, doc_url: docUrl(body.code) } : body;
}

export function invalidRequest(message: string, code?: string, param?: string, status = 400): StripeFailure {
  return new StripeFailure(status, withDocs({ type: 'invalid_request_error', message, code, param }));
}

/** A parameter that fails validation: Stripe never started the operation, so nothing is saved under the key. */
export function invalidParameter(param: string, message: string, code = 'parameter_invalid'): StripeFailure {
  return new StripeFailure(400, withDocs({ type: 'invalid_request_error', message, code, param }), false);
}

export function missingParameter(param: string): StripeFailure {
  return invalidParameter(param, `Missing required param: ${param}.`, 'parameter_missing');
}

export function unknownParameter(param: string): StripeFailure {
  return invalidParameter(param, `Received unknown parameter: ${param}`, 'parameter_unknown');
}

export function resourceMissing(label: string, id: string, param = 'id'): StripeFailure {
  return invalidRequest(`No such ${label}: '${id}'`, 'resource_missing', param, 404);
}

export function unrecognizedUrl(method: string, path: string): StripeFailure {
  const message = `Unrecognized request URL (${method}: ${path}). Please see https://docs.stripe.com or we can help at https://support.stripe.com/.`;
  return new StripeFailure(404, { type: 'invalid_request_error', message }, false);
}

export function authenticationFailure(message: string): StripeFailure {
  return new StripeFailure(401, { type: 'invalid_request_error', message }, false);
}

export function idempotencyFailure(message: string): StripeFailure {
  return new StripeFailure(400, { type: 'idempotency_error', message }, false);
}

/** What a card network answered: the fields of `last_payment_error` / `last_setup_error` and of the 402 error. */
export interface Decline {
  code: string;
  decline_code?: string;
  message: string;
  param?: string;
}

export function cardFailure(
  decline: Decline,
  related: Pick<StripeErrorBody, 'charge' | 'payment_intent' | 'setup_intent' | 'payment_method'>,
) {
  return new StripeFailure(402, withDocs({ type: 'card_error', ...decline, ...related }));
}

export function unknownFailure(): StripeFailure {
  return new StripeFailure(500, { type: 'api_error', message: 'An unknown error occurred' }, false);
}
