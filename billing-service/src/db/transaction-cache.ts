import type { Db, Queryable } from './database.js';

/*
 * Reads kept for the rest of one transaction: a write that needs the same row or value several
 * times (an activation emits the customer's and the invoice's events to the same webhook endpoints)
 * reads it once. Keyed by the transaction object itself, so the cache ends with the transaction; a
 * statement that already returned the value (a combined write selecting it) may put it in. Outside
 * a transaction nothing is kept: every read is fresh, unless the handle is a read scope (readScope).
 */

const cachesByTransaction = new WeakMap<Queryable, Map<string, Promise<unknown>>>();
const readScopes = new WeakSet<Queryable>();

/** Whether reads through this handle are kept: an open transaction, or a read scope. */
const keepsReads = (db: Queryable) => db.isTransaction || readScopes.has(db);

/**
 * A handle on the same database (the same pool and plugins) whose reads are kept like a
 * transaction's, until the handle is dropped: for one request that reads a row in several steps
 * without a transaction around them (a card capture: the CAPTCHA's statement reads the customer, then
 * the capture token's check, the amount's currency and the card's validation use it). Keep it to one
 * request: a kept row is as old as the request. Transactions begun on it keep their own reads.
 */
export function readScope(db: Db): Db {
  const scoped = db.withTables<Record<never, never>>();
  readScopes.add(scoped);
  return scoped;
}

function cacheOf(trx: Queryable): Map<string, Promise<unknown>> {
  let cache = cachesByTransaction.get(trx);
  if (!cache) {
    cache = new Map();
    cachesByTransaction.set(trx, cache);
  }
  return cache;
}

/** The value under `key` read once in this transaction or read scope (`read` runs on the first call only); elsewhere, `read()`. */
export function readOncePerTransaction<T>(db: Queryable, key: string, read: () => Promise<T>): Promise<T> {
  if (!keepsReads(db)) return read();
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
  if (keepsReads(trx)) cacheOf(trx).set(key, Promise.resolve(value));
}
