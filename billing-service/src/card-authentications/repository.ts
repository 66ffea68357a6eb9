import type { Selectable } from 'kysely';
import type { Queryable } from '../db/database.js';
import type { CardAuthenticationsTable } from '../db/schema.js';

export type CardAuthenticationRow = Selectable<CardAuthenticationsTable>;
type NewCardAuthentication = Omit<
  CardAuthenticationRow,
  | 'id'
  | 'status'
  | 'claimToken'
  | 'claimedUntil'
  | 'paymentMethodId'
  | 'paymentId'
  | 'declineCode'
  | 'createdAt'
  | 'completedAt'
  | 'card'
  | 'mayNotMoveDefault'
  | 'paymentActionId'
> & { card: string; mayNotMoveDefault: string | null };

export async function insertCardAuthentication(db: Queryable, row: NewCardAuthentication): Promise<void> {
  await db.insertInto('cardAuthentications').values(row).execute();
}

export function findCardAuthentication(db: Queryable, publicId: string): Promise<CardAuthenticationRow | undefined> {
  return db.selectFrom('cardAuthentications').selectAll().where('publicId', '=', publicId).executeTakeFirst();
}

/**
 * Takes a waiting authentication for completion: a Pending one, or a Completing one whose holder's lease
 * ran out (it froze or died). The claim token fences every later write of this holder.
 */
export function claimCardAuthentication(
  db: Queryable,
  publicId: string,
  claim: { token: string; now: Date; until: Date },
): Promise<CardAuthenticationRow | undefined> {
  return db
    .updateTable('cardAuthentications')
    .set({ status: 'Completing', claimToken: claim.token, claimedUntil: claim.until })
    .where('publicId', '=', publicId)
    .where((eb) => eb.or([eb('status', '=', 'Pending'), eb.and([eb('status', '=', 'Completing'), eb('claimedUntil', '<=', claim.now)])]))
    .returningAll()
    .executeTakeFirst();
}

/** The claim's outcome, written only by the claim that still holds it (false: taken over meanwhile). */
export async function settleCardAuthentication(
  db: Queryable,
  claim: { publicId: string; token: string },
  outcome:
    | { status: 'Succeeded'; paymentMethodId: number | null; paymentId: number | null; now: Date }
    | { status: 'Failed' | 'Expired'; declineCode: string; now: Date }
    | { status: 'Pending'; paymentAction?: { id: string; challengeUrl: string; expiresAt: Date } },
): Promise<boolean> {
  const set =
    outcome.status === 'Pending'
      ? {
          status: outcome.status,
          claimToken: null,
          claimedUntil: null,
          ...(outcome.paymentAction
            ? {
                paymentActionId: outcome.paymentAction.id,
                challengeUrl: outcome.paymentAction.challengeUrl,
                expiresAt: outcome.paymentAction.expiresAt,
              }
            : {}),
        }
      : outcome.status === 'Succeeded'
        ? { status: outcome.status, paymentMethodId: outcome.paymentMethodId, paymentId: outcome.paymentId, completedAt: outcome.now }
        : { status: outcome.status, declineCode: outcome.declineCode, completedAt: outcome.now };
  const result = await db
    .updateTable('cardAuthentications')
    .set(set)
    .where('publicId', '=', claim.publicId)
    .where('status', '=', 'Completing')
    .where('claimToken', '=', claim.token)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
