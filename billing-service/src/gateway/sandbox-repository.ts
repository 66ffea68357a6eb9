import type { Selectable } from 'kysely';
import type { Queryable } from '../db/database.js';
import type { SandboxGatewayOperationsTable } from '../db/schema.js';

export type SandboxOperationRow = Selectable<SandboxGatewayOperationsTable>;
type NewOperation = Omit<SandboxOperationRow, 'createdAt'>;

/**
 * Records an operation under its key unless one is there: the first one wins, whichever process
 * wrote it, and is returned (so a retry gets the first answer and nothing moves twice).
 */
export async function recordOperationOnce(db: Queryable, operation: NewOperation): Promise<SandboxOperationRow> {
  const inserted = await db
    .insertInto('sandboxGatewayOperations')
    .values(operation)
    .onConflict((oc) => oc.columns(['kind', 'idempotencyKey']).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return inserted;
  const earlier = await findOperation(db, operation.kind, operation.idempotencyKey);
  if (!earlier) throw new Error('sandbox gateway: an operation both present and absent under one key');
  return earlier;
}

export function findOperation(
  db: Queryable,
  kind: SandboxOperationRow['kind'],
  idempotencyKey: string,
): Promise<SandboxOperationRow | undefined> {
  return db
    .selectFrom('sandboxGatewayOperations')
    .selectAll()
    .where('kind', '=', kind)
    .where('idempotencyKey', '=', idempotencyKey)
    .executeTakeFirst();
}
