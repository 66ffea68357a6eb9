import { sql, type PostgresPool, type PostgresPoolClient } from 'kysely';
import pg from 'pg';
import { isDatabaseUnavailable } from './connection-errors.js';

const PLAN_EACH_CALL_COMMENT = ' /* renew: plan each call */';

/**
 * Appended to a query (`.modifyEnd(PLAN_EACH_CALL)`, or at the end of a raw
 * query) that must not become a prepared statement: PostgreSQL plans it with
 * each call's values. For list filters (`lower(last_name) like $1`, date
 * ranges): after five calls of a prepared statement PostgreSQL may switch to a
 * generic plan that cannot use the prefix index for `S%`, which made the list
 * page of the benchmark twice as slow.
 */
export const PLAN_EACH_CALL = sql.raw(PLAN_EACH_CALL_COMMENT);

/** Whether the text asked to be planned on each call (see PLAN_EACH_CALL). */
export function plansEachCall(text: string): boolean {
  return text.endsWith(PLAN_EACH_CALL_COMMENT);
}

/**
 * One statement name per distinct SQL text, for at most `maxStatements` texts;
 * none past the cap, nor for texts marked PLAN_EACH_CALL.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();

  constructor(private readonly maxStatements = 2000) {}

  nameFor(text: string): string | undefined {
    let name = this.names.get(text);
    if (name === undefined && this.names.size < this.maxStatements && !plansEachCall(text)) {
      name = `renew_${this.names.size + 1}`;
      this.names.set(text, name);
    }
    return name;
  }
}

/**
 * A pg pool for Kysely that runs every parameterised query as a named prepared
 * statement. PostgreSQL then parses and plans a statement once per connection
 * instead of on every call: for the customer read (two joins, three
 * subqueries) planning cost about four times the execution (measured with
 * pgbench: 3,400 statements/s unnamed, 19,800 prepared).
 *
 * Names are given per distinct SQL text, so a statement is prepared at most once
 * on each connection. Queries without parameters (transaction control,
 * migrations, which may hold several statements) keep the simple protocol. The
 * number of distinct texts is capped: past `maxStatements`, new texts run unnamed,
 * so a flood of one-off texts cannot grow every connection's statement cache.
 * Texts ending in PLAN_EACH_CALL are never named. `maxStatements` 0 names none: through PgBouncer in
 * transaction mode (db/pooler.ts) a statement prepared on one server session is not there on the next.
 */
export class PreparedStatementPool implements PostgresPool {
  private readonly names: StatementNames;

  constructor(
    private readonly pool: pg.Pool,
    maxStatements?: number,
  ) {
    this.names = new StatementNames(maxStatements);
  }

  async connect(): Promise<PostgresPoolClient> {
    const client = await this.pool.connect();
    // pg-pool listens for a client's 'error' only while it is idle; a connection lost while checked
    // out (a database restart) emits 'error' on the client, which without a listener ends the process.
    // The statement in flight fails by itself; the broken client is handed back with its error, so
    // the pool discards it and opens a new connection on next use.
    let connectionError: Error | undefined;
    const onError = (error: Error) => {
      connectionError ??= error;
    };
    client.on('error', onError);
    // Kysely's plain `begin`, held back until the transaction's first statement (see QueryAfterBegin)
    let beginHeldBack = false;
    const run = (text: string, values?: unknown[]) => {
      const name = values && values.length > 0 ? this.names.nameFor(text) : undefined;
      return name ? client.query({ name, text, values }) : client.query(text, values);
    };
    // A statement refused because the server is going away (57P01) may fail before the socket's end
    // is seen: the client is not reused either way.
    const noteLostConnection = (error: unknown) => {
      if (isDatabaseUnavailable(error)) connectionError ??= error as Error;
      throw error;
    };
    return {
      query: (async (text: string, values?: unknown[]) => {
        if (text === 'begin' && !beginHeldBack) {
          beginHeldBack = true;
          return { command: 'BEGIN', rowCount: null, rows: [] };
        }
        if (beginHeldBack) {
          beginHeldBack = false;
          // nothing ran since the begin: there is nothing to commit or roll back
          if (text === 'commit' || text === 'rollback') return { command: text.toUpperCase(), rowCount: null, rows: [] };
          if (values && values.length > 0)
            return runAfterBegin(client, { name: this.names.nameFor(text), text, values }).catch(noteLostConnection);
          await client.query('begin').catch(noteLostConnection);
        }
        return run(text, values).catch(noteLostConnection);
      }) as unknown as PostgresPoolClient['query'],
      release: () => {
        beginHeldBack = false;
        client.removeListener('error', onError);
        client.release(connectionError);
      },
    };
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}

/**
 * A parameterised statement sent with the `begin` of its transaction in one write: `begin` as
 * an unnamed extended-protocol statement, then the statement, then one Sync, so the
 * transaction costs one round trip (and one socket write, about 40 µs of server CPU on the
 * benchmark machine) less. PostgreSQL answers both before its one ReadyForQuery; pg's Query
 * keeps a result per command, and the statement's is the last. If the statement fails, the
 * transaction is left open and failed, as it would be after a separate `begin`, and Kysely
 * rolls it back.
 */
class QueryAfterBegin extends (pg.Query as unknown as new (config: pg.QueryConfig) => { prepare(connection: PgConnection): void }) {
  override prepare(connection: PgConnection) {
    const statement = this as unknown as { name?: string; text: string; hasBeenParsed(connection: PgConnection): boolean };
    // A statement new to this connection is parsed first, so that pg's record of the parsed
    // statements (set at each ParseComplete) is right when its parse fails.
    if (statement.name && !statement.hasBeenParsed(connection)) {
      connection.parse({ text: statement.text, name: statement.name, types: [] });
      connection.submittedNamedStatements[statement.name] = statement.text;
    }
    connection.parse({ text: 'begin', name: '', types: [] });
    connection.bind({ portal: '', statement: '', values: [] });
    connection.execute({ portal: '', rows: 0 });
    super.prepare(connection);
  }
}

/**
 * The internals of pg's connection that QueryAfterBegin writes to. They are private to pg, so
 * `pg` and `pg-protocol` are pinned to exact versions in package.json, and
 * test/db/pg-internals.test.ts fails loudly if an upgrade moves them.
 */
interface PgConnection {
  submittedNamedStatements: Record<string, string>;
  parse(config: { text: string; name: string; types: unknown[] }): void;
  bind(config: { portal: string; statement: string; values: unknown[] }): void;
  execute(config: { portal: string; rows: number }): void;
}

function runAfterBegin(
  client: pg.PoolClient,
  config: { name: string | undefined; text: string; values: unknown[] },
): Promise<pg.QueryResult> {
  return new Promise((resolve, reject) => {
    const callback = (error: Error | null, results: pg.QueryResult | pg.QueryResult[]) => {
      if (error) reject(error);
      else {
        // a multi-statement text answers one result per statement: the last is the query's
        const last = Array.isArray(results) ? results.at(-1) : results;
        if (last) resolve(last);
        else reject(new Error('the query answered no result'));
      }
    };
    const query = new QueryAfterBegin({ ...config, callback } as pg.QueryConfig);
    client.query(query as unknown as pg.QueryConfig);
  });
}
