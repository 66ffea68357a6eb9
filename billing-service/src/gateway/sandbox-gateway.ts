import { randomBytes } from 'node:crypto';
import { cardBrand } from './card-brand.js';
import { wallClockNow } from '../clock/account-clock.js';
import type { Queryable } from '../db/database.js';
import type { Money } from '../money/money.js';
import type {
  CardToValidate,
  ChargeRequest,
  GatewayEvent,
  GatewayOutcome,
  PaymentGateway,
  RequiresAction,
  SettledOutcome,
  ValidatedCard,
} from './payment-gateway.js';
import { findOperation, recordOperationOnce, type SandboxOperationRow } from './sandbox-repository.js';
import { acknowledgeDisputeEvents, dueDisputeEvents, scheduleDisputeOf, submitEvidence } from './sandbox-dispute-events.js';
import { decideSandboxAuthentication, findSandboxAuthentication, insertSandboxAuthentication } from './sandbox-authentications.js';

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
 * 3-D Secure, as Stripe's test cards of the same numbers behave (README "Test cards"):
 * 4000 0027 6000 3184: every save and every charge asks for authentication (off-session ones too);
 * 4000 0025 0000 3155: asks once, at the save; then off-session charges pass;
 * 4000 0082 6000 3178: asks, then its charges are declined (insufficient_funds);
 * 4000 0000 0000 0259: succeeds, then its charges are disputed (fraudulent) `disputeDelayMs` later (sandbox-dispute-events.ts).
 * Any other number passing the checks: succeeds.
 * The charge's behaviour towards refunds is likewise carried in its transaction id (`sbxch_<behaviour>_<random>`).
 */
const DECLINED_AT_VALIDATION = '4000000000000002';
const CVV_FAILS = '4000000000000127';
const CHARGE_BEHAVIOUR: Record<string, string> = {
  '4000000000000341': 'decline',
  '4000000000009995': 'nsf',
  '4000000000005126': 'norefund',
  '4000002760003184': 'authalways',
  '4000002500003155': 'authonce',
  '4000008260003178': 'authnsf',
  '4000000000000259': 'dispute',
};
/** Behaviours whose card save asks for authentication. */
const AUTHENTICATED_AT_SAVE = new Set(['authalways', 'authonce', 'authnsf']);
/** How long a challenge waits for its customer. */
const CHALLENGE_MS = 15 * 60_000;
/** The issuer's page, on the card-capture host (capture-service registers it with the sandbox). */
export const SANDBOX_CHALLENGE_PATH = '/sandbox/3ds';

export interface SandboxOptions {
  /** How long after a 0259 charge its dispute opens, and after decisive evidence it closes (default 5 s; tests: 0). */
  disputeDelayMs?: number;
}

export class SandboxGateway implements PaymentGateway {
  readonly name = 'sandbox';
  /** Its issuer page is on the capture host. */
  readonly challengeFrameSources: readonly string[] = [];
  private readonly disputeDelayMs: number;

  /**
   * `db`: where its idempotency records live. Every instance of Renew on one database shares them,
   * as a processor's servers share theirs: a charge or refund retried under one key, from any
   * instance, moves money once and answers as the first time.
   */
  constructor(
    private readonly records: Queryable,
    options: SandboxOptions = {},
  ) {
    this.disputeDelayMs = options.disputeDelayMs ?? 5_000;
  }

  async validateCard(card: CardToValidate): Promise<GatewayOutcome<ValidatedCard>> {
    if (card.number === DECLINED_AT_VALIDATION) return declined('card_declined', 'the card was declined');
    if (card.number === CVV_FAILS) return declined('incorrect_cvc', 'the security code (CVV) is incorrect');
    const behaviour = CHARGE_BEHAVIOUR[card.number] ?? 'ok';
    const saved: ValidatedCard = {
      token: `sbx_${behaviour}_${randomBytes(12).toString('hex')}`,
      brand: cardBrand(card.number),
      lastFour: card.number.slice(-4),
      gatewayCustomerId: `sbxcus_${randomBytes(8).toString('hex')}`,
    };
    if (!AUTHENTICATED_AT_SAVE.has(behaviour)) return { status: 'succeeded', value: saved };
    return this.challenge(behaviour, saved);
  }

  async resumeCardValidation(actionId: string): Promise<GatewayOutcome<ValidatedCard>> {
    const found = await findSandboxAuthentication(this.records, actionId);
    if (!found) return declined('authentication_unknown', 'the gateway knows no such authentication');
    if (found.status === 'Failed') return declined('authentication_failed', 'the bank could not authenticate the customer');
    if (found.status === 'Pending') {
      if (found.expiresAt.getTime() <= wallClockNow().getTime())
        return declined('authentication_expired', 'the authentication was not completed in time');
      return { status: 'requiresAction', action: actionOf(found.id, found.expiresAt) };
    }
    return {
      status: 'succeeded',
      value: {
        token: found.token,
        brand: found.brand as ValidatedCard['brand'],
        lastFour: found.lastFour,
        gatewayCustomerId: found.gatewayCustomerId,
      },
    };
  }

