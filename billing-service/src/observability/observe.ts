import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { PeriodicTask } from '../tasks/periodic-task.js';
import type { Db, PoolUsage } from '../db/database.js';
import { pendingMigrations } from '../db/migrate.js';
import '../http/context.js';
import { ApiError, errorBody, type ErrorBody } from '../http/errors.js';
import { ServiceMetrics } from './metrics.js';

/**
 * What operators look at, shared by the billing API and the card-capture host:
 * GET /healthz (the process answers), GET /readyz (database reachable, migrations
 * applied, background tasks running) and GET /metrics (Prometheus text). None needs
 * an API key and none is rate limited (they are `public` routes); /metrics has its
 * own guard: a bearer token (RENEW_METRICS_TOKEN), or loopback clients only.
 */

export interface ObservabilityOptions {
  /** RENEW_METRICS_TOKEN: GET /metrics needs `Authorization: Bearer <token>`. Unset: loopback clients only. */
  metricsToken?: string;
  /** PostgreSQL's pools (DatabaseHandle.pools), for the pool-usage gauges. */
  pools?: Record<string, PoolUsage>;
  /** Process metrics (CPU, memory, event loop, GC); the start scripts turn them on. */
  processMetrics?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** true: a health probe, answered over plain HTTP even where HTTPS is required (it carries nothing secret). */
    probe?: boolean;
  }
}

export const HEALTH_PATH = '/healthz';
export const READY_PATH = '/readyz';
export const METRICS_PATH = '/metrics';

/** How long readyz waits for the database before calling it unreachable. */
const DATABASE_TIMEOUT_MS = 2_000;
/** How often the database check behind /readyz runs once /readyz has been asked (the answer is the last check's). */
const READINESS_PROBE_MS = 1_000;
/** A last check older than this (the probe itself stalled) is not trusted: /readyz checks afresh. */
const READINESS_STALE_MS = 5_000;

export class Observability {
  readonly metrics: ServiceMetrics;
  private readonly tasks: PeriodicTask[] = [];
  private readonly database: DatabaseProbe;

  constructor(
    private readonly app: FastifyInstance,
    db: Db,
    private readonly options: ObservabilityOptions & { queues?: boolean },
  ) {
    this.metrics = new ServiceMetrics({
      db,
      queues: options.queues ?? false,
      processMetrics: options.processMetrics ?? false,
      ...(options.pools ? { pools: options.pools } : {}),
    });
    this.metrics.watchTasks(() => this.tasks);
    this.metrics.watchHeartbeat(() => app.ctx.instance.worstGapMs / 1000);
    this.database = new DatabaseProbe(db, app.log);
    app.addHook('onClose', async () => this.database.stop());
  }

  /** A background task of this app: readyz needs it running; its runs and failures are counted. */
  watch(task: PeriodicTask) {
    task.observer = this.metrics;
    this.tasks.push(task);
  }

  /** /healthz, /readyz and /metrics; register after the authentication hook (they are public routes). */
  registerRoutes() {
    const app = this.app;
    const hidden = { hide: true } as Record<string, unknown>;
    app.get(HEALTH_PATH, { config: { public: true, probe: true }, schema: hidden }, async () => ({
      status: 'ok',
      uptimeSeconds: Math.round(process.uptime()),
    }));

    app.get(READY_PATH, { config: { public: true, probe: true }, schema: hidden }, async (_request, reply) => {
      const report = withTasks(await this.database.last(), this.tasks);
      if (report.failures.length > 0) {
        const body: ErrorBody = errorBody(503, report.failures);
        return reply.code(503).type('application/json; charset=utf-8').send(body);
      }
      return { status: 'ready', checks: report.checks };
    });

    const guard = metricsGuard(this.options.metricsToken);
    app.get(METRICS_PATH, { config: { public: true }, schema: hidden, onRequest: guard }, async (_request, reply) => {
      const text = await this.metrics.registry.metrics();
      return reply.type(this.metrics.registry.contentType).send(text);
    });
  }
}

/**
 * Creates the app's metrics and counts every response by route pattern (never the
 * raw URL: ids would make a series per customer) and status. Call right after
 * the jsonApi plugin, before any route, so that every route is counted; payments are
 * counted through `app.ctx.metrics`.
 */
export function observe(app: FastifyInstance, db: Db, options: ObservabilityOptions & { queues?: boolean } = {}): Observability {
  const observability = new Observability(app, db, options);
  app.ctx.metrics = observability.metrics;
  app.addHook('onResponse', async (request, reply) => {
    const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) };
    observability.metrics.recordRequest(labels, reply.elapsedTime / 1000);
  });
  return observability;
}

