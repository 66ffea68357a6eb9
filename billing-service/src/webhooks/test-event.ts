import { randomUUID } from 'node:crypto';
import type { AppContext } from '../app-context.js';
import { recordChange } from '../audit/audit-log.js';
// Endpoints and deliveries run on the wall clock (receivers check signature timestamps against theirs).
import { wallClockNow } from '../clock/account-clock.js';
import type { Caller } from '../http/auth.js';
import { findEndpoint, insertDeliveries, insertEvent } from '../outbox/webhook-repository.js';
import { API_ERROR_KEY } from '../refusals/error-codes.js';
import { Refusal } from '../refusals/refusal.js';

/** The type of a test event: not one an endpoint subscribes to, since it is sent to one endpoint on request. */
export const TEST_EVENT_TYPE = 'webhookEndpoint.test';

/**
 * A test event for one enabled endpoint (the console's "Send test event", issue 38): an event of type
 * `webhookEndpoint.test` and one delivery to that endpoint alone, sent and signed by the delivery worker like any
 * other, so the merchant sees it arrive (or its failure) in the deliveries. A Disabled endpoint is a 409.
 */
export async function sendTestWebhookEvent(ctx: AppContext, caller: Caller, endpointId: number): Promise<{ eventId: string }> {
  return ctx.db.transaction().execute(async (trx) => {
    const endpoint = await findEndpoint(trx, caller.accountId, endpointId);
    if (!endpoint) throw Refusal.notFound('webhook endpoint', endpointId);
    if (endpoint.status !== 'Enabled')
      throw Refusal.conflict(
        `webhook endpoint ${endpointId} is ${endpoint.status}: enable it to send a test event`,
        API_ERROR_KEY,
        'state_conflict',
      );
    const publicId = `evt_${randomUUID().replace(/-/g, '')}`;
    const payload = {
      id: publicId,
      type: TEST_EVENT_TYPE,
      timestamp: wallClockNow().toISOString(),
      accountId: caller.accountId,
      data: { endpointId, message: 'A test event sent from the console: no resource changed.' },
    };
    const eventId = await insertEvent(trx, {
      publicId,
      accountId: caller.accountId,
      customerId: null,
      eventType: TEST_EVENT_TYPE,
      payload: JSON.stringify(payload),
    });
    await insertDeliveries(trx, [{ accountId: caller.accountId, eventId, endpointId, customerId: null }]);
    await recordChange(trx, caller, {
      entityType: 'WebhookEndpoint',
      entityId: endpointId,
      action: 'update',
      changes: { testEvent: publicId },
    });
    return { eventId: publicId };
  });
}
