import { randomBytes } from 'node:crypto';
import { wallClockNow } from '../clock/account-clock.js';
import type { Caller } from './auth.js';

/** The header an in-process request (`app.inject`) carries its one-time nonce in. */
export const IN_PROCESS_CALLER_HEADER = 'x-renew-in-process-caller';

/**
 * Callers handed to requests this process makes to itself (the console's /console/api/v1 proxy): the
 * proxy issues a one-time random nonce for the caller it vouches for and sends it in
 * IN_PROCESS_CALLER_HEADER; the API-key hook takes it back. The nonces live in this process's memory
 * only, are used once and expire in seconds, so nothing a client outside could send stands for a
 * caller: a request from outside carrying the header is refused.
 */
export class InProcessCallers {
  private static readonly LIFETIME_MS = 30_000;
  private readonly pending = new Map<string, { caller: Caller; expires: number }>();

  issue(caller: Caller): string {
    const now = wallClockNow().getTime();
    // Bounded: entries are taken within milliseconds; a leftover (a request that never arrived) expires.
    if (this.pending.size > 1_000) for (const [nonce, entry] of this.pending) if (entry.expires <= now) this.pending.delete(nonce);
    const nonce = randomBytes(32).toString('base64url');
    this.pending.set(nonce, { caller, expires: now + InProcessCallers.LIFETIME_MS });
    return nonce;
  }

  /** The caller of a nonce this process issued and nobody took yet; undefined for anything else. */
  take(nonce: string | string[] | undefined): Caller | undefined {
    if (typeof nonce !== 'string') return undefined;
    const entry = this.pending.get(nonce);
    if (!entry) return undefined;
    this.pending.delete(nonce);
    return entry.expires > wallClockNow().getTime() ? entry.caller : undefined;
  }
}
