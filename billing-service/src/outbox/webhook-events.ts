import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/database.js';
import { findEnabledEndpoints, insertDeliveries, insertEvent, insertEvents } from './webhook-repository.js';

/** Every event type a webhook endpoint can subscribe to (`["*"]`: all). */
export const WEBHOOK_EVENT_TYPES = [
  'customer.created',
  'customer.activated',
  'customer.held',
  'customer.unheld',
  'customer.suspended',
  'customer.reactivated',
  'customer.cancelled',
  'customer.uncancelled',
  'subscription.created',
  'subscription.renewed',
  'subscription.updated',
  'subscription.changeApplied',
  'subscription.changeScheduled',
  'invoice.posted',
  'invoice.overdue',
  'invoice.paid',
  // issue 40: a posted invoice closed without being paid
  'invoice.voided',
  'invoice.writtenOff',
  'payment.succeeded',
  'payment.failed',
  'payment.requiresAction',
  'payment.refunded',
  'payment.needs_attention',
  'paymentMethod.created',
  'paymentMethod.deleted',
  'bulkJob.completed',
  'dispute.created',
  'dispute.closed',
  // issue 40: purchases (an extension)
  'purchase.created',
  // issue 40: credit notes (an extension)
  'creditNote.created',
  // issue 41: a subscription's usage of a metric reached one of its thresholds (once per threshold and period)
  'usage.thresholdReached',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * Writes an event to the webhook outbox, in the caller's transaction (so a committed change always
 * has its event and a rolled-back one never does), with one delivery per enabled endpoint of the
 * account subscribed to its type. `data` is the resource as the API returns it (or a function
 * building it, called only when some endpoint is subscribed).
 * The background sender delivers them (webhooks/delivery-worker.ts).
 */
export async function emitWebhookEvent(
  trx: Queryable,
  event: {
    accountId: number;
    customerId: number | null;
    type: WebhookEventType;
    data: unknown | (() => Promise<unknown>) /** When it happened: the account's time. */;
    now: Date;
  },
): Promise<void> {
  const endpoints = await findEnabledEndpoints(trx, event.accountId);
  const subscribed = endpoints.filter((e) => e.eventTypes.includes('*') || e.eventTypes.includes(event.type));
  if (subscribed.length === 0) return;
  const publicId = `evt_${randomUUID().replace(/-/g, '')}`;
  const timestamp = event.now.toISOString();
  const data = typeof event.data === 'function' ? await (event.data as () => Promise<unknown>)() : event.data;
  const payload = { id: publicId, type: event.type, timestamp, accountId: event.accountId, data };
  const eventId = await insertEvent(trx, {
    publicId,
    accountId: event.accountId,
    customerId: event.customerId,
    eventType: event.type,
    payload: JSON.stringify(payload),
  });
  await insertDeliveries(
    trx,
    subscribed.map((e) => ({ accountId: event.accountId, eventId, endpointId: e.id, customerId: event.customerId })),
  );
}

/**
 * Several events in one outbox write (a batch of changes), each as emitWebhookEvent writes it, in
 * the order given: the endpoints read once per account, one insert for the events, one for the deliveries.
 */
export async function emitWebhookEvents(
  trx: Queryable,
  events: Array<{ accountId: number; customerId: number | null; type: WebhookEventType; data: () => Promise<unknown>; now: Date }>,
): Promise<void> {
  const rows: Array<{
    publicId: string;
    accountId: number;
    customerId: number | null;
    eventType: string;
    payload: unknown;
    endpointIds: number[];
  }> = [];
  for (const event of events) {
    const endpoints = await findEnabledEndpoints(trx, event.accountId);
    const subscribed = endpoints.filter((e) => e.eventTypes.includes('*') || e.eventTypes.includes(event.type));
    if (subscribed.length === 0) continue;
    const publicId = `evt_${randomUUID().replace(/-/g, '')}`;
    const payload = {
      id: publicId,
      type: event.type,
      timestamp: event.now.toISOString(),
      accountId: event.accountId,
      data: await event.data(),
    };
    rows.push({
      publicId,
      accountId: event.accountId,
      customerId: event.customerId,
      eventType: event.type,
      payload,
      endpointIds: subscribed.map((e) => e.id),
    });
  }
  const eventIds = await insertEvents(trx, rows);
  await insertDeliveries(
    trx,
    rows.flatMap((r, i) => {
      const eventId = eventIds[i];
      if (eventId === undefined) throw new Error('fewer event ids than events inserted');
      return r.endpointIds.map((endpointId) => ({ accountId: r.accountId, eventId, endpointId, customerId: r.customerId }));
    }),
  );
}

/**
 * The events of each kind of resource, with the resource as the API returns it: a port that the
 * wiring's WebhookEmitter (webhooks/emitter.ts) implements, so the domains below emit events without
 * importing it. A pre-built customer body and a stored card row are the domains' own types, seen
 * here only as what the outbox needs of them (the emitter declares the concrete types).
 */
export interface ResourceWebhooks {
  customer(trx: Queryable, accountId: number, customerId: number, type: WebhookEventType, now: Date, response?: object): Promise<void>;
  subscription(
    trx: Queryable,
    accountId: number,
    customerId: number,
    subscriptionId: number,
    type: WebhookEventType,
    now: Date,
  ): Promise<void>;
  invoice(trx: Queryable, accountId: number, customerId: number, invoiceId: number, type: WebhookEventType, now: Date): Promise<void>;
  payment(trx: Queryable, accountId: number, customerId: number, paymentId: number, type: WebhookEventType, now: Date): Promise<void>;
  paymentMethod(trx: Queryable, row: { accountId: number; customerId: number }, type: WebhookEventType, now: Date): Promise<void>;
  /** payment.needs_attention: money the gateway moved that was neither recorded nor paid back (`data`: the record). */
  paymentNeedsAttention(trx: Queryable, accountId: number, customerId: number, data: unknown, now: Date): Promise<void>;
  /** purchase.created (`data`: the purchase as the API returns it). */
  purchaseCreated(trx: Queryable, accountId: number, customerId: number, data: unknown, now: Date): Promise<void>;
  /** creditNote.created (`data`: the credit note as the API returns it). */
  creditNoteCreated(trx: Queryable, accountId: number, customerId: number, data: unknown, now: Date): Promise<void>;
  /** usage.thresholdReached (`data`: subscription, customer, metric, threshold, quantity, period). */
  usageThresholdReached(trx: Queryable, accountId: number, customerId: number, data: unknown, now: Date): Promise<void>;
  /** invoice.paid for each of these invoices nothing is owed on any more. */
  paidInvoices(trx: Queryable, accountId: number, customerId: number, invoiceIds: Iterable<number | null>, now: Date): Promise<void>;
  /**
   * A batch of payments' events in one outbox write: for each payment in order, payment.succeeded
   * (its `data` given: the batch knows each payment as it stood when made), then invoice.paid for
   * each invoice it finished paying.
   */
  paymentsSucceeded(
    trx: Queryable,
    accountId: number,
    payments: Array<{ customerId: number; data: () => Promise<unknown>; paidInvoiceIds: number[] }>,
    now: Date,
  ): Promise<void>;
}
