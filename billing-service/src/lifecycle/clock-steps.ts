import { isLostClaim } from '../db/claims.js';
import { isDatabaseUnavailable } from '../db/connection-errors.js';
import { Refusal } from '../refusals/refusal.js';
import type { CustomerRef } from './clock-repository.js';

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
      if (error instanceof Refusal || isLostClaim(error)) continue;
      if (isDatabaseUnavailable(error)) throw error;
      failures.push({ customerId: customer.id, accountId: customer.accountId, step, error: describe(error) });
    }
  }
  return done;
}

/** The ids of the customers whose move answered true. */
export function movedIds<C extends CustomerRef>(done: Array<{ customer: C; outcome: boolean }>): number[] {
  return done.filter((d) => d.outcome).map((d) => d.customer.id);
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