  /**
   * The issuer's answer, given on its challenge page (the capture host's sandbox route): the first answer
   * stands; false when the challenge is unknown, answered already, or expired.
   */
  answerChallenge(actionId: string, answer: 'complete' | 'fail'): Promise<boolean> {
    return decideSandboxAuthentication(this.records, actionId, answer === 'complete' ? 'Succeeded' : 'Failed', wallClockNow());
  }

  /** What the challenge page shows: the card's last four digits, and whether it still waits for an answer. */
  async describeChallenge(actionId: string): Promise<{ lastFour: string; waiting: boolean } | undefined> {
    const found = await findSandboxAuthentication(this.records, actionId);
    if (!found) return undefined;
    return { lastFour: found.lastFour, waiting: found.status === 'Pending' && found.expiresAt.getTime() > wallClockNow().getTime() };
  }

  private async challenge(behaviour: string, card: ValidatedCard): Promise<RequiresAction> {
    const id = `sbxauth_${randomBytes(16).toString('hex')}`;
    // the issuer's own clock, never an account's test clock
    const expiresAt = new Date(wallClockNow().getTime() + CHALLENGE_MS);
    await insertSandboxAuthentication(this.records, { id, behaviour, ...card, expiresAt });
    return { status: 'requiresAction', action: actionOf(id, expiresAt) };
  }

  /** Whether `authenticatedBy` is a completed challenge of this very card (the payment it authorised). */
  private async authenticated(request: ChargeRequest): Promise<boolean> {
    if (!request.authenticatedBy) return false;
    const found = await findSandboxAuthentication(this.records, request.authenticatedBy);
    return found?.status === 'Succeeded' && found.token === request.token;
  }

  async charge(request: ChargeRequest): Promise<GatewayOutcome<{ transactionId: string }>> {
    const parsed = /^sbx_([a-z]+)_([0-9a-f]+)$/.exec(request.token);
    const behaviour = parsed?.[1];
    if (!parsed || !behaviour) return declined('invalid_token', 'the payment method token is not known to the gateway');
    if (behaviour === 'decline') return declined('card_declined', 'the card was declined');
    if (behaviour === 'nsf') return declined('insufficient_funds', 'the card has insufficient funds');
    // 3155 asks once, at the save: off-session charges on its mandate pass; 3184 and 3178 ask every time.
    const needsAuthentication = behaviour === 'authalways' || behaviour === 'authnsf' || (behaviour === 'authonce' && !request.offSession);
    if (needsAuthentication && !(await this.authenticated(request))) {
      return this.challenge(behaviour, { token: request.token, brand: 'Visa', lastFour: '', gatewayCustomerId: '' });
    }
    if (behaviour === 'authnsf') return declined('insufficient_funds', 'the card has insufficient funds');
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
    const transactionId = recorded(operation.resultId, 'a charge');
    if (behaviour === 'dispute')
      await scheduleDisputeOf(this.records, { transactionId, amount: request.amount, currency: request.currency }, this.disputeDelayMs);
    return { status: 'succeeded', value: { transactionId } };
  }

  async refund(request: {
    transactionId: string;
    amount: Money;
    currency: string;
    idempotencyKey: string;
  }): Promise<SettledOutcome<{ refundId: string }>> {
    const behaviour = /^sbxch_(?:([a-z]+)_)?[0-9a-f]+$/.exec(request.transactionId);
    if (!behaviour) return declined('invalid_charge', 'unknown charge');
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

  /** The disputes of 0259 charges: their opening, then their closing once evidence decided them. */
  dueEvents(limit: number): Promise<GatewayEvent[]> {
    return dueDisputeEvents(this.records, limit);
  }

  acknowledgeEvents(eventIds: string[]): Promise<void> {
    return acknowledgeDisputeEvents(this.records, eventIds);
  }

  submitDisputeEvidence(request: {
    disputeId: string;
    text: string;
    idempotencyKey: string;
  }): Promise<SettledOutcome<{ disputeId: string }>> {
    return submitEvidence(this.records, request, this.disputeDelayMs);
  }

  async findRefund(idempotencyKey: string): Promise<SettledOutcome<{ refundId: string }> | null> {
    const operation = await findOperation(this.records, 'refund', idempotencyKey);
    return operation ? refundOutcome(operation) : null;
  }
}

function refundOutcome(operation: SandboxOperationRow): SettledOutcome<{ refundId: string }> {
  if (operation.status === 'refused')
    return declined(recorded(operation.code, 'a refused refund'), recorded(operation.message, 'a refused refund'));
  return { status: 'succeeded', value: { refundId: recorded(operation.resultId, 'a refund') } };
}

function declined(code: string, message: string): { status: 'declined'; code: string; message: string } {
  return { status: 'declined', code, message };
}

/** The challenge as the port names it: the issuer's page is a path on the capture host. */
function actionOf(id: string, expiresAt: Date) {
  return { id, challengeUrl: `${SANDBOX_CHALLENGE_PATH}/${id}`, expiresAt };
}

/** A column the sandbox always writes for this kind of operation (see the records above): null is a corrupt row. */
function recorded(value: string | null, what: string): string {
  if (value === null) throw new Error(`sandbox gateway: ${what} was recorded without its result`);
  return value;
}
