import type { Config } from '../../config.js';
import type { PaymentGateway } from './payment-gateway.js';
import { SandboxGateway } from './sandbox-gateway.js';

/** The gateway adapter RENEW_GATEWAY names. A processor's adapter joins here, behind the same interface. */
export function gatewayFromConfig(config: Config['gateway']): PaymentGateway {
  switch (config.name) {
    case 'sandbox':
      return new SandboxGateway();
  }
}
