import type { FastifyBaseLogger } from 'fastify';
import { isDatabaseUnavailable } from '../db/connection-errors.js';

/** The longest wait between runs while the database is away. */
export const MAX_BACKOFF_MS = 10_000;

/** Told when a run ends (the service's metrics count runs and failures). */
export interface TaskObserver {
  runFinished(task: string, seconds: number, failed: boolean): void;
}

/**
 * Runs `run` every `intervalMs` in the background, never two runs at once; a
 * failed run is logged and the next one carries on. While the database is away
 * (a restart), runs are spaced out (doubling, up to MAX_BACKOFF_MS) and logged
 * once at warn, not as an error per tick, until one succeeds. `stop` waits for the run in hand.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  /** Set by stop(): a long run can check it between steps. */
  stopped = false;
  private started = false;
  /** While the database is away: the current wait, and no run before resumeAt (performance.now()). */
  private backoffMs = 0;
  private resumeAt = 0;
  observer: TaskObserver | undefined;

  constructor(
    readonly name: string,
    private readonly intervalMs: number,
    private readonly run: () => Promise<void>,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Between start() and stop(): the readiness check's "background tasks running". */
  get isRunning(): boolean {
    return this.started && !this.stopped;
  }

  start() {
    this.started = true;
    this.stopped = false;
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  /** Runs now; if a run is under way, once more right after it (work arrived meanwhile). */
  tick() {
    if (this.stopped) return;
    if (this.backoffMs > 0 && performance.now() < this.resumeAt) return;
    if (this.running) {
      this.again = true;
      return;
    }
    const startedAt = performance.now();
    let failed = false;
    this.running = this.run()
      .then(() => {
        if (this.backoffMs > 0) this.log.info(`${this.name}: the database answers again; resumed`);
        this.backoffMs = 0;
      })
      .catch((error) => {
        failed = true;
        if (isDatabaseUnavailable(error)) this.backOff(error);
        else this.log.error({ err: error }, `${this.name}: the run failed; the next one carries on`);
      })
      .finally(() => {
        this.running = undefined;
        try {
          this.observer?.runFinished(this.name, (performance.now() - startedAt) / 1000, failed);
        } catch {
          // metrics never stop the work
        }
        if (this.again) {
          this.again = false;
          this.tick();
        }
      });
  }

  private backOff(error: unknown) {
    if (this.backoffMs === 0)
      this.log.warn({ err: error }, `${this.name}: the database is unavailable; retrying with backoff until it answers`);
    this.backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(this.intervalMs, this.backoffMs * 2));
    this.resumeAt = performance.now() + this.backoffMs;
    // work that arrived meanwhile waits for the database too
    this.again = false;
  }

  async stop() {
    this.stopped = true;
    clearInterval(this.timer);
    while (this.running) await this.running;
  }
}
