import { recordChange } from '../audit/audit-log.js';
import { wallClockNow } from '../clock/account-clock.js';
import type { Db, Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import { Refusal } from '../refusals/refusal.js';
import { generateApiKey, hashApiKey } from '../accounts/api-keys.js';
import { findKeyRotations, replaceKeyHash, type KeyKind } from '../accounts/repository.js';

/*
 * Rolling an account's API keys (the console's owners). In the console (wiring) rather than accounts/: it is
 * audited, and the audit log sits above accounts; the write itself is the accounts repository's (its table).
 */
/** The account's two keys: their kinds and when each was last rolled (nothing secret: only hashes are kept). */
export async function describeApiKeys(db: Queryable, accountId: number): Promise<Array<{ kind: KeyKind; rotatedAt: string | null }>> {
  const rotations = await findKeyRotations(db, accountId);
  if (!rotations) throw Refusal.notFound('account', accountId);
  return [
    { kind: 'private', rotatedAt: rotations.privateKeyRotatedAt?.toISOString() ?? null },
    { kind: 'public', rotatedAt: rotations.publicKeyRotatedAt?.toISOString() ?? null },
  ];
}

/**
 * Rolls one of the caller's account's keys: a fresh key whose hash replaces the old one (which stops matching at once
 * in the database; API-key caches hold it up to 30 s), audited in the same transaction. The key is returned once.
 */
export async function rotateApiKey(db: Db, caller: Caller, kind: KeyKind): Promise<{ kind: KeyKind; key: string; rotatedAt: string }> {
  const key = generateApiKey(kind === 'private' ? 'sk' : 'pk');
  // Key rotation is a real-world event: the wall clock, not the account's billing clock.
  const now = wallClockNow();
  await db.transaction().execute(async (trx) => {
    const before = await findKeyRotations(trx, caller.accountId);
    if (!before || !(await replaceKeyHash(trx, caller.accountId, kind, hashApiKey(key), now)))
      throw Refusal.notFound('account', caller.accountId);
    const field = kind === 'private' ? 'privateKeyRotatedAt' : 'publicKeyRotatedAt';
    await recordChange(trx, caller, {
      entityType: 'Account',
      entityId: caller.accountId,
      action: 'update',
      changes: { [field]: [before[field]?.toISOString() ?? null, now.toISOString()] },
    });
  });
  return { kind, key, rotatedAt: now.toISOString() };
}
