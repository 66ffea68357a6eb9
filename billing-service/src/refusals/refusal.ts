import { API_ERROR_KEY, type ErrorCode, type ErrorItem } from './error-codes.js';

/**
 * What kind of refusal a service made; the HTTP layer answers each with its status (http/errors.ts
 * `REFUSAL_STATUS`). A caller inside the services branches on the kind or on an item's `Code`, never
 * on the English text.
 */
export type RefusalKind =
  | 'invalid'
  | 'unauthenticated'
  | 'declined'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'gateway_failed'
  | 'gateway_timed_out';

/**
 * A request a service refuses (a decline, a rule, a missing row, an unreachable gateway): a typed
 * domain error, free of HTTP, carrying the error items the spec's error body lists (`Key`, `Value`,
 * and the stable `Code` when the refusal has one). Thrown by the services; the HTTP layer maps it to
 * the error body, and a service that expects it (a bulk record, the billing clock) catches this type.
 */
export class Refusal extends Error {
  constructor(
    readonly kind: RefusalKind,
    readonly errors: ErrorItem[],
  ) {
    super(errors.map((e) => `${e.Key}: ${e.Value}`).join('; '));
  }

  /**
   * The request breaks a rule (`key`: the field at fault; `code`: the specific code when one fits,
   * else value_required, value_invalid, value_taken or another generic one).
   */
  static invalid(message: string, key: string, code: ErrorCode): Refusal;
  static invalid(message: string, key: string, code: ErrorCode) {
    return new Refusal('invalid', [item(key, message, code)]);
  }
  /** Carries not_found. */
  static notFound(what: string, id: number | string) {
    return new Refusal('not_found', [item(API_ERROR_KEY, `${what} with id ${id} not found`, 'not_found')]);
  }
  /** The request is fine but the state it meets is not (a Draft moved on, a default card appeared); generic code state_conflict. */
  static conflict(message: string, key: string, code: ErrorCode): Refusal;
  static conflict(message: string, key: string, code: ErrorCode) {
    return new Refusal('conflict', [item(key, message, code)]);
  }
  /** Carries unauthenticated. */
  static unauthenticated(message: string) {
    return new Refusal('unauthenticated', [item(API_ERROR_KEY, message, 'unauthenticated')]);
  }

  /** Whether any item carries this code. */
  hasCode(code: ErrorCode): boolean {
    return this.errors.some((e) => e.Code === code);
  }

  /** The gateway could not be reached or did not answer in time: nothing the request did wrong. */
  get byGateway(): boolean {
    return this.kind === 'gateway_failed' || this.kind === 'gateway_timed_out';
  }
}

/** One error item. */
export function item(key: string, message: string, code: ErrorCode): ErrorItem {
  return { Key: key, Value: message, Code: code };
}
