import type { Account, SavedAnswer } from './account.js';
import { idempotencyFailure, invalidRequest } from './errors.js';

/** Stripe keeps keys at least 24 hours, then a key may be reused. */
const KEEP_MS = 24 * 60 * 60 * 1000;

/**
 * Stripe's idempotency layer (https://docs.stripe.com/api/idempotent_requests), per account (keys of one secret key
 * are not seen by another): the same key with the same endpoint and parameters replays the saved answer, status
 * included; with other parameters or another endpoint it is an `idempotency_error`.
 */
export function savedAnswer(account: Account, key: string, endpoint: string, parameters: string): SavedAnswer | undefined {
  if (key.length > 255) throw invalidRequest('Idempotency-Key must be at most 255 characters long.', undefined, undefined);
  const saved = account.idempotent.get(key);
  if (!saved) return undefined;
  if (Date.now() - saved.savedAt > KEEP_MS) {
    account.idempotent.delete(key);
    return undefined;
  }
  if (saved.endpoint !== endpoint) {
    throw idempotencyFailure(
      `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${saved.endpoint}' vs '${endpoint}'). Try using a key other than '${key}' if you meant to execute a different request.`,
    );
  }
  if (saved.parameters !== parameters) {
    throw idempotencyFailure(
      `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
    );
  }
  return saved;
}

export function saveAnswer(account: Account, key: string, answer: Omit<SavedAnswer, 'savedAt'>): void {
  account.idempotent.set(key, { ...answer, savedAt: Date.now() });
}
