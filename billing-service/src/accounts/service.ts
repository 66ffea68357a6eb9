import { sql } from 'kysely';
import type { Catalog } from '../catalog/schema.js';
import type { Db, Queryable } from '../db/database.js';
import { generateApiKey, hashApiKey, hashesEqual } from './api-keys.js';
import { countAccounts, findAccountByKeyHash, insertAccount, type Account, type AccountWithKey } from './repository.js';

export interface CreatedAccount {
  account: Account;
  apiKey: string;
  publicApiKey: string;
}

/** Creates an account with the given keys, or fresh random ones. The keys are returned once; only hashes are kept. */
export async function createAccount(
  db: Queryable,
  catalog: Catalog,
  keys: { apiKey?: string; publicApiKey?: string } = {},
): Promise<CreatedAccount> {
  const apiKey = keys.apiKey ?? generateApiKey('sk');
  const publicApiKey = keys.publicApiKey ?? generateApiKey('pk');
  const account = await insertAccount(db, {
    name: catalog.account.name,
    privateKeyHash: hashApiKey(apiKey),
    publicKeyHash: hashApiKey(publicApiKey),
    rateLimitPerMinute: catalog.rateLimits.perMinute,
    rateLimitPerDay: catalog.rateLimits.perDay,
  });
  return { account, apiKey, publicApiKey };
}

/**
 * On first start (no account yet) creates the default account. Several instances
 * may start together on one PostgreSQL: an advisory lock makes exactly one create it.
 */
export async function ensureDefaultAccount(
  db: Db,
  catalog: Catalog,
  keys: { apiKey?: string; publicApiKey?: string },
): Promise<CreatedAccount | undefined> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(724001)`.execute(trx);
    if ((await countAccounts(trx)) > 0) return undefined;
    return createAccount(trx, catalog, keys);
  });
}

/**
 * The account an API key belongs to, found by the key's hash (hashApiKey), and
 * which of its two keys it is (`keyKind`); undefined for an unknown key.
 */
export async function accountForKeyHash(db: Queryable, keyHash: string): Promise<AccountWithKey | undefined> {
  const account = await findAccountByKeyHash(db, keyHash);
  if (!account) return undefined;
  const stored = account.keyKind === 'private' ? account.privateKeyHash : account.publicKeyHash;
  return hashesEqual(stored, keyHash) ? account : undefined;
}
