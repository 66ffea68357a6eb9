import { sql, type QueryCreator } from 'kysely';
import type { Queryable } from '../db/database.js';
import type { Database } from '../db/schema.js';

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
  const row = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
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

/**
 * Takes the account's next invoice number (the row lock orders concurrent postings), as a piece of
 * the invoice insert's combined statement: returns `number`.
 */
export function takeInvoiceNumber(qc: QueryCreator<Database>, accountId: number) {
  return qc
    .updateTable('accounts')
    .set({ nextInvoiceNumber: sql`next_invoice_number + 1` })
    .where('id', '=', accountId)
    .returning(sql<number>`next_invoice_number - 1`.as('number'));
}

/** The account's next credit note number (issue 40), taken under the account row's lock as invoice numbers are. */
export async function takeCreditNoteNumber(db: Queryable, accountId: number): Promise<number> {
  const row = await db
    .updateTable('accounts')
    .set({ nextCreditNoteNumber: sql`next_credit_note_number + 1` })
    .where('id', '=', accountId)
    .returning(sql<number>`next_credit_note_number - 1`.as('number'))
    .executeTakeFirstOrThrow();
  return Number(row.number);
}

export function findAccount(db: Queryable, id: number): Promise<Account | undefined> {
  return db.selectFrom('accounts').select(['id', 'name', 'rateLimitPerMinute', 'rateLimitPerDay']).where('id', '=', id).executeTakeFirst();
}

/** The default account: the first one created (`npm start` creates it). */
export function findFirstAccount(db: Queryable): Promise<Account | undefined> {
  return db
    .selectFrom('accounts')
    .select(['id', 'name', 'rateLimitPerMinute', 'rateLimitPerDay'])
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}

export interface KeyRotations {
  privateKeyRotatedAt: Date | null;
  publicKeyRotatedAt: Date | null;
}

/** When each of the account's two keys was last rolled (null: never). */
export function findKeyRotations(db: Queryable, accountId: number): Promise<KeyRotations | undefined> {
  return db.selectFrom('accounts').select(['privateKeyRotatedAt', 'publicKeyRotatedAt']).where('id', '=', accountId).executeTakeFirst();
}

/** Replaces one key's hash (the old key stops matching at once) and stamps when; one statement. */
export async function replaceKeyHash(db: Queryable, accountId: number, kind: KeyKind, keyHash: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('accounts')
    .set(kind === 'private' ? { privateKeyHash: keyHash, privateKeyRotatedAt: now } : { publicKeyHash: keyHash, publicKeyRotatedAt: now })
    .where('id', '=', accountId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
