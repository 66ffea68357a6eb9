import type { AppContext } from '../app-context.js';
import { insertOutboxEmail } from '../notifications/outbox-repository.js';

/**
 * When a webhook endpoint is disabled after a day of failures: an e-mail to the account (catalogue
 * `account.email`), through the e-mail outbox, when e-mail is on. Without an address or SMTP: only the log.
 */
export function endpointDisabledEmail(ctx: AppContext) {
  return async (endpoint: { id: number; accountId: number; url: string }) => {
    const to = ctx.catalog.account.email;
    if (!ctx.notifier?.enabled || !to) return;
    const name = ctx.catalog.account.name;
    await insertOutboxEmail(ctx.db, {
      accountId: endpoint.accountId,
      customerId: null,
      emailType: 'WebhookEndpointDisabled',
      toAddress: to,
      subject: `${name}: webhook endpoint ${endpoint.id} was disabled`,
      body:
        `Hello,\n\nDeliveries to your webhook endpoint ${endpoint.id} (${endpoint.url}) have failed for a day without a success, ` +
        `so it has been disabled. Its waiting events are kept: fix the receiver, then enable the endpoint again ` +
        `(PUT /v1/webhookEndpoints/${endpoint.id} with "status": "Enabled"); failed deliveries can be retried ` +
        `(POST /v1/webhookDeliveries/{id}/retry).\n\n— ${name}`,
    });
  };
}
