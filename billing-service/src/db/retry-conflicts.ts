/** PostgreSQL's deadlock_detected and serialization_failure: the transaction did nothing and may simply run again. */
const RETRYABLE = new Set(['40P01', '40001']);

export function isRetryableConflict(error: unknown): boolean {
  return typeof error === 'object' && error !== null && RETRYABLE.has((error as { code?: unknown }).code as string);
}

/**
 * Runs a transaction again when PostgreSQL broke a deadlock or a serialization conflict by rolling
 * it back (locks are taken in one order by design; this is the net under it): the client never
 * sees a 500 for it. A short random pause lets the other transaction finish first.
 */
export async function retryOnConflict<T>(run: () => Promise<T>, attempts = 6): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (!isRetryableConflict(error) || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}
