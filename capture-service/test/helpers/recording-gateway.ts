import { SandboxGateway, type CardToValidate } from '@renew/billing-service/payments';

/** The sandbox gateway, remembering what each validation received (to check what reaches the gateway). */
export class RecordingGateway extends SandboxGateway {
  readonly validated: CardToValidate[] = [];

  override async validateCard(card: CardToValidate) {
    this.validated.push({ ...card });
    return super.validateCard(card);
  }
}
