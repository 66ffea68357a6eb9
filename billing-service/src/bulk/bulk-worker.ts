import { wallClockNow } from '../clock/account-clock.js';
import type { FastifyBaseLogger } from 'fastify';
import { PeriodicTask } from '../tasks/periodic-task.js';
import type { AppContext } from '../app-context.js';
import { claimRecords } from './repository.js';
import { collectBulkBatch, completeFinishedBulkJobs } from './service.js';

export interface BulkWorkerOptions {
  /** How often to look for work other instances queued (this instance's own Process calls wake it at once). Default 1 s. */
  pollMs?: number;
  /**
   * A record still claimed this long after its claim is claimed again (a run that failed unexpectedly).
   * Default 5 minutes (beyond any gateway timeout). A record of an instance that died is claimed again
   * as soon as its heartbeat is stale (seconds: db/instance-liveness.ts).
   */
  staleAfterMs?: number;
  /** Records claimed at once (default 32); those paid one at a time go `parallel` customers side by side (default 4: gateway calls overlap), each customer's in record order. */
  batchSize?: number;
  parallel?: number;
  /**
   * Records claimed at once while the last claim was all paid in one transaction (default 256): one
   * commit pays more; a claim with card records goes back to batchSize, so none waits long for its lane.
   */
  paymentBatchSize?: number;
  /** Records that need no gateway call are paid a batch per transaction (default); false: one at a time, like card records. */
  batchPayments?: boolean;
}

/**
 * Processes bulk payment jobs in the background, a batch of records at a time. The
 * database is the queue (rows claimed with SKIP LOCKED), so it works the same on
 * the embedded database and on PostgreSQL, where several instances share the work.
 */
export class BulkPaymentWorker {
  /** Its state and run counts are watched by the readiness check and the metrics. */
  readonly task: PeriodicTask;
  private readonly staleAfterMs: number;
  private readonly batchSize: number;
  private readonly paymentBatchSize: number;
  private readonly parallel: number;
  private readonly batchPayments: boolean;

  constructor(
    private readonly ctx: AppContext,
    private readonly log: FastifyBaseLogger,
    options: BulkWorkerOptions = {},
  ) {
    this.staleAfterMs = options.staleAfterMs ?? 5 * 60_000;
    this.batchSize = options.batchSize ?? 32;
    this.paymentBatchSize = options.paymentBatchSize ?? 256;
    this.parallel = options.parallel ?? 4;
    this.batchPayments = options.batchPayments ?? true;
    // A record that failed unexpectedly stays claimed and is taken again once stale.
    this.task = new PeriodicTask('bulk payment worker', options.pollMs ?? 1_000, () => this.drain(), log);
  }

  start() {
    this.task.start();
  }

  /** Work was queued: drain now instead of at the next poll. */
  wake() {
    this.task.tick();
  }

  /** Stops polling and waits for the batch in hand. */
  async stop() {
    await this.task.stop();
  }

  private async drain() {
    let limit = this.batchSize;
    while (!this.task.stopped) {
      const batch = await claimRecords(this.ctx.db, this.ctx.instance, wallClockNow(), this.staleAfterMs, limit);
      if (batch.length === 0) break;
      const { oneAtATime } = await collectBulkBatch(this.ctx, batch, {
        parallel: this.parallel,
        batchPayments: this.batchPayments,
        log: this.log,
      });
      limit = oneAtATime === 0 ? this.paymentBatchSize : this.batchSize;
    }
    if (!this.task.stopped) await completeFinishedBulkJobs(this.ctx, wallClockNow());
  }
}
