import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

/**
 * A Kysely dialect over embedded PGlite.
 *
 * PGlite is a single connection. Kysely assumes it may hand a connection to a
 * transaction while other queries run elsewhere; without care a query issued
 * outside the transaction would run inside it. A mutex makes the one
 * connection exclusive: a transaction holds it from BEGIN to COMMIT/ROLLBACK,
 * and other callers wait their turn.
 */
export class PGliteDialect implements Dialect {
  constructor(private readonly pglite: PGlite) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.pglite);
  }
  createIntrospector(db: Kysely<any>) {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}

class Mutex {
  private tail: Promise<void> = Promise.resolve();
  lock(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => (release = resolve));
    const acquired = this.tail.then(() => release);
    this.tail = this.tail.then(() => next);
    return acquired;
  }
}

class PGliteDriver implements Driver {
  private readonly mutex = new Mutex();
  private readonly releases = new WeakMap<DatabaseConnection, () => void>();
  constructor(private readonly pglite: PGlite) {}

  async init() {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const release = await this.mutex.lock();
    const connection = new PGliteConnection(this.pglite);
    this.releases.set(connection, release);
    return connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    const isolation = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    await connection.executeQuery(CompiledQuery.raw(`begin${isolation}`));
  }
  async commitTransaction(connection: DatabaseConnection) {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }
  async rollbackTransaction(connection: DatabaseConnection) {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(connection: DatabaseConnection) {
    this.releases.get(connection)?.();
    this.releases.delete(connection);
  }

  async destroy() {
    if (!this.pglite.closed) await this.pglite.close();
  }
}

class PGliteConnection implements DatabaseConnection {
  constructor(private readonly pglite: PGlite) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    if (compiled.parameters.length === 0 && compiled.sql.includes(';')) {
      // Several statements (migrations): only the simple protocol accepts them.
      const results = await this.pglite.exec(compiled.sql);
      return { rows: (results.at(-1)?.rows ?? []) as R[] };
    }
    const result = await this.pglite.query<R>(compiled.sql, compiled.parameters as unknown[], {
      rowMode: 'object',
    });
    const affected = result.affectedRows;
    return {
      rows: result.rows,
      ...(affected !== undefined ? { numAffectedRows: BigInt(affected) } : {}),
    };
  }

  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on the embedded database');
  }
}
