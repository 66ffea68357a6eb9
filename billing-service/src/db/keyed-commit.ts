import { AsyncLocalStorage } from 'node:async_hooks';
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, TransactionSettings } from 'kysely';

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
  /**
   * The statement that marks the key committed (its table is the HTTP layer's: http/idempotency-store.ts), given
   * what was created as JSON: it answers whether this transaction wrote anything and whether the mark took.
   */
  markCommitted(created: string | null): CompiledQuery<CommitMark>;
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

/** Whether the transaction wrote anything (a read-only one, a preview, is not marked), and whether the key was marked: wrote and not marked is a lost claim. */
export interface CommitMark {
  wrote: boolean;
  marked: number;
}

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
      const { rows } = await connection.executeQuery<CommitMark>(write.markCommitted(write.created ? JSON.stringify(write.created) : null));
      // Kysely rolls the transaction back when the commit throws.
      if (rows[0]?.wrote && Number(rows[0].marked) !== 1) throw new KeyClaimLostError();
    }
    await this.inner.commitTransaction(connection);
  }
}
