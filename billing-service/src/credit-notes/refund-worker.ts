import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../app-context.js';
import { isDatabaseUnavailable } from '../db/connection-errors.js';
import type { Caller } from '../http/auth.js';
import { PeriodicTask } from '../tasks/periodic-task.js';
import { refundCreditNote } from './refunds.js';
import { creditNotesWithUnfinishedRefunds } from './repository.js';

export interface CreditNoteRefundOptions {
  /** How often to look for unfinished refunds (default 10 s). */
  intervalMs?: number;
  /** A plan older than this was left by its request (default 60 s, and at least twice the gateway timeout). */
  olderThanSeconds?: number;
}

/** The service acting on its own: audited as `system`, source `credit note refunds`. */
function systemCaller(accountId: number): Caller {
  return { accountId, keyKind: 'system', auditSource: 'credit note refunds', rateLimits: { perMinute: 0, perDay: 0 }, keyHash: '' };
}

/**
 * Finishes the refunds of credit notes whose request ended before them (the process died after the note committed,
 * or the gateway did not answer): runs the request's own refund step again, whose refunds are keyed per payment
 * (`credit-note-{id}-payment-{id}`), so a refund the request made, or a retry or another instance makes at the same
 * time, is made once. Then the note's credit pays what the refunds reopened, as in the request. A plan the refund
 * path refuses (the payment disputed or refunded since) is marked and left as the customer's credit.
 */
export function creditNoteRefundTask(ctx: AppContext, log: FastifyBaseLogger, options: CreditNoteRefundOptions = {}): PeriodicTask {
  const olderThanSeconds = Math.max(options.olderThanSeconds ?? 60, (2 * ctx.payments.gatewayTimeoutMs) / 1000);
  return new PeriodicTask(
    'credit note refunds',
    options.intervalMs ?? 10_000,
    async () => {
      await finishCreditNoteRefunds(ctx, log, olderThanSeconds);
    },
    log,
  );
}

/** One pass: answers how many credit notes it ran the refunds of. */
export async function finishCreditNoteRefunds(ctx: AppContext, log: FastifyBaseLogger, olderThanSeconds: number): Promise<number> {
  let finished = 0;
  for (const { creditNoteId, accountId } of await creditNotesWithUnfinishedRefunds(ctx.db, olderThanSeconds, 20)) {
    try {
      await refundCreditNote(ctx, systemCaller(accountId), creditNoteId, await ctx.clock.now(accountId));
      log.warn({ creditNoteId }, "a credit note's refunds left unfinished by its request were finished");
      finished += 1;
    } catch (error) {
      // The gateway still away, or this note's own trouble: the others go on; this one is tried again next pass.
      if (isDatabaseUnavailable(error)) throw error;
      log.error({ err: error, creditNoteId }, "a credit note's unfinished refunds failed again; tried again next pass");
    }
  }
  return finished;
}
