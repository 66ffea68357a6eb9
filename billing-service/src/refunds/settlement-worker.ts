import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../app-context.js';
import { PeriodicTask } from '../tasks/periodic-task.js';
import type { Caller } from '../http/auth.js';
import { callGateway } from '../gateway/call-gateway.js';
import { findPayment } from '../payments/repository.js';
import { findStalePendingRefunds } from './repository.js';
import { settleCardRefund } from './service.js';

export interface RefundSettlementOptions {
  /** How often to look for refunds left Pending (default 10 s). */
  intervalMs?: number;
  /**
   * A refund Pending longer than this was left by a request that died or lost the gateway's answer
   * (default 60 s, and at least twice the gateway timeout, so a request still waiting is never overtaken).
   */
  olderThanSeconds?: number;
}

/** The service acting on its own: audited as `system`, source `refund settlement`. */
function systemCaller(accountId: number): Caller {
  return { accountId, keyKind: 'system', auditSource: 'refund settlement', rateLimits: { perMinute: 0, perDay: 0 }, keyHash: '' };
}

/**
 * Settles card refunds left Pending (the process died between the gateway's answer and the commit,
 * or the gateway did not answer in time): asks the gateway for the refund by its idempotency key and
 * records it Succeeded (the ledger follows), or Failed when the gateway refused it or never received
 * it, which lets go of the amount it held. Any instance may run it; settling is idempotent.
 */
export function refundSettlementTask(ctx: AppContext, log: FastifyBaseLogger, options: RefundSettlementOptions = {}): PeriodicTask {
  const olderThanSeconds = Math.max(options.olderThanSeconds ?? 60, (2 * ctx.payments.gatewayTimeoutMs) / 1000);
  return new PeriodicTask(
    'refund settlement',
    options.intervalMs ?? 10_000,
    async () => {
      await settlePendingRefunds(ctx, log, olderThanSeconds);
    },
    log,
  );
}

export async function settlePendingRefunds(ctx: AppContext, log: FastifyBaseLogger, olderThanSeconds: number): Promise<number> {
  let settled = 0;
  for (const refund of await findStalePendingRefunds(ctx.db, olderThanSeconds, 50)) {
    const payment = await findPayment(ctx.db, refund.accountId, refund.paymentId);
    if (!payment) continue;
    // Refunds reserved before keys were stored were asked under `refund_<id>`.
    const key = refund.gatewayIdempotencyKey ?? `refund_${refund.id}`;
    const transactionId = payment.gatewayTransactionId ?? undefined;
    const found = await callGateway(ctx, (signal) => ctx.payments.gateway.findRefund(key, signal, transactionId));
    const outcome = found ?? {
      status: 'declined' as const,
      code: 'refund_not_received',
      message: 'the gateway never received this refund',
    };
    const result = await settleCardRefund(
      ctx,
      systemCaller(refund.accountId),
      { refundId: refund.id, payment, now: await ctx.clock.now(refund.accountId) },
      outcome,
    );
    log.warn(
      { refundId: refund.id, paymentId: refund.paymentId, status: result.status },
      'a refund left Pending was settled with the gateway',
    );
    settled += 1;
  }
  return settled;
}
