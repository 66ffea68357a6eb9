/**
 * What each tree's statements cost PostgreSQL, from pg_stat_statements when the server has it loaded
 * (`shared_preload_libraries = pg_stat_statements` and the extension created in the `postgres`
 * database): execution time and shared buffers touched per operation, in total and for the statements
 * that cost most. Without the extension the figures are left out.
 */
import pg from 'pg';

interface StatementCost {
  query: string;
  calls: number;
  execMs: number;
  buffers: number;
}

export class StatementCosts {
  private constructor(private readonly client: pg.Client) {}

  /** Connects to the server's `postgres` database; undefined when pg_stat_statements cannot be read. */
  static async open(databaseUrl: string): Promise<StatementCosts | undefined> {
    const url = new URL(databaseUrl);
    url.pathname = '/postgres';
    const client = new pg.Client({ connectionString: url.toString() });
    try {
      await client.connect();
      await client.query('select pg_stat_statements_reset()');
      return new StatementCosts(client);
    } catch {
      await client.end().catch(() => undefined);
      return undefined;
    }
  }

  /** Forgets what was counted so far (the set-up and the warm-up). */
  async reset() {
    await this.client.query('select pg_stat_statements_reset()');
  }

  async ofDatabase(database: string): Promise<StatementCost[]> {
    const { rows } = await this.client.query<{ query: string; calls: string; exec_ms: number; buffers: string }>(
      `select s.query, s.calls, s.total_exec_time as exec_ms,
              s.shared_blks_hit + s.shared_blks_read + s.shared_blks_dirtied + s.shared_blks_written as buffers
         from pg_stat_statements s join pg_database d on d.oid = s.dbid
        where d.datname = $1`,
      [database],
    );
    return rows.map((r) => ({ query: r.query, calls: Number(r.calls), execMs: Number(r.exec_ms), buffers: Number(r.buffers) }));
  }

  /** Lines for the report: the whole per operation, then the `top` statements by execution time. */
  async report(database: string, operations: number, top = 6): Promise<string[]> {
    const costs = await this.ofDatabase(database);
    const per = (x: number) => x / operations;
    const total = costs.reduce((sum, c) => ({ execMs: sum.execMs + c.execMs, buffers: sum.buffers + c.buffers }), {
      execMs: 0,
      buffers: 0,
    });
    const lines = [
      `    pg_stat_statements: ${(per(total.execMs) * 1000).toFixed(0)} µs executing, ${per(total.buffers).toFixed(1)} buffers per operation`,
    ];
    for (const c of costs.sort((a, b) => b.execMs - a.execMs).slice(0, top)) {
      const text = c.query.replace(/\s+/g, ' ').slice(0, 110);
      lines.push(
        `      ${(per(c.execMs) * 1000).toFixed(0).padStart(5)} µs ${per(c.buffers).toFixed(1).padStart(6)} buf ${per(c.calls).toFixed(2)}× ${text}`,
      );
    }
    return lines;
  }

  async close() {
    await this.client.end();
  }
}
