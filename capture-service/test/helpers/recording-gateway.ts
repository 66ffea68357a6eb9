import type { CardToValidate } from '@renew/billing-service/payments/gateway/payment-gateway.js';
import { SandboxGateway } from '@renew/billing-service/payments/gateway/sandbox-gateway.js';

/** The sandbox gateway, remembering what each validation received (to check what reaches the gateway). */
export class RecordingGateway extends SandboxGateway {
  readonly validated: CardToValidate[] = [];

  override async validateCard(card: CardToValidate) {
    this.validated.push({ ...card });
    return super.validateCard(card);
  }
}
