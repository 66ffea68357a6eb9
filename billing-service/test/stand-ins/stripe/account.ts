import { randomBytes } from 'node:crypto';
import type Stripe from 'stripe';
import { resourceMissing } from './errors.js';
import {
  type ApiObject,
  type ChargeObject,
  type CustomerObject,
  type DisputeObject,
  type EventObject,
  newId,
  nowSeconds,
  type PaymentIntentObject,
  type PaymentMethodRecord,
  type RefundObject,
  type SetupIntentObject,
} from './objects.js';

/** An answer saved under an idempotency key (Stripe keeps them 24 hours). */
export interface SavedAnswer {
  endpoint: string;
  parameters: string;
  status: number;
  body: string;
  requestId: string;
  savedAt: number;
}

/** The request an event came from, as Stripe puts it in `event.request`. */
export interface RequestOrigin {
  id: string | null;
  idempotency_key: string | null;
}

/**
 * One Stripe account: its keys, its objects, its saved idempotent answers and its webhook endpoint. Objects of one
 * account are invisible to another's key, as in Stripe.
 */
export class Account {
  readonly customers = new Map<string, CustomerObject>();
  readonly paymentMethods = new Map<string, PaymentMethodRecord>();
  readonly paymentIntents = new Map<string, PaymentIntentObject>();
  readonly setupIntents = new Map<string, SetupIntentObject>();
  readonly charges = new Map<string, ChargeObject>();
  readonly refunds = new Map<string, RefundObject>();
  readonly disputes = new Map<string, DisputeObject>();
  readonly events: EventObject[] = [];
  readonly idempotent = new Map<string, SavedAnswer>();
  webhookEndpoint: string | null = null;
  readonly secretKey = `sk_test_${randomBytes(24).toString('hex')}`;
  readonly webhookSecret = `whsec_${randomBytes(24).toString('hex')}`;

  constructor(
    private readonly apiVersion: string,
    private readonly onEvent: (account: Account, event: EventObject) => void,
  ) {}

  /** Any object of this account by its id, for `expand[]`. */
  find(id: string): ApiObject | undefined {
    return (
      this.customers.get(id) ??
      this.paymentMethods.get(id)?.object ??
      this.paymentIntents.get(id) ??
      this.setupIntents.get(id) ??
      this.charges.get(id) ??
      this.refunds.get(id) ??
      this.disputes.get(id)
    );
  }

  customer(id: string, param = 'customer'): CustomerObject {
    return lookUp(this.customers, id, 'customer', param);
  }

  paymentMethod(id: string, param = 'payment_method'): PaymentMethodRecord {
    return lookUp(this.paymentMethods, id, 'PaymentMethod', param);
  }

  paymentIntent(id: string, param = 'intent'): PaymentIntentObject {
    return lookUp(this.paymentIntents, id, 'payment_intent', param);
  }

  setupIntent(id: string, param = 'intent'): SetupIntentObject {
    return lookUp(this.setupIntents, id, 'setupintent', param);
  }

  charge(id: string, param = 'charge'): ChargeObject {
    return lookUp(this.charges, id, 'charge', param);
  }

  refund(id: string): RefundObject {
    return lookUp(this.refunds, id, 'refund', 'id');
  }

  dispute(id: string): DisputeObject {
    return lookUp(this.disputes, id, 'dispute', 'id');
  }

  /** Records an event with a copy of the object as it is now, and hands it to the webhook sender. */
  emit(type: Stripe.Event.Type, object: ApiObject, origin: RequestOrigin): EventObject {
    const event: EventObject = {
      id: newId('evt'),
      object: 'event',
      api_version: this.apiVersion,
      created: nowSeconds(),
      data: { object: structuredClone(object) },
      livemode: false,
      pending_webhooks: this.webhookEndpoint ? 1 : 0,
      request: origin,
      type,
    };
    this.events.push(event);
    this.onEvent(this, event);
    return event;
  }
}

/** Events that no API request caused (a dispute, a challenge completed on the issuer's page) carry a null request. */
export const NO_REQUEST: RequestOrigin = { id: null, idempotency_key: null };

/** An object by id, or Stripe's 404 naming the kind of object as Stripe's messages do ("No such customer: 'cus_…'"). */
function lookUp<T>(objects: ReadonlyMap<string, T>, id: string, label: string, param: string): T {
  const found = objects.get(id);
  if (found === undefined) throw resourceMissing(label, id, param);
  return found;
}
