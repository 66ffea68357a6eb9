import { setTimeout as sleep } from 'node:timers/promises';
import type { Db, Tx } from './database.js';

/** SQLSTATEs after which PostgreSQL has rolled the transaction back and running it again may succeed. */
const RETRYABLE_CONFLICTS = new Set(['40P01', '40001']); // deadlock_detected, serialization_failure

/** Whether an error is a deadlock or a serialization failure (on the error or, wrapped, on its cause). */
export function isRetryableConflict(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && RETRYABLE_CONFLICTS.has(code)) return true;
  }
  return false;
}

export interface ConflictRetryOptions {
  /** Runs in all, the first included (default 5). */
  attempts?: number;
  /** The first pause's upper bound; each later one doubles (default 5 ms). Jittered so that the two sides of a deadlock do not meet again. */
  baseDelayMs?: number;
  /** Told of each conflict that is retried (a log line, a metric). */
  onRetry?: (error: unknown, attempt: number) => void;
}

/**
 * Runs `work` again after a deadlock or serialization failure, a few times with a short
 * jittered pause. `work` must be safe to run twice: its database writes are rolled back
 * with the failed attempt, so only effects outside the database (a gateway call) are not.
 */
export async function retryOnConflict<T>(work: () => Promise<T>, options: ConflictRetryOptions = {}): Promise<T> {
  const attempts = options.attempts ?? 5;
  const baseDelayMs = options.baseDelayMs ?? 5;
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !isRetryableConflict(error)) throw error;
      options.onRetry?.(error, attempt);
      await sleep(Math.random() * baseDelayMs * 2 ** (attempt - 1));
    }
  }
}

/**
 * `db.transaction().execute(fn)`, run again (a new transaction) after a deadlock or
 * serialization failure. Only for callbacks that touch nothing but the database.
 */
export function transactionWithRetry<T>(db: Db, fn: (trx: Tx) => Promise<T>, options?: ConflictRetryOptions): Promise<T> {
  return retryOnConflict(() => db.transaction().execute(fn), options);
}
