import { Refusal } from '../refusals/refusal.js';
import { GatewayUnavailableError, withGatewayTimeout } from './payment-gateway.js';

/**
 * A gateway call under the configured deadline; an unavailable gateway is a Refusal (answered 504 on a timeout, else 502), never a hang.
 * `consequence` tells the client what that left behind (a charge: nothing charged or stored).
 */
export async function callGateway<T>(
  ctx: { payments: { gatewayTimeoutMs: number } },
  call: (signal: AbortSignal) => Promise<T>,
  consequence = 'nothing was charged or stored, try again',
): Promise<T> {
  try {
    return await withGatewayTimeout(ctx.payments.gatewayTimeoutMs, call);
  } catch (error) {
    if (error instanceof GatewayUnavailableError) {
      throw new Refusal(error.timedOut ? 'gateway_timed_out' : 'gateway_failed', [
        { Key: 'Api Error', Value: `${error.message}; ${consequence}`, Code: error.timedOut ? 'gateway_timed_out' : 'gateway_unavailable' },
      ]);
    }
    throw error;
  }
}
