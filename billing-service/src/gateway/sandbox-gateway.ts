import { randomBytes } from 'node:crypto';
import { cardBrand } from './card-brand.js';
import type { Queryable } from '../db/database.js';
import type { Money } from '../money/money.js';
import type { CardToValidate, GatewayOutcome, PaymentGateway, ValidatedCard } from './payment-gateway.js';
import { findOperation, recordOperationOnce, type SandboxOperationRow } from './sandbox-repository.js';

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

  /**
   * `db`: where its idempotency records live. Every instance of Renew on one database shares them,
   * as a processor's servers share theirs: a charge or refund retried under one key, from any
   * instance, moves money once and answers as the first time.
   */
  constructor(private readonly records: Queryable) {}

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

  async charge(request: {
    token: string;
    amount: Money;
    currency: string;
    idempotencyKey: string;
  }): Promise<GatewayOutcome<{ transactionId: string }>> {
    const behaviour = /^sbx_([a-z]+)_/.exec(request.token)?.[1];
    if (!behaviour) return { ok: false, code: 'invalid_token', message: 'the payment method token is not known to the gateway' };
    if (behaviour === 'decline') return { ok: false, code: 'card_declined', message: 'the card was declined' };
    if (behaviour === 'nsf') return { ok: false, code: 'insufficient_funds', message: 'the card has insufficient funds' };
    const operation = await recordOperationOnce(this.records, {
      kind: 'charge',
      idempotencyKey: request.idempotencyKey,
      status: 'succeeded',
      resultId: `sbxch_${behaviour}_${randomBytes(12).toString('hex')}`,
      code: null,
      message: null,
      transactionId: null,
      amount: request.amount.toString(),
      currency: request.currency,
    });
    return { ok: true, value: { transactionId: recorded(operation.resultId, 'a charge') } };
  }

  async refund(request: {
    transactionId: string;
    amount: Money;
    currency: string;
    idempotencyKey: string;
  }): Promise<GatewayOutcome<{ refundId: string }>> {
    const behaviour = /^sbxch_(?:([a-z]+)_)?[0-9a-f]+$/.exec(request.transactionId);
    if (!behaviour) return { ok: false, code: 'invalid_charge', message: 'unknown charge' };
    const refused = behaviour[1] === 'norefund';
    const operation = await recordOperationOnce(this.records, {
      kind: 'refund',
      idempotencyKey: request.idempotencyKey,
      status: refused ? 'refused' : 'succeeded',
      resultId: refused ? null : `sbxre_${randomBytes(12).toString('hex')}`,
      code: refused ? 'refund_failed' : null,
      message: refused ? 'the card issuer refused the refund' : null,
      transactionId: request.transactionId,
      amount: request.amount.toString(),
      currency: request.currency,
    });
    return refundOutcome(operation);
  }

  async findRefund(idempotencyKey: string): Promise<GatewayOutcome<{ refundId: string }> | null> {
    const operation = await findOperation(this.records, 'refund', idempotencyKey);
    return operation ? refundOutcome(operation) : null;
  }
}

function refundOutcome(operation: SandboxOperationRow): GatewayOutcome<{ refundId: string }> {
  if (operation.status === 'refused') {
    return { ok: false, code: recorded(operation.code, 'a refused refund'), message: recorded(operation.message, 'a refused refund') };
  }
  return { ok: true, value: { refundId: recorded(operation.resultId, 'a refund') } };
}

/** A column the sandbox always writes for this kind of operation (see the records above): null is a corrupt row. */
function recorded(value: string | null, what: string): string {
  if (value === null) throw new Error(`sandbox gateway: ${what} was recorded without its result`);
  return value;
}
