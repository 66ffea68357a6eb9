import { readFileSync, readdirSync } from 'node:fs';

/**
 * CPU accounting from /proc (Linux), to see who is busy during a run: the
 * server process, the PostgreSQL processes, the load generator (this process)
 * and the machine as a whole. Elsewhere the snapshots are undefined and the
 * figures are left out.
 */

/** Linux reports process times in USER_HZ ticks, 100 per second on every mainstream architecture. */
const TICKS_PER_SECOND = 100;

export interface CpuSnapshot {
  at: bigint;
  machineBusy: number;
  machineTotal: number;
  serverTicks: number;
  postgresTicks: number;
  self: NodeJS.CpuUsage;
}

/** Shares of one core (100% = one core fully busy), except `machine`: share of all cores. */
export interface CpuShares {
  server: number;
  postgres: number;
  loadGenerator: number;
  machine: number;
}

function processTicks(pid: string | number): { comm: string; ticks: number } | undefined {
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

function postgresTicks(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const p = processTicks(entry);
    if (p?.comm === 'postgres') total += p.ticks;
  }
  return total;
}

export function cpuSnapshot(serverPid: number | undefined): CpuSnapshot | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const values = line.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already in user)
    const total = values.slice(0, 8).reduce((a, b) => a + b, 0);
    const idle = values[3] + (values[4] ?? 0);
    return {
      at: process.hrtime.bigint(),
      machineBusy: total - idle,
      machineTotal: total,
      serverTicks: serverPid ? processTicks(serverPid)?.ticks ?? 0 : 0,
      postgresTicks: postgresTicks(),
      self: process.cpuUsage(),
    };
  } catch {
    return undefined;
  }
}

export function cpuShares(before: CpuSnapshot | undefined, after: CpuSnapshot | undefined): CpuShares | undefined {
  if (!before || !after) return undefined;
  const seconds = Number(after.at - before.at) / 1e9;
  if (seconds <= 0) return undefined;
  const ticksShare = (ticks: number) => ticks / TICKS_PER_SECOND / seconds;
  const selfMicros = after.self.user - before.self.user + (after.self.system - before.self.system);
  const machineTotal = after.machineTotal - before.machineTotal;
  return {
    server: ticksShare(after.serverTicks - before.serverTicks),
    postgres: ticksShare(after.postgresTicks - before.postgresTicks),
    loadGenerator: selfMicros / 1e6 / seconds,
    machine: machineTotal > 0 ? (after.machineBusy - before.machineBusy) / machineTotal : 0,
  };
}
