import type { Selectable } from 'kysely';
import type { Queryable } from '../db/database.js';
import type { SandboxAuthenticationsTable } from '../db/schema.js';

export type SandboxAuthenticationRow = Selectable<SandboxAuthenticationsTable>;

/** The sandbox issuer's challenges (3-D Secure): one row per card save that asked for authentication. */
export async function insertSandboxAuthentication(
  db: Queryable,
  row: Omit<SandboxAuthenticationRow, 'status' | 'decidedAt' | 'createdAt'>,
): Promise<void> {
  await db.insertInto('sandboxAuthentications').values(row).execute();
}

export function findSandboxAuthentication(db: Queryable, id: string): Promise<SandboxAuthenticationRow | undefined> {
  return db.selectFrom('sandboxAuthentications').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The customer's answer on the challenge page: only a Pending, unexpired challenge takes one (the first answer stands). */
export async function decideSandboxAuthentication(db: Queryable, id: string, status: 'Succeeded' | 'Failed', now: Date): Promise<boolean> {
  const decided = await db
    .updateTable('sandboxAuthentications')
    .set({ status, decidedAt: now })
    .where('id', '=', id)
    .where('status', '=', 'Pending')
    .where('expiresAt', '>', now)
    .executeTakeFirst();
  return decided.numUpdatedRows > 0n;
}
