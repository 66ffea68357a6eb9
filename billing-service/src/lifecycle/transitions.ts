import { API_ERROR_KEY } from '../refusals/error-codes.js';
import { Refusal } from '../refusals/refusal.js';
import type { Updateable } from 'kysely';
import { auditEntry } from '../audit/audit-log.js';
import { lockCustomer } from '../customers/repository.js';
import { CUSTOMER_TRANSITIONS, type CustomerTransition, type TransitionName } from '../customers/status-graph.js';
import type { Queryable } from '../db/database.js';
import type { CustomerRow, SubscriptionsTable } from '../db/schema.js';
import type { Caller } from '../http/auth.js';
import { utcDate } from '../invoices/billing-run.js';
import { moveSubscriptionsOfCustomer } from '../subscriptions/repository.js';
import type { SUBSCRIPTION_STATUSES } from '../subscriptions/schemas.js';
import type { AppContext } from '../app-context.js';
import { writeTransition, type MovedSubscription } from './transition-repository.js';

type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export type { TransitionName };

export interface TransitionOptions {
  /** Stamped on subscriptions a cancellation ends. */
  cancellationOption?: string;
  /** false: the subscriptions stay as they are (activation without activateAllSubscriptions). */
  withSubscriptions?: boolean;
}

/** A move of the customer lifecycle (customers/status-graph.ts) with what it does to the customer's subscriptions. */
export interface Transition extends CustomerTransition {
  /** The customer's subscriptions that move with it. */
  subscriptions: {
    from: readonly SubscriptionStatus[];
    to: SubscriptionStatus;
    /** Only those cancelled with the customer that had started: Drafts cancelled with it stay cancelled. */
    cancelledWithCustomer?: true;
    /** Columns set on the moved subscriptions besides status and modifiedAt. */
    stamp: (now: Date, options: TransitionOptions) => Updateable<SubscriptionsTable>;
  };
}

const suspendSubscriptions: Transition['subscriptions'] = { from: ['Active'], to: 'Suspended', stamp: (now) => ({ suspendedAt: now }) };
const resumeSubscriptions: Transition['subscriptions'] = { from: ['Suspended'], to: 'Active', stamp: () => ({ suspendedAt: null }) };
const cancelSubscriptions: Transition['subscriptions'] = {
  from: ['Draft', 'Active', 'Suspended'],
  to: 'Cancelled',
  stamp: (now, o) => ({ cancelledAt: now, cancellationOption: o.cancellationOption ?? null }),
};

const C = CUSTOMER_TRANSITIONS;

/** The customer lifecycle with its subscriptions: every status change a customer makes, and only these. */
export const TRANSITIONS: Readonly<Record<TransitionName, Transition>> = {
  activate: {
    ...C.activate,
    subscriptions: { from: ['Draft'], to: 'Active', stamp: (now) => ({ activatedAt: now, currentPeriodStart: utcDate(now) }) },
  },
  hold: { ...C.hold, subscriptions: suspendSubscriptions },
  unhold: { ...C.unhold, subscriptions: resumeSubscriptions },
  cancel: { ...C.cancel, subscriptions: cancelSubscriptions },
  uncancel: {
    ...C.uncancel,
    subscriptions: {
      from: ['Cancelled'],
      to: 'Active',
      cancelledWithCustomer: true,
      stamp: () => ({ cancelledAt: null, cancellationOption: null }),
    },
  },
  suspend: { ...C.suspend, subscriptions: suspendSubscriptions },
  reactivate: { ...C.reactivate, subscriptions: resumeSubscriptions },
  autoCancel: { ...C.autoCancel, subscriptions: cancelSubscriptions },
};

/**
 * Locks the customer for the rest of the transaction and checks it is in one of
 * the states the operation starts from. Two concurrent operations on one
 * customer serialize here; the second sees the first's result and is refused.
 */
export async function lockCustomerIn(db: Queryable, caller: Caller, customerId: number, allowed: readonly string[]): Promise<CustomerRow> {
  const customer = await lockCustomer(db, caller.accountId, customerId);
  if (!customer) throw Refusal.notFound('customer', customerId);
  if (!allowed.includes(customer.status))
    throw Refusal.invalid(`cannot process since status is ${customer.status}`, API_ERROR_KEY, 'state_conflict');
  return customer;
}

/** Locks the customer and checks the transition starts from its status. */
export function lockCustomerFor(db: Queryable, caller: Caller, customerId: number, name: TransitionName): Promise<CustomerRow> {
  return lockCustomerIn(db, caller, customerId, TRANSITIONS[name].from);
}

/**
 * Makes a transition: locks the customer (given by id; a row is one already
 * locked by lockCustomerFor), moves its subscriptions as the table says, sets
 * its status and writes the audit entry with `details` (a function of the moved
 * subscriptions when the details depend on them, e.g. a cancellation's credit).
 */
export async function transitionCustomer(
  ctx: Pick<AppContext, 'webhooks'>,
  db: Queryable,
  caller: Caller,
  customerOrId: CustomerRow | number,
  name: TransitionName,
  now: Date,
  details:
    | Record<string, unknown>
    | ((moved: MovedSubscription[], customer: CustomerRow) => Promise<Record<string, unknown>> | Record<string, unknown>) = {},
  options: TransitionOptions = {},
): Promise<{ customer: CustomerRow; moved: MovedSubscription[] }> {
  const t = TRANSITIONS[name];
  const customer = typeof customerOrId === 'number' ? await lockCustomerFor(db, caller, customerOrId, name) : customerOrId;
  if (!t.from.some((s) => s === customer.status))
    throw new Error(`${name} cannot start from ${customer.status}: lock the customer with lockCustomerFor first`);
  const { from, to, cancelledWithCustomer, stamp } = t.subscriptions;
  const move = { from, to, cancelledAt: cancelledWithCustomer ? customer.statusAt : undefined };
  const set = { ...stamp(now, options), modifiedAt: now };
  const withSubscriptions = options.withSubscriptions !== false;
  const audit = (audited: Record<string, unknown>) =>
    auditEntry(caller, { entityType: 'Customer', action: 'update', changes: { status: [customer.status, t.to], ...audited } });
  let moved: MovedSubscription[];
  if (typeof details === 'function') {
    // the details depend on the moved subscriptions: those first, then the customer with its audit entry
    moved = withSubscriptions ? await moveSubscriptionsOfCustomer(db, customer.id, move, set) : [];
    await writeTransition(db, { id: customer.id, status: t.to, now }, audit(await details(moved, customer)));
  } else {
    moved = await writeTransition(
      db,
      { id: customer.id, status: t.to, now },
      audit(details),
      withSubscriptions ? { ...move, set } : undefined,
    );
  }
  await ctx.webhooks?.customer(db, customer.accountId, customer.id, t.event, now);
  return { customer, moved };
}
