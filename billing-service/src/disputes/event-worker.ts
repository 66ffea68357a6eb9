import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../app-context.js';
import { withGatewayTimeout } from '../gateway/payment-gateway.js';
import { PeriodicTask } from '../tasks/periodic-task.js';
import { ingestGatewayEvent } from './ingest.js';

export interface GatewayEventOptions {
  /** How often to fetch the processor's due events (default 5 s). */
  intervalMs?: number;
  /** How many events one fetch takes (default 50). */
  batchSize?: number;
}

/**
 * Fetches the processor's due events (its disputes), ingests each, then acknowledges them. Runs on
 * every instance, with no claim: ingesting is idempotent on the dispute (see ingest.ts), so two
 * instances fetching one event, or an instance frozen between ingesting and acknowledging, record it
 * once; an event is acknowledged only once ingested, so one that failed is fetched again.
 */
export function gatewayEventTask(ctx: AppContext, log: FastifyBaseLogger, options: GatewayEventOptions = {}): PeriodicTask {
  return new PeriodicTask(
    'gateway events',
    options.intervalMs ?? 5_000,
    async () => {
      await ingestDueGatewayEvents(ctx, log, options.batchSize ?? 50);
    },
    log,
  );
}

/** One round: the events due now, each ingested then acknowledged; answers how many were handled. */
export async function ingestDueGatewayEvents(ctx: AppContext, log: FastifyBaseLogger, batchSize = 50): Promise<number> {
  const gateway = ctx.payments.gateway;
  const timeout = ctx.payments.gatewayTimeoutMs;
  const events = await withGatewayTimeout(timeout, (signal) => gateway.dueEvents(batchSize, signal));
  const handled: string[] = [];
  for (const event of events) {
    try {
      const result = await ingestGatewayEvent(ctx, event);
      if (result === 'ignored')
        log.warn({ eventId: event.eventId, kind: event.kind }, 'a gateway event names a charge Renew did not record');
      handled.push(event.eventId);
    } catch (error) {
      // left unacknowledged: fetched and tried again next round
      log.error({ err: error, eventId: event.eventId }, 'a gateway event could not be ingested');
    }
  }
  if (handled.length > 0) await withGatewayTimeout(timeout, (signal) => gateway.acknowledgeEvents(handled, signal));
  return handled.length;
}