export interface ReadinessReport {
  checks: { database: string; migrations: string; backgroundTasks: Record<string, 'running' | 'stopped'> };
  /** One entry per failed check, keyed by its name (the 503's Errors). */
  failures: ErrorBody['Errors'];
}

/**
 * The database half of readiness, checked in the background every READINESS_PROBE_MS once asked for,
 * so that /readyz answers at once whatever the load (a balancer's check times out in a second or so;
 * a `select 1` queued behind a busy pool must not take the instance out). The first ask, and an ask
 * when the probe has stalled, wait for a check.
 */
class DatabaseProbe {
  private report: { at: number; value: ReadinessReport } | undefined;
  private running: Promise<ReadinessReport> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
  ) {}

  async last(): Promise<ReadinessReport> {
    if (!this.timer && !this.stopped) {
      this.timer = setInterval(() => void this.check(), READINESS_PROBE_MS);
      this.timer.unref();
    }
    const cached = this.report;
    if (cached && performance.now() - cached.at < READINESS_STALE_MS) return cached.value;
    return this.check();
  }

  private check(): Promise<ReadinessReport> {
    this.running ??= checkDatabase(this.db, this.log)
      .then((value) => {
        this.report = { at: performance.now(), value };
        return value;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  stop() {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** A database report with this app's background tasks added (read live: they cost nothing to read). */
function withTasks(report: ReadinessReport, tasks: ReadonlyArray<PeriodicTask>): ReadinessReport {
  const failures = [...report.failures];
  const checks: ReadinessReport['checks'] = { ...report.checks, backgroundTasks: {} };
  for (const task of tasks) {
    checks.backgroundTasks[task.name] = task.isRunning ? 'running' : 'stopped';
    if (!task.isRunning) failures.push({ Key: 'backgroundTasks', Value: `${task.name} is stopped`, Code: 'internal_error' });
  }
  return { checks, failures };
}

/** Whether the database answers and every migration is applied (the tasks are added by withTasks). */
async function checkDatabase(db: Db, log: FastifyBaseLogger): Promise<ReadinessReport> {
  const failures: ErrorBody['Errors'] = [];
  const checks: ReadinessReport['checks'] = { database: 'ok', migrations: 'ok', backgroundTasks: {} };
  try {
    await withTimeout(sql`select 1`.execute(db), DATABASE_TIMEOUT_MS);
  } catch (error) {
    // The cause goes to the log, not to an unauthenticated caller.
    log.warn({ err: error }, 'readyz: the database did not answer');
    checks.database = 'unreachable';
    checks.migrations = 'not checked';
    failures.push({ Key: 'database', Value: 'the database did not answer', Code: 'database_unavailable' });
  }
  if (checks.database === 'ok') {
    try {
      const pending = await withTimeout(pendingMigrations(db), DATABASE_TIMEOUT_MS);
      if (pending.length > 0) {
        checks.migrations = `not applied: ${pending.join(', ')}`;
        failures.push({ Key: 'migrations', Value: `not applied: ${pending.join(', ')}`, Code: 'internal_error' });
      }
    } catch (error) {
      log.warn({ err: error }, 'readyz: the applied migrations could not be read');
      checks.migrations = 'unknown';
      failures.push({ Key: 'migrations', Value: 'the applied migrations could not be read', Code: 'database_unavailable' });
    }
  }
  return { checks, failures };
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 (::ffff:127.0.0.1). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.toLowerCase().startsWith('::ffff:') ? address.slice(7) : address;
  return v4 === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * With a token: `Authorization: Bearer <token>` or 401. Without: the connection and
 * the client (request.ip, which believes X-Forwarded-For only from trusted proxies)
 * must both be loopback, else 403, so a reverse proxy on the same host does not
 * hand the metrics to the internet.
 */
export function metricsGuard(token: string | undefined) {
  const expected = token ? digest(token) : undefined;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (expected) {
      const match = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '');
      const sent = match?.[1];
      if (sent && timingSafeEqual(digest(sent.trim()), expected)) return;
      reply.header('WWW-Authenticate', 'Bearer realm="metrics"');
      throw ApiError.unauthorized('GET /metrics needs Authorization: Bearer <RENEW_METRICS_TOKEN>');
    }
    if (isLoopback(request.socket.remoteAddress) && isLoopback(request.ip)) return;
    throw ApiError.of(
      403,
      'the metrics are served to loopback clients only; set RENEW_METRICS_TOKEN to scrape them from elsewhere',
      'forbidden',
    );
  };
}
