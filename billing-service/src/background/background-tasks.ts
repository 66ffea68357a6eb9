import fp from 'fastify-plugin';
import type { AppContext } from '../app-context.js';
import { BulkPaymentWorker, type BulkWorkerOptions } from '../bulk/bulk-worker.js';
import { invoicePdf } from '../invoices/pdf/invoice-pdf.js';
import { gatewayEventTask, type GatewayEventOptions } from '../disputes/event-worker.js';
import { billingClockTask } from '../lifecycle/billing-clock.js';
import { EmailOutboxWorker, type EmailSettings } from '../notifications/email-outbox-worker.js';
import type { Observability } from '../observability/observe.js';
import { WebhookDeliveryWorker, type WebhookWorkerOptions } from '../webhooks/delivery-worker.js';
import { refundSettlementTask, type RefundSettlementOptions } from '../refunds/settlement-worker.js';
import { creditNoteRefundTask } from '../credit-notes/refund-worker.js';
import { endpointDisabledEmail } from '../webhooks/disabled-notice.js';
import type { PeriodicTask } from '../tasks/periodic-task.js';

export interface BackgroundTaskOptions {
  ctx: AppContext;
  /** Each task is watched: readiness and metrics. */
  observability: Observability;
  /** Bulk payment processing (default: on, polling every second). */
  bulkWorker?: BulkWorkerOptions | false;
  /** E-mail notifications over SMTP; unset: none are sent. */
  email?: EmailSettings;
  /** Ticks the billing clock this often; unset or 0: no clock on this instance. */
  billingClockMs?: number;
  /** Webhook deliveries (default: on, polling every second); false: none on this instance. */
  webhooks?: WebhookWorkerOptions | false;
  /**
   * Settles card refunds left Pending by asking the gateway, and finishes credit notes' refunds their request left
   * (default: on); false: neither on this instance.
   */
  refundSettlement?: RefundSettlementOptions | false;
  /** Fetches and ingests the processor's events, its disputes (default: on, every 5 s); false: not on this instance. */
  gatewayEvents?: GatewayEventOptions | false;
}

/** The billing API's background tasks: started when the app is ready, stopped when it closes. */
export const backgroundTasks = fp<BackgroundTaskOptions>(
  async (app, options) => {
    const run = (task: { start(): unknown; stop(): unknown }, watched: PeriodicTask) => {
      options.observability.watch(watched);
      app.addHook('onReady', async () => task.start());
      app.addHook('onClose', async () => task.stop());
    };
    if (options.bulkWorker !== false) {
      const worker = new BulkPaymentWorker(options.ctx, app.log, options.bulkWorker ?? {});
      options.ctx.bulkWorker = worker;
      run(worker, worker.task);
    }
    if (options.email) {
      const sender = new EmailOutboxWorker(
        options.ctx.db,
        options.email,
        app.log,
        (accountId, invoiceId) => invoicePdf(options.ctx, accountId, invoiceId),
        options.ctx.instance,
      );
      run(sender, sender.task);
    }
    if (options.webhooks !== false) {
      const sender = new WebhookDeliveryWorker(
        options.ctx.db,
        { onEndpointDisabled: endpointDisabledEmail(options.ctx), ...options.webhooks },
        app.log,
        options.ctx.instance,
      );
      run(sender, sender.task);
    }
    if (options.refundSettlement !== false) {
      const settlement = refundSettlementTask(options.ctx, app.log, options.refundSettlement ?? {});
      run(settlement, settlement);
      const creditNoteRefunds = creditNoteRefundTask(options.ctx, app.log, options.refundSettlement ?? {});
      run(creditNoteRefunds, creditNoteRefunds);
    }
    if (options.gatewayEvents !== false) {
      const events = gatewayEventTask(options.ctx, app.log, options.gatewayEvents ?? {});
      run(events, events);
    }
    if (options.billingClockMs) {
      const clock = billingClockTask(options.ctx, app.log, options.billingClockMs);
      run(clock, clock);
    }
  },
  { name: 'renew-background-tasks', fastify: '5.x' },
);
