import type { Queryable } from './database.js';

/*
 * Reads kept for the rest of one transaction: a write that needs the same row or value several
 * times (an activation emits the customer's and the invoice's events to the same webhook endpoints)
 * reads it once. Keyed by the transaction object itself, so the cache ends with the transaction; a
 * statement that already returned the value (a combined write selecting it) may put it in. Outside
 * a transaction nothing is kept: every read is fresh.
 */

const cachesByTransaction = new WeakMap<Queryable, Map<string, Promise<unknown>>>();

function cacheOf(trx: Queryable): Map<string, Promise<unknown>> {
  let cache = cachesByTransaction.get(trx);
  if (!cache) {
    cache = new Map();
    cachesByTransaction.set(trx, cache);
  }
  return cache;
}

/** The value under `key` read once in this transaction (`read` runs on the first call only); outside a transaction, `read()`. */
export function readOncePerTransaction<T>(db: Queryable, key: string, read: () => Promise<T>): Promise<T> {
  if (!db.isTransaction) return read();
  const cache = cacheOf(db);
  let value = cache.get(key) as Promise<T> | undefined;
  if (!value) {
    value = read();
    cache.set(key, value);
  }
  return value;
}

/** A value this transaction already has (a statement returned it): later readOncePerTransaction calls get it without a read. */
export function rememberInTransaction<T>(trx: Queryable, key: string, value: T): void {
  if (trx.isTransaction) cacheOf(trx).set(key, Promise.resolve(value));
}
