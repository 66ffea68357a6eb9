import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Db, PoolUsage } from '../db/database.js';
import type { TaskObserver } from '../tasks/periodic-task.js';

export interface ServiceMetricsOptions {
  db: Db;
  /** PostgreSQL's connection pools (DatabaseHandle.pools); the embedded database has none, so no pool gauges. */
  pools?: Record<string, PoolUsage>;
  /** E-mail outbox and bulk queue depth, counted on each scrape (the billing API; the capture host has no queues). */
  queues?: boolean;
  /** The process's own metrics (CPU, memory, event loop lag, GC): on in a started service, off in tests. */
  processMetrics?: boolean;
}

/** Request duration buckets in seconds: a fast read to a slow gateway call. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * One app's metrics in its own registry (not prom-client's global one: tests, and
 * `npm start` with its two hosts, build several apps in one process).
 */
export class ServiceMetrics implements TaskObserver {
  readonly registry = new Registry();
  readonly httpRequests: Counter<'method' | 'route' | 'status_code'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status_code'>;
  readonly taskRuns: Counter<'task'>;
  readonly taskFailures: Counter<'task'>;
  readonly taskDuration: Histogram<'task'>;
  readonly payments: Counter<'status'>;
  readonly paymentsNeedingAttention: Counter;

  constructor(options: ServiceMetricsOptions) {
    const registers = [this.registry];
    this.httpRequests = new Counter({
      name: 'renew_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern (unmatched: no route) and status code',
      labelNames: ['method', 'route', 'status_code'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: 'renew_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by method, route pattern and status code',
      labelNames: ['method', 'route', 'status_code'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.taskRuns = new Counter({
      name: 'renew_background_task_runs_total',
      help: 'Runs of a background task (failed ones included)',
      labelNames: ['task'],
      registers,
    });
    this.taskFailures = new Counter({
      name: 'renew_background_task_failures_total',
      help: 'Runs of a background task that failed (logged; the next run carries on)',
      labelNames: ['task'],
      registers,
    });
    this.taskDuration = new Histogram({
      name: 'renew_background_task_duration_seconds',
      help: 'Time a background task run took',
      labelNames: ['task'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.payments = new Counter({
      name: 'renew_payments_total',
      help: 'Payments recorded, by outcome (succeeded; failed: declined by the gateway)',
      labelNames: ['status'],
      registers,
    });
    this.payments.inc({ status: 'succeeded' }, 0);
    this.payments.inc({ status: 'failed' }, 0);
    this.paymentsNeedingAttention = new Counter({
      name: 'renew_payments_needing_attention_total',
      help: 'Charges the gateway made that were neither recorded nor refunded (a failed compensation): each needs an operator',
      registers,
    });

    if (options.pools) this.poolGauges(options.pools);
    if (options.queues) this.queueGauges(options.db);
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /** A background task of this app: its runs and failures are counted, its state is a gauge (1 running, 0 stopped). */
  watchTasks(tasks: () => ReadonlyArray<{ name: string; isRunning: boolean }>) {
    new Gauge({
      name: 'renew_background_task_running',
      help: 'Whether a background task is running (1) or stopped (0)',
      labelNames: ['task'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const task of tasks()) this.set({ task: task.name }, task.isRunning ? 1 : 0);
      },
    });
  }

  /** The longest time between two of this instance's heartbeats (db/instance-liveness.ts): keep it well under RENEW_CLAIM_STALE_MS. */
  watchHeartbeat(worstGapSeconds: () => number) {
    new Gauge({
      name: 'renew_instance_heartbeat_worst_gap_seconds',
      help: "The longest time between two of this instance's heartbeats since it started; at RENEW_CLAIM_STALE_MS others would take its claims",
      registers: [this.registry],
      collect() {
        this.set(worstGapSeconds());
      },
    });
  }

  runFinished(task: string, seconds: number, failed: boolean) {
    this.taskRuns.inc({ task });
    this.taskDuration.observe({ task }, seconds);
    if (failed) this.taskFailures.inc({ task });
  }

  paymentRecorded(status: 'Succeeded' | 'Failed') {
    this.payments.inc({ status: status === 'Succeeded' ? 'succeeded' : 'failed' });
  }

  paymentNeedsAttention() {
    this.paymentsNeedingAttention.inc();
  }

  recordRequest(labels: { method: string; route: string; status_code: string }, seconds: number) {
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  private poolGauges(pools: Record<string, PoolUsage>) {
    const registers = [this.registry];
    const gauge = (name: string, help: string, read: (pool: PoolUsage) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['pool'],
        registers,
        collect() {
          for (const [pool, usage] of Object.entries(pools)) this.set({ pool }, read(usage));
        },
      });
    gauge('renew_db_pool_connections', 'Open connections of a PostgreSQL pool (main: the API; counters: rate limits)', (p) => p.totalCount);
    gauge('renew_db_pool_idle_connections', 'Idle connections of a PostgreSQL pool', (p) => p.idleCount);
    gauge('renew_db_pool_waiting_requests', 'Queries waiting for a connection of a PostgreSQL pool', (p) => p.waitingCount);
  }

  /** Counted on scrape with a COUNT on a partial index each; NaN when the database does not answer (readyz tells why). */
  private queueGauges(db: Db) {
    const registers = [this.registry];
    new Gauge({
      name: 'renew_email_outbox_pending',
      help: 'E-mails waiting in the outbox to be sent (retries included)',
      registers,
      async collect() {
        try {
          const row = await db
            .selectFrom('emailOutbox')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('status', '=', 'Pending')
            .executeTakeFirst();
          this.set(Number(row?.n ?? 0));
        } catch {
          this.set(Number.NaN);
        }
      },
    });
    new Gauge({
      name: 'renew_bulk_queue_records',
      help: 'Records of bulk payment jobs being processed: pending (not taken yet) and processing (taken by a worker)',
      labelNames: ['status'],
      registers,
      async collect() {
        try {
          const rows = await db
            .selectFrom('bulkJobRecords as r')
            .innerJoin('bulkJobs as j', 'j.id', 'r.jobId')
            .select(['r.status', (eb) => eb.fn.countAll<number>().as('n')])
            .where('j.status', '=', 'Processing')
            .where('r.status', 'in', ['Pending', 'Processing'])
            .groupBy('r.status')
            .execute();
          const count = (status: string) => Number(rows.find((row) => row.status === status)?.n ?? 0);
          this.set({ status: 'pending' }, count('Pending'));
          this.set({ status: 'processing' }, count('Processing'));
        } catch {
          this.set({ status: 'pending' }, Number.NaN);
          this.set({ status: 'processing' }, Number.NaN);
        }
      },
    });
  }
}
