import { randomUUID } from 'node:crypto';
import { auditEntry } from '../audit/audit-log.js';
import { isDatabaseUnavailable } from '../db/connection-errors.js';
import type { Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import { allocateNewEntry } from '../ledger/allocation.js';
import { minorUnits, money } from '../money/money.js';
import { amountInCurrency } from '../money/amount-in-currency.js';
import type { PaymentMethodRow } from '../payment-methods/repository.js';
import { insertValidatedCard, lockCustomerForNewCard, newCardAuditChanges, type CardReadyToStore } from '../payment-methods/service.js';
import { gatewayIdempotencyKey } from '../gateway/payment-gateway.js';
import { insertCardWithPayment } from './repository.js';
import type { CollectPaymentInput } from './schemas.js';
import type { PaymentOutcome } from './outcome.js';
import {
  chargeToken,
  insertFailedPayment,
  announceSucceededPayment,
  succeededPaymentAuditChanges,
  type PaymentBase,
  type PaymentEvents,
} from './record-steps.js';
import { settleAfterOutage, compensateUnrecordedCharge, type ErrorLog, type UnrecordedCharge } from './settle-unrecorded.js';

/**
 * The card-capture host's card and first payment, stored together under the customer's lock: the
 * card, the ledger entry, the payment and both audit entries in one statement, then the payment
 * allocated to open invoices and the webhook events (the card's first, as insertValidatedCard emits it).
 */
async function storeCardWithSucceededPayment(
  trx: Queryable,
  caller: Caller,
  card: CardReadyToStore,
  base: PaymentBase,
  transactionId: string,
  events: PaymentEvents,
) {
  const isDefault = await lockCustomerForNewCard(trx, caller, card, false);
  const audit = (entityType: string, changes: Record<string, unknown>) => auditEntry(caller, { entityType, action: 'create', changes });
  const cardAudit = audit('PaymentMethod', newCardAuditChanges(card, isDefault, false));
  const stored = await insertCardWithPayment(
    trx,
    { ...card.values, isDefault, modifiedAt: events.now },
    { source: base.source, amount: String(base.amount), currency: base.currency, gatewayTransactionId: transactionId },
    {
      actor: cardAudit.actor,
      source: cardAudit.source,
      cardChanges: cardAudit.changes,
      paymentChanges: audit('Payment', succeededPaymentAuditChanges(base, 'CreditCard')).changes,
    },
  );
  await events.webhooks?.paymentMethod(trx, stored.card, 'paymentMethod.created', events.now);
  const allocations = await allocateNewEntry(
    trx,
    caller.accountId,
    { id: stored.ledgerEntryId, open: money(String(base.amount)) },
    stored.openInvoices,
    events.now,
  );
  await announceSucceededPayment(trx, caller, base, stored.paymentId, allocations, events);
  return stored;
}

export interface NewCardOptions {
  alsoInTransaction?: (trx: Queryable) => Promise<void>;
  /** Runs in the transaction that stored the card and its payment, after them (a refusal rolls both back and pays the charge back). */
  afterStored?: (trx: Queryable, stored: { paymentMethodId: number; paymentId: number }) => Promise<void>;
  /** The charge's idempotency key before its account namespace (the capture token's claim); default: a fresh one. */
  idempotencyKey?: string;
  /** The card's completed 3-D Secure challenge, which also authorised this first payment. */
  /**
   * The shopper can answer another challenge for this payment (a capture's completion): a bank that asks for one
   * throws AuthenticationNeeded (nothing stored or charged) instead of declining it.
   */
  customerPresent?: boolean;
  authenticatedBy?: string;
  /** Where a failed compensation is logged (at error level). */
  log?: ErrorLog;
  /**
   * Told when the charge went through but its record failed: 'paid back'; 'kept' (the refund failed: it
   * needs an operator); 'recorded' (the commit went through, its answer was lost). After a database
   * failure 'settling' comes at once, and the outcome later, once the database answers (the request
   * has been answered 503 meanwhile).
   */
  onUnrecordedCharge?: (outcome: 'settling' | 'paid back' | 'kept' | 'recorded') => void;
}

/**
 * Charges a card that is validated but not stored yet (the card-capture host's
 * collection), then stores the card and the payment in one transaction: the
 * card is kept only with its payment. A declined charge stores the card already
 * removed, for the record, with the failed payment, and returns the decline.
 * If storing fails after a successful charge, the charge is refunded.
 */
export async function collectWithNewCard(
  ctx: AppContext,
  caller: Caller,
  card: CardReadyToStore,
  payment: { amount: string; source: CollectPaymentInput['source'] },
  now?: Date,
  options: NewCardOptions = {},
): Promise<
  (Extract<PaymentOutcome, { status: 'Succeeded' }> & { card: PaymentMethodRow }) | Extract<PaymentOutcome, { status: 'Declined' }>
> {
  now ??= await ctx.clock.now(caller.accountId);
  const { customer } = card;
  const amount = amountInCurrency(payment.amount, customer.currency, 'amount');
  const base: PaymentBase = {
    accountId: caller.accountId,
    customerId: customer.id,
    paymentMethodType: 'CreditCard',
    paymentMethodId: null,
    source: payment.source,
    reference: null,
    amount: amount.toString(),
    currency: customer.currency,
    effectiveAt: now,
  };
  const chargeKey = gatewayIdempotencyKey(caller.accountId, options.idempotencyKey ?? randomUUID());
  // The customer is at the capture: on-session, and paid by the challenge they just answered when there was one.
  const outcome = await chargeToken(
    ctx,
    {
      token: String(card.values.gatewayToken),
      amount,
      currency: customer.currency,
      idempotencyKey: chargeKey,
      offSession: false,
      ...(options.authenticatedBy ? { authenticatedBy: options.authenticatedBy } : {}),
    },
    options.customerPresent === true,
  );
  if (outcome.status === 'declined') {
    const failedId = await ctx.db.transaction().execute(async (trx) => {
      const removed = await insertValidatedCard(trx, caller, card, { removed: true, now });
      return insertFailedPayment(trx, caller, { ...base, paymentMethodId: removed.id }, outcome, { webhooks: ctx.webhooks, now });
    });
    ctx.metrics?.paymentRecorded('Failed');
    return { status: 'Declined', payment: { id: failedId }, declineCode: outcome.code, message: outcome.message };
  }
  const charge = { customerId: customer.id, transactionId: outcome.value.transactionId, amount, currency: customer.currency, now };
  const stored = await storeChargedCard(ctx, caller, card, base, charge, options);
  ctx.metrics?.paymentRecorded('Succeeded');
  return { status: 'Succeeded', payment: { id: stored.paymentId }, card: stored.card };
}

/**
 * The charged card and its payment stored in one transaction, with the PaymentReceived e-mail. When
 * that fails the charge is paid back: at once, or, after a database failure that may have hidden a
 * commit, once the database says it was not recorded (settleAfterOutage). The failure is rethrown.
 */
async function storeChargedCard(
  ctx: AppContext,
  caller: Caller,
  card: CardReadyToStore,
  base: PaymentBase,
  charge: UnrecordedCharge,
  options: NewCardOptions,
): Promise<{ card: PaymentMethodRow; paymentId: number }> {
  const { customer } = card;
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      await options.alsoInTransaction?.(trx);
      const events = { webhooks: ctx.webhooks, now: charge.now };
      const { card: inserted, paymentId } = await storeCardWithSucceededPayment(trx, caller, card, base, charge.transactionId, events);
      await options.afterStored?.(trx, { paymentMethodId: inserted.id, paymentId });
      await ctx.notifier?.enqueue(trx, customer, {
        type: 'PaymentReceived',
        amount: charge.amount.toFixed(minorUnits(customer.currency)),
        currency: customer.currency,
        reference: null,
      });
      return { card: inserted, paymentId };
    });
  } catch (error) {
    if (isDatabaseUnavailable(error)) {
      // The commit may have gone through with its answer lost: pay back only once the database says it did not.
      options.onUnrecordedCharge?.('settling');
      void settleAfterOutage(ctx, caller, charge, options);
    } else {
      const paidBack = await compensateUnrecordedCharge(ctx, caller, charge, options.log);
      options.onUnrecordedCharge?.(paidBack ? 'paid back' : 'kept');
    }
    throw error;
  }
}
