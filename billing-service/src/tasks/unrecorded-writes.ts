/**
 * The outcome of work done outside the database (an e-mail sent, a webhook delivered) that could
 * not be written because the database went away just then. Kept in memory and written first
 * thing in the worker's next run, so the work is not done a second time (as it would be if its
 * claim were simply left to lapse). A process that dies with writes held here leaves its claims
 * to the other instances (db/instance-liveness.ts): at least once, never lost.
 */
export class UnrecordedWrites {
  private readonly held: Array<() => Promise<unknown>> = [];

  /** Writes now; if that fails, holds the write for `replay` and rethrows (the run ends: the database is away). */
  async write(write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (error) {
      this.held.push(write);
      throw error;
    }
  }

  /** Writes what is held, oldest first; throws at the first that still fails (it stays held, with those after it). */
  async replay(): Promise<void> {
    for (let next = this.held[0]; next; next = this.held[0]) {
      await next();
      this.held.shift();
    }
  }

  get size(): number {
    return this.held.length;
  }
}
