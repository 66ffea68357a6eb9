import { wallClockNow } from '../clock/account-clock.js';
import type { FastifyBaseLogger } from 'fastify';
import { PeriodicTask } from '../background/periodic-task.js';
import type { AppContext } from '../app-context.js';
import { claimRecords } from './repository.js';
import { collectBulkRecord, completeFinishedBulkJobs } from './service.js';

export interface BulkWorkerOptions {
  /** How often to look for work other instances queued (this instance's own Process calls wake it at once). Default 1 s. */
  pollMs?: number;
  /** A record claimed longer ago than this by an instance that died is claimed again. Default 5 minutes (beyond any gateway timeout). */
  staleAfterMs?: number;
  /** Records claimed at once (default 32) and paid side by side (default 4: gateway calls overlap; one customer's payments still serialize on its row lock). */
  batchSize?: number;
  parallel?: number;
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
  private readonly parallel: number;

  constructor(
    private readonly ctx: AppContext,
    log: FastifyBaseLogger,
    options: BulkWorkerOptions = {},
  ) {
    this.staleAfterMs = options.staleAfterMs ?? 5 * 60_000;
    this.batchSize = options.batchSize ?? 32;
    this.parallel = options.parallel ?? 4;
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
    while (!this.task.stopped) {
      const batch = await claimRecords(this.ctx.db, wallClockNow(), this.staleAfterMs, this.batchSize);
      if (batch.length === 0) break;
      // A few lanes over the batch, each taking the next record in order.
      let next = 0;
      const lane = async () => {
        while (next < batch.length) await collectBulkRecord(this.ctx, batch[next++]!);
      };
      await Promise.all(Array.from({ length: Math.min(this.parallel, batch.length) }, lane));
    }
    if (!this.task.stopped) await completeFinishedBulkJobs(this.ctx, wallClockNow());
  }
}
