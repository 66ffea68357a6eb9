import http from 'node:http';
import autocannon from 'autocannon';
import { cpuShares, cpuSnapshot, type CpuShares } from './cpu.js';

/** Load generation: autocannon for throughput, a sequential loop for latency percentiles. */

export interface ThroughputSpec {
  baseUrl: string;
  method: 'GET' | 'POST';
  /** A fixed path, or a function giving each request's path (e.g. a random customer id). */
  path: string | (() => string);
  headers?: Record<string, string>;
  /** A fixed body, or a function giving each request's body (a fresh customer, a single-use token). */
  body?: string | (() => string);
  connections: number;
  seconds: number;
  /** Run first with the same settings and thrown away (JIT, connection pools, caches). */
  warmupSeconds: number;
  /**
   * A fixed number of requests instead of a duration (warm-up, then measured):
   * for requests that each use up something made beforehand (a Draft customer to activate).
   */
  requests?: { warmup: number; measured: number };
  /** Pid of the server process, for its CPU share. */
  serverPid?: number;
  /** Name of the PostgreSQL database the server uses, for its backends' CPU share. */
  postgresDatabase?: string;
  /** Started after the warm-up and stopped when the measured run ends. */
  probe?: { start(): Promise<void>; stop(): Promise<void> };
}

export interface ThroughputResult {
  requestsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; mean: number };
  total: number;
  ok: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  errors: number;
  timeouts: number;
  seconds: number;
  cpu?: CpuShares;
}

export async function measureThroughput(spec: ThroughputSpec): Promise<ThroughputResult> {
  const pathFn = spec.path;
  const bodyFn = spec.body;
  // autocannon calls setupRequest once for every request it sends
  const setupRequest = (request: autocannon.Request): autocannon.Request => ({
    ...request,
    ...(typeof pathFn === 'function' ? { path: pathFn() } : {}),
    ...(typeof bodyFn === 'function' ? { body: bodyFn() } : {}),
  });
  const dynamic = typeof pathFn === 'function' || typeof bodyFn === 'function';
  const options = (length: { seconds: number } | { amount: number }): autocannon.Options => ({
    url: spec.baseUrl + (typeof pathFn === 'string' ? pathFn : '/'),
    connections: 'amount' in length ? Math.min(spec.connections, length.amount) : spec.connections,
    pipelining: 1,
    ...('amount' in length ? { amount: length.amount } : { duration: length.seconds }),
    method: spec.method,
    headers: spec.headers,
    ...(typeof bodyFn === 'string' ? { body: bodyFn } : {}),
    ...(dynamic ? { requests: [{ setupRequest }] } : {}),
  });
  if (spec.requests) {
    if (spec.requests.warmup > 0) await autocannon(options({ amount: spec.requests.warmup }));
  } else if (spec.warmupSeconds > 0) {
    await autocannon(options({ seconds: spec.warmupSeconds }));
  }
  await spec.probe?.start();
  const before = cpuSnapshot(spec.serverPid, spec.postgresDatabase);
  const startedAt = performance.now();
  // With a fixed number of requests autocannon only notices the last answer at its next one-second
  // tick, and its duration is that tick's: the run ends, and its CPU is read, at the last answer instead.
  let lastAnswer: { at: number; cpu: ReturnType<typeof cpuSnapshot> } | undefined;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      options(spec.requests ? { amount: spec.requests.measured } : { seconds: spec.seconds }),
      (error, finished) => (error ? reject(error) : resolve(finished)),
    );
    if (!spec.requests) return;
    let answered = 0;
    const measured = spec.requests.measured;
    const onAnswer = () => {
      answered += 1;
      if (answered === measured) lastAnswer = { at: performance.now(), cpu: cpuSnapshot(spec.serverPid, spec.postgresDatabase) };
    };
    instance.on('response', onAnswer);
    instance.on('reqError', onAnswer);
  });
  const cpu = cpuShares(before, lastAnswer?.cpu ?? cpuSnapshot(spec.serverPid, spec.postgresDatabase));
  await spec.probe?.stop();
  const seconds = lastAnswer ? (lastAnswer.at - startedAt) / 1000 : result.duration;

  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stats?.count ?? 0;
  const total = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
  return {
    // responses received over the measured duration (autocannon's own average is of per-second buckets)
    requestsPerSecond: total / seconds,
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, mean: result.latency.mean },
    total,
    ok: result['2xx'],
    non2xx: result.non2xx,
    statusCodes,
    errors: result.errors,
    timeouts: result.timeouts,
    seconds,
    ...(cpu ? { cpu } : {}),
  };
}

