import type { WebhookEventType } from '../outbox/webhook-events.js';
import type { CUSTOMER_STATUSES } from './schemas.js';

type CustomerStatus = (typeof CUSTOMER_STATUSES)[number];

export type TransitionName = 'activate' | 'hold' | 'unhold' | 'cancel' | 'uncancel' | 'suspend' | 'reactivate' | 'autoCancel';

/**
 * One move of the customer lifecycle as a customer sees it: from which statuses, to which, its
 * event and its endpoint. What it does to the subscriptions, and making it, is lifecycle/transitions.ts;
 * this graph sits with the customers so that PUT /v1/customers and the dunning countdown read it
 * without importing the lifecycle.
 */
export interface CustomerTransition {
  /** Statuses it starts from; any other is refused. */
  from: readonly CustomerStatus[];
  to: CustomerStatus;
  /** The webhook event it emits, with the customer as the API returns it. */
  event: WebhookEventType;
  /** The endpoint that makes it; none: only the billing clock does. */
  endpoint?: (customerId: number) => string;
  /** What PUT /v1/customers has always named for this change, though the endpoint refuses it (see customers/service.ts). */
  putPointer?: string;
}

/** The customer lifecycle (the spec's state table): every status change a customer makes, and only these. */
export const CUSTOMER_TRANSITIONS: Readonly<Record<TransitionName, CustomerTransition>> = {
  activate: { event: 'customer.activated', from: ['Draft'], to: 'Active', endpoint: () => 'POST /v1/customeractivation' },
  hold: { event: 'customer.held', from: ['Active'], to: 'Hold', endpoint: (id) => `POST /v1/customerhold/${id}` },
  unhold: { event: 'customer.unheld', from: ['Hold'], to: 'Active', endpoint: () => 'POST /v1/customers/unhold' },
  cancel: {
    event: 'customer.cancelled',
    from: ['Draft', 'Active', 'Hold', 'Suspended'],
    to: 'Cancelled',
    endpoint: () => 'POST /v1/customercancellation',
  },
  uncancel: { event: 'customer.uncancelled', from: ['Cancelled'], to: 'Active', endpoint: (id) => `POST /v1/customers/uncancel/${id}` },
  // The billing clock's own moves (lifecycle/billing-clock.ts); when, is customers/dunning.ts.
  suspend: { event: 'customer.suspended', from: ['Active'], to: 'Suspended' },
  reactivate: { event: 'customer.reactivated', from: ['Suspended'], to: 'Active', putPointer: 'POST /v1/customers/unhold' },
  autoCancel: { event: 'customer.cancelled', from: ['Suspended'], to: 'Cancelled' },
};

const NAMES = Object.keys(CUSTOMER_TRANSITIONS) as TransitionName[];

/**
 * How a customer gets from `from` to `to`, for PUT /v1/customers (which never
 * changes the status): the endpoint to use; `systemOnly` when only the billing
 * clock ever moves a customer to `to`; null when no transition does.
 */
export function routeToStatus(from: string, to: string, customerId: number): { endpoint: string } | { systemOnly: TransitionName } | null {
  const into = NAMES.filter((n) => CUSTOMER_TRANSITIONS[n].to === to);
  const [first] = into;
  if (first && into.every((n) => !CUSTOMER_TRANSITIONS[n].endpoint)) return { systemOnly: first };
  const endpoint = into
    .filter((n) => CUSTOMER_TRANSITIONS[n].from.some((s) => s === from))
    .map((n) => CUSTOMER_TRANSITIONS[n].endpoint?.(customerId) ?? CUSTOMER_TRANSITIONS[n].putPointer)
    .find((e) => e !== undefined);
  return endpoint ? { endpoint } : null;
}
