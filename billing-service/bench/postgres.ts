import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** A PostgreSQL server for the benchmark: the one in BENCH_DATABASE_URL, or a throwaway cluster. */
export interface PostgresServer {
  /** Connection URL of the server (any database on it; the benchmark creates its own). */
  url: string;
  description: string;
  /** Stops and deletes a throwaway cluster; nothing for BENCH_DATABASE_URL. Safe to call twice. */
  stop(): Promise<void>;
}

export type PostgresProvision = { server: PostgresServer } | { skipped: string };

/** BENCH_DATABASE_URL when set, else a throwaway cluster from the local PostgreSQL binaries, else a reason to skip. */
export async function providePostgres(log: (line: string) => void): Promise<PostgresProvision> {
  const given = process.env.BENCH_DATABASE_URL;
  if (given) {
    const version = await serverVersion(given);
    const where = new URL(given);
    return {
      server: {
        url: given,
        description: `BENCH_DATABASE_URL (${where.hostname}:${where.port || 5432}), PostgreSQL ${version}`,
        stop: async () => {},
      },
    };
  }
  const binDir = findPostgresBinaries();
  if (!binDir)
    return {
      skipped: 'no PostgreSQL binaries (initdb, pg_ctl) found in /usr/lib/postgresql/*/bin or on PATH, and BENCH_DATABASE_URL is not set',
    };
  return { server: await startThrowawayCluster(binDir, log) };
}

function findPostgresBinaries(): string | undefined {
  const has = (dir: string) => existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'pg_ctl'));
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => has(path.join(root, v, 'bin')))
      .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
    const newest = versions[0];
    if (newest !== undefined) return path.join(root, newest, 'bin');
  }
  return (process.env.PATH ?? '').split(path.delimiter).find((dir) => dir && has(dir));
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

const shellQuote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

async function startThrowawayCluster(binDir: string, log: (line: string) => void): Promise<PostgresServer> {
  const asRoot = process.getuid?.() === 0;
  // initdb and the server refuse to run as root: as root they run as the postgres user
  const run = (program: string, args: string[]) => {
    const file = path.join(binDir, program);
    if (asRoot) {
      const command = [file, ...args].map(shellQuote).join(' ');
      return execFileSync('su', ['postgres', '-s', '/bin/sh', '-c', command], { stdio: 'pipe', encoding: 'utf8' });
    }
    return execFileSync(file, args, { stdio: 'pipe', encoding: 'utf8' });
  };

  const dir = mkdtempSync(path.join(os.tmpdir(), 'renew-bench-pg-'));
  const dataDir = path.join(dir, 'data');
  let started = false;
  const stop = async () => {
    if (started) {
      started = false;
      try {
        run('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
      } catch (error) {
        log(`could not stop the throwaway PostgreSQL cluster: ${(error as Error).message}`);
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    if (asRoot) execFileSync('chown', ['postgres:', dir]);
    const initdb = (locale: string[]) =>
      run('initdb', ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', ...locale, '--no-sync']);
    try {
      initdb(['--locale=C.UTF-8']);
    } catch {
      rmSync(dataDir, { recursive: true, force: true });
      initdb(['--no-locale']);
    }
    const port = await freePort();
    const options = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir}`;
    run('pg_ctl', ['-D', dataDir, '-l', path.join(dir, 'server.log'), '-o', options, '-w', '-t', '60', 'start']);
    started = true;
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const version = await serverVersion(url);
    return {
      url,
      description: `throwaway cluster started by the benchmark (${path.basename(path.dirname(binDir))}/bin, initdb into ${dir}, 127.0.0.1:${port}, initdb defaults), PostgreSQL ${version}`,
      stop,
    };
  } catch (error) {
    await stop();
    const e = error as Error & { stderr?: string };
    throw new Error(`could not start a throwaway PostgreSQL cluster: ${e.stderr?.trim() || e.message}`);
  }
}

/** Version and the settings that matter most here (durability of each commit, cache size). */
async function serverVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ v: string; fsync: string; sc: string; sb: string }>(
      `select current_setting('server_version') as v, current_setting('fsync') as fsync,
              current_setting('synchronous_commit') as sc, current_setting('shared_buffers') as sb`,
    );
    const r = result.rows[0];
    if (!r) throw new Error('PostgreSQL answered no row to select current_setting');
    return `${r.v} (fsync ${r.fsync}, synchronous_commit ${r.sc}, shared_buffers ${r.sb})`;
  } finally {
    await client.end();
  }
}

export interface BenchDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A new, empty database on the server, so every run starts clean. */
export async function createFreshDatabase(serverUrl: string): Promise<BenchDatabase> {
  const name = `bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    url: url.toString(),
    name,
    async drop() {
      if (dropped) return;
      dropped = true;
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

export interface WaitSample {
  /** What the benchmark database's backends were doing, as shares of all samples. */
  shares: Array<{ state: string; share: number }>;
  samples: number;
}

/**
 * Samples pg_stat_activity of one database every `everyMs` until stopped: how
 * often its backends were idle (waiting for the application), running, or
 * waiting on a lock or I/O.
 */
export function sampleBackendStates(databaseUrl: string, databaseName: string, everyMs = 200) {
  const client = new pg.Client({ connectionString: databaseUrl });
  const counts = new Map<string, number>();
  let total = 0;
  let samples = 0;
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let inflight: Promise<void> | undefined;
  const tick = async () => {
    const result = await client.query<{ state: string; n: string }>(
      `select case
                when state = 'active' and wait_event is not null then 'waiting: ' || wait_event_type || '/' || wait_event
                when state = 'active' then 'running'
                when state = 'idle' then 'idle (waiting for the app)'
                else coalesce(state, 'unknown')
              end as state,
              count(*) as n
         from pg_stat_activity
        where datname = $1 and pid <> pg_backend_pid() and backend_type = 'client backend'
        group by 1`,
      [databaseName],
    );
    samples += 1;
    for (const row of result.rows) {
      counts.set(row.state, (counts.get(row.state) ?? 0) + Number(row.n));
      total += Number(row.n);
    }
  };
  return {
    async start() {
      await client.connect();
      running = true;
      const loop = async () => {
        if (!running) return;
        inflight = tick().catch(() => undefined);
        await inflight;
        if (running) timer = setTimeout(loop, everyMs);
      };
      timer = setTimeout(loop, everyMs);
    },
    async stop(): Promise<WaitSample> {
      running = false;
      if (timer) clearTimeout(timer);
      await inflight;
      await client.end().catch(() => undefined);
      const shares = [...counts.entries()].map(([state, n]) => ({ state, share: total ? n / total : 0 })).sort((a, b) => b.share - a.share);
      return { shares, samples };
    },
  };
}