export interface LoopResult {
  count: number;
  seconds: number;
  perSecond: number;
  latencyMs: { p50: number; p95: number; p99: number; mean: number };
  cpu?: CpuShares;
}

/** Whose CPU to account for besides this process. */
export interface CpuTargets {
  serverPid?: number;
  postgresDatabase?: string;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  // the index is within the array, whose length is not 0 here
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

/** Calls `fn` back to back (one at a time) for `seconds` after a warm-up, timing each call. */
export async function measureLoop(
  fn: (measuring: boolean) => Promise<unknown>,
  seconds: number,
  warmupSeconds: number,
  cpuTargets: CpuTargets = {},
): Promise<LoopResult> {
  const warmEnd = performance.now() + warmupSeconds * 1000;
  while (performance.now() < warmEnd) await fn(false);
  const before = cpuSnapshot(cpuTargets.serverPid, cpuTargets.postgresDatabase);
  const latencies: number[] = [];
  const start = performance.now();
  const end = start + seconds * 1000;
  let now = start;
  while (now < end) {
    const t = now;
    await fn(true);
    now = performance.now();
    latencies.push(now - t);
  }
  const cpu = cpuShares(before, cpuSnapshot(cpuTargets.serverPid, cpuTargets.postgresDatabase));
  const elapsed = (now - start) / 1000;
  latencies.sort((a, b) => a - b);
  const mean = latencies.reduce((a, b) => a + b, 0) / latencies.length;
  return {
    count: latencies.length,
    seconds: elapsed,
    perSecond: latencies.length / elapsed,
    latencyMs: { p50: percentile(latencies, 50), p95: percentile(latencies, 95), p99: percentile(latencies, 99), mean },
    ...(cpu ? { cpu } : {}),
  };
}

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One HTTP request over a keep-alive agent, body read in full. */
export function httpRequest(
  agent: http.Agent,
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<HttpResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: body ? { ...headers, 'content-length': Buffer.byteLength(body) } : headers,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

export interface SequentialHttpResult extends LoopResult {
  statusCodes: Record<string, number>;
  non2xx: number;
  /** Headers of the last response (e.g. X-Count of a list). */
  lastHeaders: http.IncomingHttpHeaders;
}

/** One client, one request at a time: latency without queueing, p50/p95/p99 from every sample. */
export async function measureSequentialHttp(
  spec: {
    baseUrl: string;
    /** Default GET. */
    method?: 'GET' | 'POST';
    /** A fixed path, or one per request (e.g. customers in rotation). */
    path: string | (() => string);
    headers?: Record<string, string>;
    body?: string | (() => string);
    seconds: number;
    warmupSeconds: number;
  } & CpuTargets,
): Promise<SequentialHttpResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const statusCodes: Record<string, number> = {};
  let non2xx = 0;
  let lastHeaders: http.IncomingHttpHeaders = {};
  try {
    const result = await measureLoop(
      async (measuring) => {
        const path = typeof spec.path === 'function' ? spec.path() : spec.path;
        const body = typeof spec.body === 'function' ? spec.body() : spec.body;
        const response = await httpRequest(agent, spec.baseUrl, spec.method ?? 'GET', path, spec.headers, body);
        if (!measuring) return;
        statusCodes[response.status] = (statusCodes[response.status] ?? 0) + 1;
        if (response.status < 200 || response.status > 299) non2xx += 1;
        lastHeaders = response.headers;
      },
      spec.seconds,
      spec.warmupSeconds,
      spec,
    );
    return { ...result, statusCodes, non2xx, lastHeaders };
  } finally {
    agent.destroy();
  }
}
