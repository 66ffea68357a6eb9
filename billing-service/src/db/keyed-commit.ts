import { AsyncLocalStorage } from 'node:async_hooks';
import { CompiledQuery, type DatabaseConnection, type Dialect, type Driver, type TransactionSettings } from 'kysely';

/**
 * A keyed write's commit, recorded in the write's own transaction. While a request with an
 * Idempotency-Key runs (http/idempotency.ts), every transaction it commits first marks its key
 * committed, fenced by the key's claim token: the mark and the write commit together or not at
 * all, and a request whose claim was taken over (it was paused, judged dead, and another instance
 * took its key) has its write rolled back instead of committed. A retry whose first run committed
 * but never answered (the connection dropped after COMMIT, or the read-back failed) thus knows it
 * must not run again.
 */
export interface KeyedWrite {
  accountId: number;
  key: string;
  claimToken: string;
  /** What the request created, by entity type (recordCreated), stored with the mark so a retry can read it back. */
  created?: Record<string, number[]>;
  /** Set once the request has answered: work it left running (a background kick) is no longer its write. */
  finished?: boolean;
}

const current = new AsyncLocalStorage<KeyedWrite>();

/** Runs `work` as the keyed request `write`: its transactions' commits mark the key. */
export function runKeyedWrite<T>(write: KeyedWrite, work: () => Promise<T>): Promise<T> {
  return current.run(write, work);
}

/**
 * What a keyed request created (a customer, a note: the audit log tells each create): a retry after a
 * lost answer reads it back by this, in the order created.
 */
export function recordCreated(entityType: string, id: number): void {
  const write = current.getStore();
  if (!write || write.finished) return;
  write.created = { ...write.created, [entityType]: [...(write.created?.[entityType] ?? []), id] };
}

/** The keyed request's claim was taken over before its commit: its write was rolled back. */
export class KeyClaimLostError extends Error {
  constructor() {
    super('the Idempotency-Key was taken over by another instance; this run was rolled back');
  }
}

/** Marks the key when this transaction wrote anything (a read-only one, a preview, leaves it); `wrote` and `marked` tell a lost claim. */
const MARK_COMMITTED = `with w as (select pg_current_xact_id_if_assigned() is not null as wrote),
  m as (update idempotency_keys set committed_at = now(), committed_ref = coalesce($4::jsonb, committed_ref)
    where account_id = $1 and key = $2 and claim_token = $3::uuid and (select wrote from w) returning 1)
  select (select wrote from w) as wrote, (select count(*) from m)::int as marked`;

/** The dialect, its commits marking the running keyed request's key (see KeyedWrite). */
export function markingKeyedCommits(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => new MarkingDriver(dialect.createDriver()),
  };
}

class MarkingDriver implements Driver {
  constructor(private readonly inner: Driver) {
    if (inner.savepoint) this.savepoint = inner.savepoint.bind(inner);
    if (inner.rollbackToSavepoint) this.rollbackToSavepoint = inner.rollbackToSavepoint.bind(inner);
    if (inner.releaseSavepoint) this.releaseSavepoint = inner.releaseSavepoint.bind(inner);
  }
  savepoint?: Driver['savepoint'];
  rollbackToSavepoint?: Driver['rollbackToSavepoint'];
  releaseSavepoint?: Driver['releaseSavepoint'];
  init = () => this.inner.init();
  acquireConnection = () => this.inner.acquireConnection();
  releaseConnection = (connection: DatabaseConnection) => this.inner.releaseConnection(connection);
  destroy = () => this.inner.destroy();
  beginTransaction = (connection: DatabaseConnection, settings: TransactionSettings) => this.inner.beginTransaction(connection, settings);
  rollbackTransaction = (connection: DatabaseConnection) => this.inner.rollbackTransaction(connection);

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const write = current.getStore();
    if (write && !write.finished) {
      const { rows } = await connection.executeQuery<{ wrote: boolean; marked: number }>(
        CompiledQuery.raw(MARK_COMMITTED, [
          write.accountId,
          write.key,
          write.claimToken,
          write.created ? JSON.stringify(write.created) : null,
        ]),
      );
      // Kysely rolls the transaction back when the commit throws.
      if (rows[0]?.wrote && Number(rows[0].marked) !== 1) throw new KeyClaimLostError();
    }
    await this.inner.commitTransaction(connection);
  }
}
