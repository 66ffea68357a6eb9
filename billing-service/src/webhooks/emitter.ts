import type { Catalog } from '../catalog/schema.js';
import { toCustomerResponses } from '../customers/customer-response.js';
import { findCustomerRecord } from '../customers/repository.js';
import type { CustomerResponse } from '../customers/schemas.js';
import type { Queryable } from '../db/database.js';
import type { UriBuilder } from '../uri-builder.js';
import { findInvoice } from '../invoices/repository.js';
import { invoicesFullyPaid } from '../ledger/balances.js';
import { toInvoiceResponses } from '../invoices/service.js';
import type { PaymentMethodRow } from '../payment-methods/repository.js';
import { toCreditCardResponse } from '../payment-methods/service.js';
import { findPayment } from '../payments/repository.js';
import { toPaymentResponses } from '../payments/payment-responses.js';
import { findSubscription } from '../subscriptions/repository.js';
import { toSubscriptionResponses } from '../subscriptions/subscription-response.js';
import { emitWebhookEvent, emitWebhookEvents, type ResourceWebhooks, type WebhookEventType } from '../outbox/webhook-events.js';

/**
 * The webhook events of each kind of resource, with the resource as the API returns it (built
 * only when an endpoint is subscribed). Services call these inside the transaction of the change.
 */
export class WebhookEmitter implements ResourceWebhooks {
  constructor(
    private readonly catalog: Catalog,
    private readonly uris: UriBuilder,
  ) {}

  /** `response`: the customer as the caller already built it in this transaction (else it is read). */
  customer(trx: Queryable, accountId: number, customerId: number, type: WebhookEventType, now: Date, response?: CustomerResponse) {
    return this.emit(trx, accountId, customerId, type, now, async () => {
      if (response) return response;
      const record = await findCustomerRecord(trx, accountId, customerId, now);
      return record ? (await toCustomerResponses(trx, this.uris, this.catalog.emails.defaultLanguage, [record]))[0] : null;
    });
  }

  subscription(trx: Queryable, accountId: number, customerId: number, subscriptionId: number, type: WebhookEventType, now: Date) {
    return this.emit(trx, accountId, customerId, type, now, async () => {
      const row = await findSubscription(trx, accountId, subscriptionId);
      return row ? (await toSubscriptionResponses(trx, this.catalog, this.uris, [row]))[0] : null;
    });
  }

  invoice(trx: Queryable, accountId: number, customerId: number, invoiceId: number, type: WebhookEventType, now: Date) {
    return this.emit(trx, accountId, customerId, type, now, () => this.invoiceData(trx, accountId, invoiceId));
  }

  private async invoiceData(trx: Queryable, accountId: number, invoiceId: number) {
    const row = await findInvoice(trx, accountId, invoiceId);
    return row ? (await toInvoiceResponses(trx, this.uris, [row]))[0] : null;
  }

  // A paid invoice does not change again within the batch, so reading it after the batch's writes is exact.
  paymentsSucceeded(
    trx: Queryable,
    accountId: number,
    payments: Array<{ customerId: number; data: () => Promise<unknown>; paidInvoiceIds: number[] }>,
    now: Date,
  ) {
    return emitWebhookEvents(
      trx,
      payments.flatMap((p) => [
        { accountId, customerId: p.customerId, type: 'payment.succeeded' as const, now, data: p.data },
        ...p.paidInvoiceIds.map((invoiceId) => ({
          accountId,
          customerId: p.customerId,
          type: 'invoice.paid' as const,
          now,
          data: () => this.invoiceData(trx, accountId, invoiceId),
        })),
      ]),
    );
  }

  payment(trx: Queryable, accountId: number, customerId: number, paymentId: number, type: WebhookEventType, now: Date) {
    return this.emit(trx, accountId, customerId, type, now, async () => {
      const row = await findPayment(trx, accountId, paymentId);
      return row ? (await toPaymentResponses(trx, this.uris, [row]))[0] : null;
    });
  }

  paymentMethod(trx: Queryable, row: PaymentMethodRow, type: WebhookEventType, now: Date) {
    return this.emit(trx, row.accountId, row.customerId, type, now, async () => toCreditCardResponse(row, this.uris));
  }

  paymentNeedsAttention(trx: Queryable, accountId: number, customerId: number, data: unknown, now: Date) {
    return this.emit(trx, accountId, customerId, 'payment.needs_attention', now, async () => data);
  }

  purchaseCreated(trx: Queryable, accountId: number, customerId: number, data: unknown, now: Date) {
    return this.emit(trx, accountId, customerId, 'purchase.created', now, async () => data);
  }

  creditNoteCreated(trx: Queryable, accountId: number, customerId: number, data: unknown, now: Date) {
    return this.emit(trx, accountId, customerId, 'creditNote.created', now, async () => data);
  }

  usageThresholdReached(trx: Queryable, accountId: number, customerId: number, data: unknown, now: Date) {
    return this.emit(trx, accountId, customerId, 'usage.thresholdReached', now, async () => data);
  }

  /** invoice.paid for each invoice whose open amount these allocations brought to zero. */
  async paidInvoices(trx: Queryable, accountId: number, customerId: number, invoiceIds: Iterable<number | null>, now: Date) {
    const ids = [...new Set([...invoiceIds].filter((id): id is number => id !== null))];
    if (ids.length === 0) return;
    for (const invoiceId of await invoicesFullyPaid(trx, ids))
      await this.invoice(trx, accountId, customerId, invoiceId, 'invoice.paid', now);
  }

  /** The resource is read (in the transaction) only when some endpoint is subscribed to the event. */
  private emit(trx: Queryable, accountId: number, customerId: number, type: WebhookEventType, now: Date, data: () => Promise<unknown>) {
    return emitWebhookEvent(trx, { accountId, customerId, type, now, data });
  }
}
