import type { FastifyBaseLogger } from 'fastify';

/** Told when a run ends (the service's metrics count runs and failures). */
export interface TaskObserver {
  runFinished(task: string, seconds: number, failed: boolean): void;
}

/**
 * Runs `run` every `intervalMs` in the background, never two runs at once; a
 * failed run is logged and the next one carries on. `stop` waits for the run in hand.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  /** Set by stop(): a long run can check it between steps. */
  stopped = false;
  private started = false;
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
    if (this.running) {
      this.again = true;
      return;
    }
    const startedAt = performance.now();
    let failed = false;
    this.running = this.run()
      .catch((error) => {
        failed = true;
        this.log.error({ err: error }, `${this.name}: the run failed; the next one carries on`);
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

  async stop() {
    this.stopped = true;
    clearInterval(this.timer);
    while (this.running) await this.running;
  }
}
