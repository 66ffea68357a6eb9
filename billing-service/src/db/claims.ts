import { randomUUID } from 'node:crypto';

/**
 * Fencing for claims. A claim (a bulk record being paid, a webhook delivery being sent, a
 * test-clock advance) gets a new token every time it is taken, taken over included. The write that
 * completes the work names the token it was given and changes nothing when the token is no longer
 * the row's: a holder that was paused (SIGSTOP, a long GC, a throttled container) and resumed after
 * another took its claim over finds out there, in the transaction that would have recorded its work,
 * and that transaction rolls back.
 */
export function newClaimToken(): string {
  return randomUUID();
}

/** Thrown inside a transaction whose claim was taken over: the transaction rolls back, and the holder lets the work go. */
export class LostClaim extends Error {
  constructor(what: string) {
    super(`${what}: the claim was taken over by another instance; this holder's work is not recorded`);
    this.name = 'LostClaim';
  }
}

export function isLostClaim(error: unknown): error is LostClaim {
  return error instanceof LostClaim;
}
