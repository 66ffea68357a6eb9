import { createHmac } from 'node:crypto';
import type { Account } from './account.js';
import type { EventObject } from './objects.js';

/**
 * Stripe's webhook signature (https://docs.stripe.com/webhooks#verify-manually): `Stripe-Signature: t=<unix seconds>,
 * v1=<hex HMAC-SHA256 of "<t>.<payload>" keyed with the endpoint's whsec_ secret>`. The SDK's
 * `stripe.webhooks.constructEvent(payload, header, secret)` checks exactly this, and that t is within 300 s.
 */
export function signatureHeader(payload: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  const signature = createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex');
  return `t=${timestamp},v1=${signature}`;
}

/** Stripe sends event bodies as JSON indented by two spaces: a receiver that re-serializes the body breaks the signature. */
export function eventPayload(event: EventObject): string {
  return JSON.stringify(event, null, 2);
}

export interface Delivery {
  eventId: string;
  type: string;
  endpoint: string;
  /** The receiver's HTTP status, or undefined when the connection failed (see `error`). */
  status?: number;
  error?: string;
}

/**
 * Posts each event to its account's endpoint, one at a time in the order they happened (Stripe does not promise order;
 * the stand-in keeps it so tests read simply). No retries: a failed delivery is recorded and can be sent again.
 */
export class WebhookSender {
  readonly deliveries: Delivery[] = [];
  private queue: Promise<void> = Promise.resolve();
  private readonly abort = new AbortController();
  private readonly listeners = new Set<(event: EventObject) => void>();

  send(account: Account, event: EventObject): void {
    for (const listener of this.listeners) listener(event);
    const endpoint = account.webhookEndpoint;
    if (!endpoint) return;
    this.queue = this.queue.then(() => this.post(endpoint, account.webhookSecret, event));
  }

  /** Resolves once every event emitted so far has been delivered (or has failed). */
  idle(): Promise<void> {
    return this.queue;
  }

  /** Calls `listener` for every event emitted from now on, delivered or not. */
  subscribe(listener: (event: EventObject) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.abort.abort();
  }

  private async post(endpoint: string, secret: string, event: EventObject): Promise<void> {
    const payload = eventPayload(event);
    const delivery: Delivery = { eventId: event.id, type: event.type, endpoint };
    try {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json; charset=utf-8',
          'User-Agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
          'Stripe-Signature': signatureHeader(payload, secret),
        },
        body: payload,
        signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(10_000)]),
      });
      delivery.status = response.status;
      await response.arrayBuffer();
    } catch (error) {
      delivery.error = error instanceof Error ? error.message : String(error);
    }
    this.deliveries.push(delivery);
  }
}
