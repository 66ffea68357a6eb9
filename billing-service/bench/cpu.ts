import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';

/**
 * CPU accounting from /proc (Linux), to see who is busy during a run: the
 * server process, the PostgreSQL backends serving the benchmark database, the
 * load generator (this process) and everything else on the machine (other
 * processes, PostgreSQL's background workers, the kernel's softirq work). Elsewhere
 * the snapshots are undefined and the figures are left out.
 */

/** Linux reports process times in USER_HZ ticks, 100 per second on every mainstream architecture. */
const TICKS_PER_SECOND = 100;

export interface CpuSnapshot {
  at: bigint;
  machineBusy: number;
  machineTotal: number;
  serverTicks: number;
  /** Per backend pid: backends come and go (the pool closes idle connections), so deltas are taken per process. */
  postgresTicks: Map<string, number>;
  self: NodeJS.CpuUsage;
}

/** In cores (1 = one core fully busy over the run). */
export interface CpuShares {
  server: number;
  /** Backends connected to the benchmark database (0 when none was named). */
  postgres: number;
  loadGenerator: number;
  /** The rest of the machine's busy time. */
  other: number;
  /** All cores' busy time. */
  machine: number;
  cores: number;
}

function readStat(pid: string | number): { comm: string; ticks: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    // after "pid (comm) ": state is field 3; utime and stime are fields 14 and 15
    const fields = stat.slice(close + 2).split(' ');
    return { comm, ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}

/** PostgreSQL names each backend "postgres: <user> <database> <client> <state>" in its command line. */
export function postgresBackendTicks(database: string): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (stat?.comm !== 'postgres') continue;
    try {
      const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (title.includes(` ${database} `)) ticks.set(entry, stat.ticks);
    } catch {
      // the process ended
    }
  }
  return ticks;
}

/** CPU ticks the backends used between the snapshots: new backends count in full, ended ones (idle pool connections) are lost. */
export function postgresDelta(before: Map<string, number>, after: Map<string, number>): number {
  let total = 0;
  for (const [pid, ticks] of after) total += Math.max(0, ticks - (before.get(pid) ?? 0));
  return total;
}

export function cpuSnapshot(serverPid?: number, postgresDatabase?: string): CpuSnapshot | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const values = line.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already in user)
    const total = values.slice(0, 8).reduce((a, b) => a + b, 0);
    const idle = (values[3] ?? 0) + (values[4] ?? 0);
    return {
      at: process.hrtime.bigint(),
      machineBusy: total - idle,
      machineTotal: total,
      serverTicks: serverPid ? (readStat(serverPid)?.ticks ?? 0) : 0,
      postgresTicks: postgresDatabase ? postgresBackendTicks(postgresDatabase) : new Map(),
      self: process.cpuUsage(),
    };
  } catch {
    return undefined;
  }
}

export function cpuShares(before: CpuSnapshot | undefined, after: CpuSnapshot | undefined): CpuShares | undefined {
  if (!before || !after) return undefined;
  const seconds = Number(after.at - before.at) / 1e9;
  const machineTicks = after.machineTotal - before.machineTotal;
  if (seconds <= 0 || machineTicks <= 0) return undefined;
  const cores = os.cpus().length;
  const inCores = (ticks: number) => ticks / TICKS_PER_SECOND / seconds;
  const server = inCores(Math.max(0, after.serverTicks - before.serverTicks));
  const postgres = inCores(postgresDelta(before.postgresTicks, after.postgresTicks));
  const loadGenerator = (after.self.user - before.self.user + (after.self.system - before.self.system)) / 1e6 / seconds;
  const machine = ((after.machineBusy - before.machineBusy) / machineTicks) * cores;
  return { server, postgres, loadGenerator, other: Math.max(0, machine - server - postgres - loadGenerator), machine, cores };
}
