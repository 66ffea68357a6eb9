import type { Queryable } from '../db/database.js';
import { findAccountClock } from './repository.js';

/**
 * The one source of "now" for an account's billing: activation dates, periods,
 * due dates, overdue checks, countdowns. Real time, except for an account whose
 * test clock was advanced (RENEW_TEST_CLOCKS=true): that account's time stands
 * still where the last advance left it, like Stripe's test clocks, so months of
 * renewals and dunning can be rehearsed in minutes.
 *
 * Infrastructure that must follow the wall clock (idempotency expiry, rate
 * limits, outbox retry schedules, signature timestamps, short-lived tokens)
 * reads `wallClockNow()` instead, on purpose.
 */
export interface AccountClock {
  /** Whether accounts may have test clocks (RENEW_TEST_CLOCKS=true). */
  readonly testClocks: boolean;
  /** The account's current time; `db` lets a transaction read it consistently. */
  now(accountId: number, db?: Queryable): Promise<Date>;
}

/** The wall clock, for what must not follow an account's test clock (see AccountClock). */
export function wallClockNow(): Date {
  return new Date();
}

/** Production: every account on real time, no database read. */
export const realTimeClock: AccountClock = {
  testClocks: false,
  now: () => Promise.resolve(wallClockNow()),
};

/** RENEW_TEST_CLOCKS=true: an advanced account's frozen time, read from the database each time (instances share it). */
export function testClockSource(db: Queryable): AccountClock {
  return {
    testClocks: true,
    async now(accountId, within = db) {
      const clock = await findAccountClock(within, accountId);
      return clock ? new Date(clock.frozenAt) : wallClockNow();
    },
  };
}
