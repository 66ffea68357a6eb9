import { isLostClaim } from '../db/claims.js';
import { isDatabaseUnavailable } from '../db/connection-errors.js';
import { Refusal } from '../refusals/refusal.js';
import { batchOf, type ClockScope, type CustomerRef } from './clock-repository.js';

/** The moves of a billing clock tick that act on one customer at a time. */
export type ClockStep = 'periodEndCancellation' | 'renewal' | 'collection' | 'reactivation' | 'suspension' | 'autoCancel';

/** One customer's move that failed in a tick: logged, and tried again next tick; the tick went on with the others. */
export interface ClockFailure {
  customerId: number;
  accountId: number;
  step: ClockStep;
  error: string;
}

/**
 * Runs `move` for each customer. A refusal (the customer moved on meanwhile, e.g. another instance got there
 * first, or a claim this paused process lost to another) skips it. Any other failure of one customer is recorded in `failures` and the others go on: one
 * customer's bad data or a bug in one path holds no other customer, and no other account, for a tick. A
 * database that is away stops the tick (every customer would fail alike; the task backs off).
 */
export async function eachCustomer<C extends CustomerRef, R>(
  customers: C[],
  step: ClockStep,
  failures: ClockFailure[],
  move: (customer: C) => Promise<R>,
): Promise<Array<{ customer: C; outcome: R }>> {
  const done: Array<{ customer: C; outcome: R }> = [];
  for (const customer of customers) {
    try {
      done.push({ customer, outcome: await move(customer) });
    } catch (error) {
      // a gateway that is away is not the customer moving on: recorded (and logged) like any failure
      if ((error instanceof Refusal && !error.byGateway) || isLostClaim(error)) continue;
      if (isDatabaseUnavailable(error)) throw error;
      failures.push({ customerId: customer.id, accountId: customer.accountId, step, error: describe(error) });
    }
  }
  return done;
}

/**
 * Every candidate of a move, page by page (by customer id, a batch a page), each moved as eachCustomer does. A tick
 * goes through all of them: customers who do not move (a manual payer owing, a suspension not due yet) never fill
 * a page and hide those behind them, whichever account they are in.
 */
export async function eachCandidate<C extends CustomerRef, R>(
  scope: ClockScope,
  candidates: (page: ClockScope) => Promise<C[]>,
  step: ClockStep,
  failures: ClockFailure[],
  move: (customer: C) => Promise<R>,
): Promise<Array<{ customer: C; outcome: R }>> {
  const done: Array<{ customer: C; outcome: R }> = [];
  let page = scope;
  for (;;) {
    const customers = await candidates(page);
    done.push(...(await eachCustomer(customers, step, failures, move)));
    const last = customers.at(-1);
    if (!last || customers.length < batchOf(scope)) return done;
    page = { ...scope, after: last.id };
  }
}

/** The ids of the customers whose move answered true. */
export function movedIds<C extends CustomerRef>(done: Array<{ customer: C; outcome: boolean }>): number[] {
  return done.filter((d) => d.outcome).map((d) => d.customer.id);
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
