/**
 * What every measured scenario of the benchmark shares: the settings, the log,
 * the clean-up on exit or Ctrl-C, the server processes, the autocannon and
 * one-at-a-time runs, and the detail rows and notes the report prints.
 */
import http from 'node:http';
import type { CpuShares } from './cpu.js';
import {
  httpRequest,
  measureSequentialHttp,
  measureThroughput,
  type LoopResult,
  type SequentialHttpResult,
  type ThroughputResult,
  type ThroughputSpec,
} from './load.js';
import { cpuText, integer, ms, perRequest, statusText, wholeMs } from './report.js';
import { startServer, type RunningServer, type ServerSpec } from './server-process.js';

function envNumber(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

const THROUGHPUT_SECONDS = envNumber('BENCH_SECONDS', 10);
export const SETTINGS = {
  connections: envNumber('BENCH_CONNECTIONS', 32),
  seconds: THROUGHPUT_SECONDS,
  warmupSeconds: Math.min(2, THROUGHPUT_SECONDS),
  /** Sequential list latency, per list query. */
  listSeconds: Math.max(2, Math.round(THROUGHPUT_SECONDS * 0.6)),
  /** In-process loops (point selects, runList). */
  loopSeconds: Math.max(2, Math.round(THROUGHPUT_SECONDS * 0.4)),
  loopWarmupSeconds: 1,
  /** PGlite list figures only when seeding 100,000 customers on PGlite takes less than this. */
  pgliteSeedLimitMs: 30_000,
  /** Activation preview and its GET baseline, one at a time. */
  previewSeconds: Math.max(2, Math.round(THROUGHPUT_SECONDS * 0.5)),
  /** Customers with 3 Draft subscriptions the previews rotate over (a preview changes nothing). */
  previewCustomers: 8,
  /**
   * Activations: a fixed number of requests, each on a fresh Draft customer made
   * beforehand, so the pool is exactly as large as the run (plus one for the check).
   */
  activationRequests: { warmup: 2 * envNumber('BENCH_CONNECTIONS', 32), measured: 40 * THROUGHPUT_SECONDS },
  /** Customers the card captures rotate over (each request adds a card to one). */
  captureCustomers: 200,
};

/** The state of the whole run, set by the scenarios and read by the report. */
export const runState = {
  /** Set by Ctrl-C / SIGTERM: clean-up has started, nothing new may begin. */
  interrupted: false,
  /** A part of the benchmark itself failed: exit code 1. */
  failed: false,
  /** Whether any response was not 2xx, or any connection failed. */
  httpProblems: false,
};

const startedAt = performance.now();
export function log(line: string) {
  if (runState.interrupted) return;
  const elapsed = ((performance.now() - startedAt) / 1000).toFixed(0).padStart(3);
  console.log(`[${elapsed} s] ${line}`);
}

/** Undo steps (servers, databases, clusters, folders), run in reverse on exit, error or Ctrl-C. */
class Cleanup {
  private readonly steps: Array<{ label: string; run: () => Promise<void> | void }> = [];
  add(label: string, run: () => Promise<void> | void) {
    this.steps.push({ label, run });
  }
  async runAll() {
    for (let step = this.steps.pop(); step; step = this.steps.pop()) {
      try {
        await step.run();
      } catch (error) {
        console.error(`cleanup (${step.label}) failed: ${(error as Error).message}`);
      }
    }
  }
}
export const cleanup = new Cleanup();

/** Detail rows and notes, filled as runs complete. */
export const detail = {
  throughputRows: [] as string[][],
  latencyRows: [] as string[][],
  notes: [] as string[],
  /** Runs during which other processes kept at least OTHER_CPU_WARNING of a core busy. */
  disturbedRuns: [] as string[],
};
export const OTHER_CPU_WARNING = 0.25;

function noteDisturbance(label: string, cpu: CpuShares | undefined) {
  if (cpu && cpu.other >= OTHER_CPU_WARNING) detail.disturbedRuns.push(`${label} (${Math.round(cpu.other * 100)}%)`);
}

export async function withServer<T>(spec: ServerSpec, body: (server: RunningServer) => Promise<T>): Promise<T> {
  if (runState.interrupted) throw new Error('interrupted');
  const server = await startServer(spec);
  // stop() is idempotent: the cleanup entry only matters if the run is interrupted
  cleanup.add('server process', () => server.stop());
  try {
    return await body(server);
  } finally {
    await server.stop();
  }
}

export async function expectOk(server: RunningServer, method: string, pathName: string, headers: Record<string, string>, body?: string) {
  const agent = new http.Agent({ keepAlive: false });
  const response = await httpRequest(agent, server.url, method, pathName, headers, body);
  agent.destroy();
  if (response.status < 200 || response.status > 299) {
    throw new Error(`${method} ${pathName} answered ${response.status} before the load started: ${response.body.slice(0, 300)}`);
  }
  return response;
}

/** An autocannon run (a duration, or a fixed number of requests), recorded as a row of the throughput table. */
export async function throughput(
  label: string,
  server: RunningServer,
  spec: Omit<ThroughputSpec, 'baseUrl' | 'connections' | 'seconds' | 'warmupSeconds' | 'serverPid'> & { baseUrl?: string },
): Promise<ThroughputResult> {
  const withPostgres = spec.postgresDatabase !== undefined;
  log(
    spec.requests
      ? `${label}: ${SETTINGS.connections} connections, ${integer(spec.requests.warmup)} requests warm-up + ${integer(spec.requests.measured)} measured`
      : `${label}: ${SETTINGS.connections} connections, ${SETTINGS.warmupSeconds} s warm-up + ${SETTINGS.seconds} s`,
  );
  const result = await measureThroughput({
    ...spec,
    baseUrl: spec.baseUrl ?? server.url,
    connections: SETTINGS.connections,
    seconds: SETTINGS.seconds,
    warmupSeconds: SETTINGS.warmupSeconds,
    serverPid: server.pid,
  });
  detail.throughputRows.push([
    label,
    integer(result.requestsPerSecond),
    wholeMs(result.latencyMs.p50),
    wholeMs(result.latencyMs.p99),
    integer(result.ok),
    integer(result.non2xx),
    integer(result.errors),
    perRequest(result.cpu?.server, result.requestsPerSecond),
    withPostgres ? perRequest(result.cpu?.postgres, result.requestsPerSecond) : '—',
    cpuText(result.cpu, withPostgres),
  ]);
  noteDisturbance(label, result.cpu);
  if (result.non2xx > 0 || result.errors > 0) {
    runState.httpProblems = true;
    detail.notes.push(
      `${label}: ${integer(result.non2xx)} non-2xx responses (${statusText(result.statusCodes)}), ${integer(result.errors)} errors, ${integer(result.timeouts)} timeouts`,
    );
  }
  return result;
}

/** A row of the latency table (one request or query at a time). */
export function latencyRow(label: string, result: LoopResult, extra: string) {
  noteDisturbance(label, result.cpu);
  const other = result.cpu ? `${Math.round(result.cpu.other * 100)}%` : 'n/a';
  detail.latencyRows.push([
    label,
    integer(result.count),
    ms(result.latencyMs.p50),
    ms(result.latencyMs.p95),
    ms(result.latencyMs.p99),
    `${integer(result.perSecond)}/s`,
    other,
    extra,
  ]);
}

/** One request at a time over one keep-alive connection for `seconds`; non-2xx answers are noted. */
export async function sequentialHttp(
  label: string,
  app: RunningServer,
  seconds: number,
  spec: { method?: 'GET' | 'POST'; path: string | (() => string); body?: () => string; headers: Record<string, string> },
  postgresDatabase?: string,
): Promise<SequentialHttpResult> {
  log(`${label}: one request at a time, ${SETTINGS.loopWarmupSeconds} s warm-up + ${seconds} s`);
  const result = await measureSequentialHttp({
    baseUrl: app.url,
    ...spec,
    seconds,
    warmupSeconds: SETTINGS.loopWarmupSeconds,
    serverPid: app.pid,
    postgresDatabase,
  });
  if (result.non2xx > 0) {
    runState.httpProblems = true;
    detail.notes.push(`${label}: ${integer(result.non2xx)} non-2xx responses (${statusText(result.statusCodes)})`);
  }
  return result;
}

/** Customers in rotation: each call gives the next one. */
export function rotation(ids: readonly number[]): () => number {
  let i = 0;
  return () => {
    const id = ids[i++ % ids.length];
    if (id === undefined) throw new Error('no customers to rotate over');
    return id;
  };
}

/** The result of `run`, or why it is missing: the failure is noted and the run goes on. */
export async function orFailure<T>(what: string, logLine: string, run: () => Promise<T>): Promise<T | string> {
  try {
    return await run();
  } catch (error) {
    runState.failed = true;
    detail.notes.push(`${what} failed: ${(error as Error).stack ?? error}`);
    log(`${logLine} failed: ${(error as Error).message}`);
    return 'failed (see notes)';
  }
}
