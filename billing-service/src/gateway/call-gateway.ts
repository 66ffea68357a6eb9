import { ApiError } from '../http/errors.js';
import { GatewayUnavailableError, withGatewayTimeout } from './payment-gateway.js';

/**
 * A gateway call under the configured deadline; an unavailable gateway is 504 (timeout) or 502, never a hang.
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
      throw new ApiError(error.timedOut ? 504 : 502, [{ Key: 'Api Error', Value: `${error.message}; ${consequence}` }]);
    }
    throw error;
  }
}
