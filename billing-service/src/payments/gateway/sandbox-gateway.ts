import { randomBytes } from 'node:crypto';
import { cardBrand } from './card-brand.js';
import type { CardToValidate, GatewayOutcome, PaymentGateway, ValidatedCard } from './payment-gateway.js';

/**
 * The embedded default: behaves like well-known processors' test cards, with no
 * network. The behaviour a card will show on charges is carried in its token
 * (`sbx_<behaviour>_<random>`), so it survives restarts without storing the number.
 *
 * 4242 4242 4242 4242 Visa, 5555 5555 5555 4444 Mastercard, 3782 822463 10005 Amex: succeed.
 * 4000 0000 0000 0002: declined at validation (card_declined).
 * 4000 0000 0000 0341: validates, every charge declined (card_declined).
 * 4000 0000 0000 9995: validates, charges fail (insufficient_funds).
 * 4000 0000 0000 0127: fails the CVV check (incorrect_cvc).
 * 4000 0000 0000 5126: validates and charges; every refund of its charges refused (refund_failed).
 * Any other number passing the checks: succeeds.
 * The charge's behaviour towards refunds is likewise carried in its transaction id (`sbxch_<behaviour>_<random>`).
 */
const DECLINED_AT_VALIDATION = '4000000000000002';
const CVV_FAILS = '4000000000000127';
const CHARGE_BEHAVIOUR: Record<string, string> = {
  '4000000000000341': 'decline',
  '4000000000009995': 'nsf',
  '4000000000005126': 'norefund',
};

export class SandboxGateway implements PaymentGateway {
  readonly name = 'sandbox';
  /** Charge ids already used, so a retried charge with one idempotency key charges once. */
  private readonly charges = new Map<string, string>();
  /** Likewise refunds: a retried refund with one idempotency key pays back once. */
  private readonly refundIdsByKey = new Map<string, string>();

  async validateCard(card: CardToValidate): Promise<GatewayOutcome<ValidatedCard>> {
    if (card.number === DECLINED_AT_VALIDATION) return { ok: false, code: 'card_declined', message: 'the card was declined' };
    if (card.number === CVV_FAILS) return { ok: false, code: 'incorrect_cvc', message: 'the security code (CVV) is incorrect' };
    const behaviour = CHARGE_BEHAVIOUR[card.number] ?? 'ok';
    return {
      ok: true,
      value: {
        token: `sbx_${behaviour}_${randomBytes(12).toString('hex')}`,
        brand: cardBrand(card.number),
        lastFour: card.number.slice(-4),
        gatewayCustomerId: `sbxcus_${randomBytes(8).toString('hex')}`,
      },
    };
  }

  async charge(request: { token: string; idempotencyKey: string }): Promise<GatewayOutcome<{ transactionId: string }>> {
    const behaviour = /^sbx_([a-z]+)_/.exec(request.token)?.[1];
    if (!behaviour) return { ok: false, code: 'invalid_token', message: 'the payment method token is not known to the gateway' };
    if (behaviour === 'decline') return { ok: false, code: 'card_declined', message: 'the card was declined' };
    if (behaviour === 'nsf') return { ok: false, code: 'insufficient_funds', message: 'the card has insufficient funds' };
    const earlier = this.charges.get(request.idempotencyKey);
    if (earlier) return { ok: true, value: { transactionId: earlier } };
    const transactionId = `sbxch_${behaviour}_${randomBytes(12).toString('hex')}`;
    if (this.charges.size >= 100_000) this.charges.clear();
    this.charges.set(request.idempotencyKey, transactionId);
    return { ok: true, value: { transactionId } };
  }

  async refund(request: { transactionId: string; idempotencyKey: string }): Promise<GatewayOutcome<{ refundId: string }>> {
    const behaviour = /^sbxch_(?:([a-z]+)_)?[0-9a-f]+$/.exec(request.transactionId);
    if (!behaviour) return { ok: false, code: 'invalid_charge', message: 'unknown charge' };
    if (behaviour[1] === 'norefund') return { ok: false, code: 'refund_failed', message: 'the card issuer refused the refund' };
    const earlier = this.refundIdsByKey.get(request.idempotencyKey);
    if (earlier) return { ok: true, value: { refundId: earlier } };
    const refundId = `sbxre_${randomBytes(12).toString('hex')}`;
    if (this.refundIdsByKey.size >= 100_000) this.refundIdsByKey.clear();
    this.refundIdsByKey.set(request.idempotencyKey, refundId);
    return { ok: true, value: { refundId } };
  }
}
