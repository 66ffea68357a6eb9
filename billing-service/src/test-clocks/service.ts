import { Refusal } from '../refusals/refusal.js';
import type { AppContext } from '../app-context.js';
import type { Caller } from '../http/auth.js';
import { runBillingClock, type ClockMove, type ClockTick } from '../lifecycle/billing-clock.js';
import { wallClockNow } from '../clock/account-clock.js';
import { writeEventually } from '../db/write-eventually.js';
import {
  changedSince,
  claimClockForAdvance,
  countOutboxWritesSince,
  countPostedInvoices,
  deleteAccountClock,
  findAccountClock,
  isAdvancing,
  releaseClock,
  setFrozenTime,
} from '../clock/repository.js';
import type { AdvanceTestClockInput, TestClockAdvanceResponse, TestClockResponse } from './schemas.js';

const DAY_MS = 86_400_000;
/** At most five years per advance (leap days included). */
const MAX_ADVANCE_MS = (5 * 365 + 2) * DAY_MS;
/**
 * An advance claimed longer ago than this is taken to have died (a run that hung); one whose
 * instance died is taken over as soon as the instance's heartbeat is stale (seconds).
 */
const STALE_ADVANCE_MS = 15 * 60_000;

export async function readTestClock(ctx: AppContext, caller: Caller): Promise<TestClockResponse> {
  const clock = await findAccountClock(ctx.db, caller.accountId);
  return { now: (clock?.frozenAt ?? wallClockNow()).toISOString(), advanced: clock !== undefined };
}

/**
 * Moves the account's time forward to `to`, running the billing clock for this
 * account once per day passed (and at `to`): renewals, collection and its daily
 * retries, notices, suspension, reactivation, auto-cancel, each with its e-mails
 * and webhook events. The account's time follows day by day, so a request made
 * meanwhile sees the day being run. Answers once the last day is done.
 */
export async function advanceTestClock(ctx: AppContext, caller: Caller, input: AdvanceTestClockInput): Promise<TestClockAdvanceResponse> {
  const to = new Date(input.to);
  const from = await ctx.clock.now(caller.accountId);
  if (to.getTime() <= from.getTime()) {
    throw Refusal.invalid(`a test clock only moves forward: the account's time is ${from.toISOString()}`, 'to', 'value_invalid');
  }
  if (to.getTime() - from.getTime() > MAX_ADVANCE_MS) {
    throw Refusal.invalid(`at most five years at once: the account's time is ${from.toISOString()}`, 'to', 'value_invalid');
  }
  const wallStart = wallClockNow();
  const claimed = await claimClockForAdvance(ctx.db, ctx.instance, caller.accountId, from, wallStart, STALE_ADVANCE_MS);
  if (claimed.claim === 'busy') {
    throw Refusal.conflict("this account's clock is being advanced by another request; retry when it is done", 'to', 'state_conflict');
  }
  // Every list of a tick, counted over the whole advance.
  const totals: Record<ClockMove, number> = {
    renewed: 0,
    overdueNotices: 0,
    expiryNotices: 0,
    collected: 0,
    declined: 0,
    reactivated: 0,
    suspended: 0,
    cancelled: 0,
  };
  let days = 0;
  try {
    // An advance whose instance died left the clock at the day it was running, maybe part-way through
    // that day's work: finish that day first (the billing clock's work for one time is idempotent).
    if (claimed.claim === 'resumed') await runDay(ctx, caller.accountId, from, totals);
    for (let at = from; at < to; ) {
      at = new Date(Math.min(at.getTime() + DAY_MS, to.getTime()));
      // Fenced: an advance that paused and was taken over stops here, leaving the clock to the taker.
      if (!(await setFrozenTime(ctx.db, caller.accountId, at, claimed.token))) {
        throw Refusal.conflict("this account's clock was taken over by another advance while this one was stalled", 'to', 'state_conflict');
      }
      await runDay(ctx, caller.accountId, at, totals);
      days += 1;
    }
  } finally {
    // Also when the database is away just now (a restart mid-advance): retried until it is back, so the
    // clock is free within seconds of its return rather than after STALE_ADVANCE_MS.
    await writeEventually(() => releaseClock(ctx.db, caller.accountId, claimed.token));
  }
  const outboxes = await countOutboxWritesSince(ctx.db, caller.accountId, wallStart);
  return {
    now: to.toISOString(),
    advanced: true,
    from: from.toISOString(),
    days,
    invoicesPosted: await countPostedInvoices(ctx.db, caller.accountId, from, to),
    customersRenewed: totals.renewed,
    paymentsCollected: totals.collected,
    paymentsFailed: totals.declined,
    overdueNotices: totals.overdueNotices,
    customersSuspended: totals.suspended,
    customersReactivated: totals.reactivated,
    customersCancelled: totals.cancelled,
    emailsQueued: outboxes.emails,
    webhookEventsQueued: outboxes.webhookEvents,
  };
}

/** Runs the account's billing clock at `at` until a tick leaves nothing (a full batch is run again), adding to `totals`. */
async function runDay(ctx: AppContext, accountId: number, at: Date, totals: Record<ClockMove, number>): Promise<void> {
  let tick: ClockTick;
  do {
    tick = await runBillingClock(ctx, at, { kind: 'account', accountId });
    for (const key of Object.keys(totals) as ClockMove[]) totals[key] += tick[key].length;
  } while (tick.more);
}

/**
 * Back to real time. Refused while the account's time is ahead of real time and
 * something was recorded since its first advance: those records are dated in the
 * account's future, and real time would run back past them.
 */
export async function resetTestClock(ctx: AppContext, caller: Caller): Promise<TestClockResponse> {
  const clock = await findAccountClock(ctx.db, caller.accountId);
  const wallNow = wallClockNow();
  if (clock) {
    if (clock.advancingSince && (await isAdvancing(ctx.db, ctx.instance, caller.accountId, wallNow, STALE_ADVANCE_MS))) {
      throw Refusal.conflict("this account's clock is being advanced; reset when the advance is done", 'testclock', 'state_conflict');
    }
    if (clock.frozenAt > wallNow && (await changedSince(ctx.db, caller.accountId, clock.firstAdvancedAt))) {
      throw Refusal.conflict(
        `cannot reset: the account's time (${clock.frozenAt.toISOString()}) is ahead of real time and records were made since the clock was first advanced; going back would date them in the future. Use a new account to start again from real time`,
        'testclock',
        'state_conflict',
      );
    }
    await deleteAccountClock(ctx.db, caller.accountId);
  }
  return { now: wallNow.toISOString(), advanced: false };
}
