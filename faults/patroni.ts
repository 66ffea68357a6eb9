/**
 * A two-node Patroni cluster for the failover test, built from the documented files:
 * etcd (one member), two Patroni nodes running deploy/patroni/patroni.yml with their own
 * environment, and HAProxy running deploy/patroni/haproxy-postgres.cfg in front, where Renew
 * connects. Everything lives in a temporary folder and on free loopback ports. Needs Debian's
 * patroni, etcd-server, haproxy and postgresql.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ROOT, freePort, sleep } from './harness.js';

export interface PatroniNode {
  name: string;
  pgPort: number;
  apiPort: number;
  dataDir: string;
  patroni?: ChildProcess;
}

const asRoot = process.getuid?.() === 0;

/** A command line as the postgres user (PostgreSQL refuses to run as root). */
function asPostgres(command: string, env: Record<string, string>, log: string): ChildProcess {
  const exports = Object.entries(env)
    .map(([k, v]) => `${k}='${v}'`)
    .join(' ');
  const line = `${exports} exec ${command}`;
  const child = asRoot
    ? spawn('su', ['postgres', '-s', '/bin/sh', '-c', line], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    : spawn('/bin/sh', ['-c', line], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const out = createWriteStream(log);
  // Two sources into one file: the first to end must not end it under the other (a write after end throws).
  child.stdout!.pipe(out, { end: false });
  child.stderr!.pipe(out, { end: false });
  return child;
}

/** SIGKILL to these processes and all their descendants (su → patroni → postgres → backends). */
function killTrees(roots: number[]) {
  const children = new Map<number, number[]>();
  for (const line of spawnSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' }).stdout.split('\n')) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    if (pid && ppid) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const all = new Set<number>();
  const visit = (pid: number) => {
    if (all.has(pid)) return;
    all.add(pid);
    for (const child of children.get(pid) ?? []) visit(child);
  };
  for (const root of roots) visit(root);
  for (const pid of all) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

export class PatroniCluster {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'renew-failover-'));
  readonly bin = readdirSync('/usr/lib/postgresql')
    .map((v) => `/usr/lib/postgresql/${v}/bin`)
    .filter((b) => existsSync(`${b}/pg_ctl`))
    .sort()
    .pop();
  readonly nodes: PatroniNode[] = [];
  private etcd?: ChildProcess;
  private haproxy?: ChildProcess;
  private etcdPort = 0;
  proxyPort = 0;

  constructor() {
    if (!this.bin) throw new Error('PostgreSQL is not installed (Debian: apt-get install postgresql)');
    for (const tool of ['patroni', 'etcd', 'haproxy'])
      if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
        throw new Error(`${tool} is not installed (Debian: apt-get install patroni etcd-server haproxy)`);
    chmodSync(this.dir, 0o777);
  }

  /** Renew's DATABASE_URL: through HAProxy to whichever node leads. */
  get url() {
    return `postgres://postgres@127.0.0.1:${this.proxyPort}/renew`;
  }

  log(name: string) {
    return path.join(this.dir, `${name}.log`);
  }

  async start() {
    this.etcdPort = await freePort();
    const peerPort = await freePort();
    this.etcd = asPostgres(
      `etcd --name e1 --data-dir ${this.dir}/etcd --listen-client-urls http://127.0.0.1:${this.etcdPort} ` +
        `--advertise-client-urls http://127.0.0.1:${this.etcdPort} --listen-peer-urls http://127.0.0.1:${peerPort} ` +
        `--initial-advertise-peer-urls http://127.0.0.1:${peerPort} --initial-cluster e1=http://127.0.0.1:${peerPort}`,
      {},
      this.log('etcd'),
    );
    for (const name of ['node1', 'node2'])
      this.nodes.push({ name, pgPort: await freePort(), apiPort: await freePort(), dataDir: `${this.dir}/${name}` });
    this.startNode(this.nodes[0]!);
    await this.waitFor(async () => (await this.leader()) === 'node1', 'node1 leads', 60_000);
    this.startNode(this.nodes[1]!);
    await this.waitFor(async () => (await this.syncStandby()) === 'node2', 'node2 is the synchronous standby', 90_000);
    this.proxyPort = await freePort();
    this.haproxy = spawn('haproxy', ['-f', 'deploy/patroni/haproxy-postgres.cfg', '-db'], {
      cwd: ROOT,
      env: {
        ...process.env,
        RENEW_PG_BIND: `127.0.0.1:${this.proxyPort}`,
        RENEW_PG_NODE1: `127.0.0.1:${this.nodes[0]!.pgPort}`,
        RENEW_PG_NODE2: `127.0.0.1:${this.nodes[1]!.pgPort}`,
        RENEW_PG_NODE1_API_PORT: String(this.nodes[0]!.apiPort),
        RENEW_PG_NODE2_API_PORT: String(this.nodes[1]!.apiPort),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.haproxy.stderr!.pipe(createWriteStream(this.log('haproxy')));
    await this.waitFor(
      async () => {
        const client = new pg.Client({ connectionString: this.url.replace(/\/renew$/, '/postgres') });
        try {
          await client.connect();
          await client.query('create database renew');
          return true;
        } catch {
          return false;
        } finally {
          await client.end().catch(() => {});
        }
      },
      'the database is created through HAProxy',
      30_000,
    );
  }

  startNode(node: PatroniNode) {
    node.patroni = asPostgres(
      'patroni deploy/patroni/patroni.yml',
      {
        PATRONI_NAME: node.name,
        PATRONI_RESTAPI_LISTEN: `127.0.0.1:${node.apiPort}`,
        PATRONI_RESTAPI_CONNECT_ADDRESS: `127.0.0.1:${node.apiPort}`,
        PATRONI_POSTGRESQL_LISTEN: `127.0.0.1:${node.pgPort}`,
        PATRONI_POSTGRESQL_CONNECT_ADDRESS: `127.0.0.1:${node.pgPort}`,
        PATRONI_POSTGRESQL_DATA_DIR: node.dataDir,
        PATRONI_POSTGRESQL_BIN_DIR: this.bin!,
        PATRONI_ETCD3_HOSTS: `127.0.0.1:${this.etcdPort}`,
        PATH: process.env.PATH ?? '/usr/bin:/bin',
      },
      this.log(`${node.name}-${Date.now()}`),
    );
    // su runs from ROOT: patroni reads the documented file by its relative path
    node.patroni.unref();
  }

  /** The node's whole process tree killed at once, as when its machine dies: Patroni, the postmaster and its backends. */
  killNode(node: PatroniNode) {
    const roots = [node.patroni?.pid, Number(readFileSync(`${node.dataDir}/postmaster.pid`, 'utf8').split('\n')[0])];
    killTrees(roots.filter((pid): pid is number => Boolean(pid)));
  }

  private async cluster(): Promise<Array<{ name: string; role: string; state: string }>> {
    for (const node of this.nodes) {
      try {
        const response = await fetch(`http://127.0.0.1:${node.apiPort}/cluster`, { signal: AbortSignal.timeout(1_000) });
        if (response.ok) return ((await response.json()) as { members: Array<{ name: string; role: string; state: string }> }).members;
      } catch {
        // this node's API is down: ask the other
      }
    }
    return [];
  }

  async leader(): Promise<string | undefined> {
    return (await this.cluster()).find((m) => m.role === 'leader' && m.state === 'running')?.name;
  }

  async syncStandby(): Promise<string | undefined> {
    return (await this.cluster()).find((m) => m.role === 'sync_standby' && m.state === 'running')?.name;
  }

  /** A planned switchover to `candidate` through Patroni's REST API. */
  async switchover(leader: string, candidate: string) {
    const node = this.nodes.find((n) => n.name === leader)!;
    const response = await fetch(`http://127.0.0.1:${node.apiPort}/switchover`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ leader, candidate }),
    });
    if (!response.ok) throw new Error(`switchover refused: ${response.status} ${await response.text()}`);
  }

  async waitFor(check: () => Promise<boolean>, what: string, timeoutMs: number) {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      if (await check()) return;
      await sleep(250);
    }
    throw new Error(`timed out: ${what} (logs in ${this.dir})`);
  }

  async destroy() {
    this.haproxy?.kill('SIGKILL');
    for (const node of this.nodes) {
      try {
        this.killNode(node);
      } catch {
        // never started or already dead
      }
    }
    if (this.etcd?.pid) killTrees([this.etcd.pid]);
    await sleep(500);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
