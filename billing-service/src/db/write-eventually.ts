/**
 * Runs a write that must not be lost when the database is away just then (letting go of a claim,
 * recording an answer): tried now, and if that fails, again in the background with a growing pause
 * (0.5 s doubling to 30 s) until it goes through, for at most `giveUpAfterMs` (then the claim's own
 * lease frees it). A restarted database is thus freed of a live process's claim within seconds of
 * coming back, not after the lease. The write must be safe to run more than once (fenced: it changes
 * nothing once the claim is no longer its own).
 */
export async function writeEventually(write: () => Promise<unknown>, giveUpAfterMs = 60 * 60_000): Promise<void> {
  try {
    await write();
  } catch {
    const giveUpAt = performance.now() + giveUpAfterMs;
    let delayMs = 500;
    const retry = () =>
      void write().catch(() => {
        if (performance.now() > giveUpAt) return;
        delayMs = Math.min(delayMs * 2, 30_000);
        setTimeout(retry, delayMs).unref();
      });
    setTimeout(retry, delayMs).unref();
  }
}
