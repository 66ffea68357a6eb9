import type { Queryable } from '../db/database.js';

export interface Account {
  id: number;
  name: string;
  rateLimitPerMinute: number;
  rateLimitPerDay: number;
}

export type KeyKind = 'private' | 'public';

export interface AccountWithKey extends Account {
  keyKind: KeyKind;
  privateKeyHash: string;
  publicKeyHash: string;
}

export async function findAccountByKeyHash(db: Queryable, keyHash: string): Promise<AccountWithKey | undefined> {
  const row = await db
    .selectFrom('accounts')
    .select(['id', 'name', 'rateLimitPerMinute', 'rateLimitPerDay', 'privateKeyHash', 'publicKeyHash'])
    .where((eb) => eb.or([eb('privateKeyHash', '=', keyHash), eb('publicKeyHash', '=', keyHash)]))
    .executeTakeFirst();
  if (!row) return undefined;
  return { ...row, keyKind: row.privateKeyHash === keyHash ? 'private' : 'public' };
}

export async function countAccounts(db: Queryable): Promise<number> {
  const row = await db.selectFrom('accounts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertAccount(
  db: Queryable,
  account: { name: string; privateKeyHash: string; publicKeyHash: string; rateLimitPerMinute: number; rateLimitPerDay: number },
): Promise<Account> {
  return db
    .insertInto('accounts')
    .values(account)
    .returning(['id', 'name', 'rateLimitPerMinute', 'rateLimitPerDay'])
    .executeTakeFirstOrThrow();
}
