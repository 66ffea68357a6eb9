import type { Queryable } from '../db/database.js';

export async function insertCaptureToken(
  db: Queryable,
  token: {
    accountId: number;
    customerId: number;
    tokenHash: string;
    maxCollectionAmount: string | null;
    expiresAt: Date;
    portalSessionId?: number | null;
  },
): Promise<void> {
  await db.insertInto('captureTokens').values(token).execute();
}

export function findCaptureToken(db: Queryable, accountId: number, tokenHash: string) {
  return db
    .selectFrom('captureTokens')
    .selectAll()
    .where('accountId', '=', accountId)
    .where('tokenHash', '=', tokenHash)
    .executeTakeFirst();
}

/** Spends a token: false when it was spent (or expired) meanwhile, so two captures with one token store one card. */
export async function spendCaptureToken(db: Queryable, id: number, now: Date): Promise<boolean> {
  const rows = await db
    .updateTable('captureTokens')
    .set({ spentAt: now })
    .where('id', '=', id)
    .where('spentAt', 'is', null)
    .where('expiresAt', '>', now)
    .returning('id')
    .execute();
  return rows.length === 1;
}

/** Gives back a token spent at `spentAt` (that claim's charge did not happen): the shopper may try again. */
export async function unspendCaptureToken(db: Queryable, id: number, spentAt: Date): Promise<void> {
  await db.updateTable('captureTokens').set({ spentAt: null }).where('id', '=', id).where('spentAt', '=', spentAt).execute();
}

/** Tokens a day past their expiry are of no use, even as a record. */
export async function deleteExpiredCaptureTokens(db: Queryable, before: Date): Promise<void> {
  await db.deleteFrom('captureTokens').where('expiresAt', '<', before).execute();
}
