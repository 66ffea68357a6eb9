import type { InsertObject, QueryCreator } from 'kysely';
import type { Caller } from '../http/auth.js';
import type { Database } from '../db/schema.js';
import type { Queryable } from '../db/database.js';
import { insertJsonRows } from '../db/json-rows.js';
import { recordCreated } from '../db/keyed-commit.js';
import { reusableQuery } from '../db/reusable-query.js';

export type AuditAction = 'create' | 'update' | 'delete';

/**
 * Records one change in the audit log, inside the caller's transaction so that
 * the change and its record commit together. `changes` holds the fields that
 * changed as {field: [before, after]} (or the created/deleted values).
 */
export async function recordChange(
  db: Queryable,
  caller: Caller,
  entry: { entityType: string; entityId: number; action: AuditAction; changes: Record<string, unknown> },
): Promise<void> {
  const row = auditEntry(caller, entry);
  if (entry.action === 'create') recordCreated(entry.entityType, entry.entityId);
  await insertAuditEntry(db, row.accountId, row.actor, row.source, row.entityType, entry.entityId, row.action, row.changes);
}

/** Records several changes in one statement (a batch of payments), in the order given. */
export async function recordChanges(
  db: Queryable,
  changes: Array<{
    caller: Caller;
    entry: { entityType: string; entityId: number; action: AuditAction; changes: Record<string, unknown> };
  }>,
): Promise<void> {
  const rows = changes.map(({ caller, entry }) => {
    const row = auditEntry(caller, entry);
    if (entry.action === 'create') recordCreated(entry.entityType, entry.entityId);
    return {
      account_id: row.accountId,
      actor: row.actor,
      source: row.source,
      entity_type: row.entityType,
      entity_id: entry.entityId,
      action: row.action,
      changes: entry.changes,
    };
  });
  await insertJsonRows(
    db,
    'audit_log',
    'account_id integer, actor text, source text, entity_type text, entity_id integer, action text, changes jsonb',
    rows,
  );
}

/** The audit row of a change, for a write that inserts it with other rows in one statement. */
export function auditEntry(caller: Caller, entry: { entityType: string; action: AuditAction; changes: Record<string, unknown> }) {
  return {
    accountId: caller.accountId,
    actor: caller.actor ?? (caller.keyKind === 'system' ? 'system' : `${caller.keyKind} API key`),
    source: caller.auditSource,
    entityType: entry.entityType,
    action: entry.action,
    changes: JSON.stringify(entry.changes),
  };
}

// Every write records one: compiled once (see reusableQuery).
const insertAuditEntry = reusableQuery(
  (
    db: Queryable,
    accountId: number,
    actor: string,
    source: string,
    entityType: string,
    entityId: number,
    action: AuditAction,
    changes: string,
  ) => db.insertInto('auditLog').values({ accountId, actor, source, entityType, entityId, action, changes }),
);

/** The fields whose values differ between two versions of a row, as {field: [before, after]}. */
export function diffFields(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, [unknown, unknown]> {
  const changes: Record<string, [unknown, unknown]> = {};
  for (const key of Object.keys(after)) {
    const a = before[key] instanceof Date ? (before[key] as Date).toISOString() : before[key];
    const b = after[key] instanceof Date ? (after[key] as Date).toISOString() : after[key];
    if (JSON.stringify(a ?? null) !== JSON.stringify(b ?? null)) changes[key] = [a ?? null, b ?? null];
  }
  return changes;
}

/**
 * The audit log's insert as a piece of another folder's combined statement (a data-modifying CTE:
 * `db.with('newAudit', (qc) => auditInsert(qc, rows))`): this folder stays the table's one writer.
 */
export function auditInsert(
  qc: QueryCreator<Database>,
  rows: InsertObject<Database, 'auditLog'> | Array<InsertObject<Database, 'auditLog'>>,
) {
  return qc.insertInto('auditLog').values(rows);
}
