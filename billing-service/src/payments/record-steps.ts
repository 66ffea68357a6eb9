import { Refusal } from '../refusals/refusal.js';
import { recordChange } from '../audit/audit-log.js';
import type { Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import { allocateAvailableFunds, allocateExplicitly, type Allocation } from '../ledger/allocation.js';
import type { ResourceWebhooks } from '../outbox/webhook-events.js';
import { addLedgerEntry } from '../ledger/entries.js';
import { money } from '../money/money.js';
import { callGateway } from '../gateway/call-gateway.js';
import type { ChargeRequest, Declined, GatewayAction, GatewayOutcome, SettledOutcome } from '../gateway/payment-gateway.js';
import { closeAwaitingPayments, insertPayment, type NewPayment, type ReservationsCounted } from './repository.js';
import type { CollectPaymentInput } from './schemas.js';
import { checkExplicitAllocations } from './check-request.js';

export type PaymentBase = Omit<NewPayment, 'ledgerEntryId' | 'status' | 'gatewayTransactionId' | 'declineCode' | 'declineMessage'>;
export type { Declined } from '../gateway/payment-gateway.js';

/**
 * The card's bank asks the customer, who is there (the portal), to authenticate this charge first: nothing
 * was charged or recorded; the caller shows the challenge and charges again with `authenticatedBy`.
 */
export class AuthenticationNeeded extends Error {
  constructor(readonly action: GatewayAction) {
    super('the bank asks the customer to authenticate this payment (3-D Secure)');
  }
}

/** A charge as the gateway answered it, under the configured deadline (an unavailable gateway is a Refusal). */
export function chargeCard(ctx: AppContext, request: ChargeRequest): Promise<GatewayOutcome<{ transactionId: string }>> {
  return callGateway(ctx, (signal) => ctx.payments.gateway.charge(request, signal));
}

/**
 * Charges a card the customer is giving or has just given (a capture's first payment). A bank that asks the
 * customer to authenticate: with the customer present (`customerPresent`), AuthenticationNeeded is thrown;
 * otherwise the charge is a decline coded `authentication_required`.
 */
export async function chargeToken(
  ctx: AppContext,
  request: ChargeRequest,
  customerPresent = false,
): Promise<SettledOutcome<{ transactionId: string }>> {
  const outcome = await chargeCard(ctx, request);
  if (outcome.status !== 'requiresAction') return outcome;
  if (customerPresent) throw new AuthenticationNeeded(outcome.action);
  return authenticationRequired();
}

export const authenticationRequired = (): Declined => ({
  status: 'declined',
  code: 'authentication_required',
  message: 'the bank asks the customer to authenticate this payment (3-D Secure)',
});

/** Where a payment's webhook events go, and when they happened (the account's time; a payment's effective time may be earlier). */
export interface PaymentEvents {
  webhooks: ResourceWebhooks | undefined;
  now: Date;
}

export async function insertFailedPayment(
  trx: Queryable,
  caller: Caller,
  base: PaymentBase,
  outcome: Declined,
  events: PaymentEvents,
): Promise<number> {
  return insertUnpaidPayment(trx, caller, base, outcome, 'Failed', events);
}

/**
 * An off-session charge the bank holds until the customer authenticates it: a RequiresAction payment (no
 * ledger entry, nothing charged) replacing any earlier one, payment.requiresAction; the caller e-mails the customer.
 */
export async function insertAwaitingPayment(trx: Queryable, caller: Caller, base: PaymentBase, events: PaymentEvents): Promise<number> {
  return insertUnpaidPayment(trx, caller, base, authenticationRequired(), 'RequiresAction', events);
}

/** A payment that moved no money (declined, or waiting for the customer's bank): it replaces any payment still waiting. */
async function insertUnpaidPayment(
  trx: Queryable,
  caller: Caller,
  base: PaymentBase,
  outcome: Declined,
  status: 'Failed' | 'RequiresAction',
  events: PaymentEvents,
): Promise<number> {
  await closeAwaitingPayments(trx, base.customerId);
  const id = await insertPayment(trx, {
    ...base,
    ledgerEntryId: null,
    status,
    gatewayTransactionId: null,
    declineCode: outcome.code,
    declineMessage: outcome.message,
  });
  await recordChange(trx, caller, {
    entityType: 'Payment',
    entityId: id,
    action: 'create',
    changes: { status, amount: String(base.amount), declineCode: outcome.code },
  });
  const type = status === 'Failed' ? 'payment.failed' : 'payment.requiresAction';
  await events.webhooks?.payment(trx, caller.accountId, base.customerId, id, type, events.now);
  return id;
}

/**
 * How a new payment's explicit allocations are checked under the lock: against what is open less the
 * live reservations of other charges (`counted`); when they no longer fit, a payment whose money has
 * moved (a card charged) is kept unallocated, any other is refused (the 400 rolls it back).
 */
export interface AllocationCheck {
  counted: ReservationsCounted;
  moneyMoved: boolean;
}

/** The payment's ledger entry, the payment, its allocation and the audit entry; the caller holds the customer's lock. */
export async function insertSucceededPayment(
  trx: Queryable,
  caller: Caller,
  base: PaymentBase,
  transactionId: string | null,
  allocation: Pick<CollectPaymentInput, 'paymentAllocations' | 'autoAllocate' | 'autoAllocateOrder' | 'reference' | 'paymentMethod'>,
  check: AllocationCheck,
  events: PaymentEvents,
): Promise<number> {
  const amount = money(String(base.amount));
  const entryId = await addLedgerEntry(trx, {
    accountId: caller.accountId,
    customerId: base.customerId,
    entryType: 'payment',
    amount,
    effectiveAt: base.effectiveAt as Date,
    description: allocation.reference ?? null,
  });
  await closeAwaitingPayments(trx, base.customerId);
  const id = await insertPayment(trx, {
    ...base,
    ledgerEntryId: entryId,
    status: 'Succeeded',
    gatewayTransactionId: transactionId,
    declineCode: null,
    declineMessage: null,
  });
  const allocations = await allocateNewPayment(trx, caller, base, entryId, allocation, check, events.now);
  await recordChange(trx, caller, {
    entityType: 'Payment',
    entityId: id,
    action: 'create',
    changes: succeededPaymentAuditChanges(base, allocation.paymentMethod),
  });
  await announceSucceededPayment(trx, caller, base, id, allocations, events);
  return id;
}

/** A succeeded payment's ledger entry allocated as asked: explicitly, or to open invoices (the default), or not at all. */
async function allocateNewPayment(
  trx: Queryable,
  caller: Caller,
  base: PaymentBase,
  entryId: number,
  allocation: Pick<CollectPaymentInput, 'paymentAllocations' | 'autoAllocate' | 'autoAllocateOrder'>,
  check: AllocationCheck,
  now: Date,
): Promise<Allocation[]> {
  if (allocation.paymentAllocations?.length) {
    // Checked again under the lock. A charged card's reservation held its amounts, but other movements
    // (automatic allocation, credits) may have taken them meanwhile: its money then stays unallocated rather than lost.
    const parts = await checkExplicitAllocations(
      trx,
      check.counted,
      { id: base.customerId, currency: base.currency },
      money(String(base.amount)),
      allocation.paymentAllocations,
    ).catch((error: unknown) => {
      if (error instanceof Refusal && check.moneyMoved) return [];
      throw error;
    });
    return allocateExplicitly(trx, caller.accountId, entryId, parts, now);
  }
  if (allocation.autoAllocate === false) return [];
  return allocateAvailableFunds(trx, caller.accountId, base.customerId, now, allocation.autoAllocateOrder ?? 'OldestToNewest', entryId);
}

export const succeededPaymentAuditChanges = (base: PaymentBase, method: string) => ({
  status: 'Succeeded',
  amount: String(base.amount),
  method,
});

/** payment.succeeded, and invoice.paid for the invoices its allocations paid off. */
export async function announceSucceededPayment(
  trx: Queryable,
  caller: Caller,
  base: PaymentBase,
  id: number,
  allocations: Allocation[],
  events: PaymentEvents,
) {
  await events.webhooks?.payment(trx, caller.accountId, base.customerId, id, 'payment.succeeded', events.now);
  await events.webhooks?.paidInvoices(
    trx,
    caller.accountId,
    base.customerId,
    allocations.map((a) => a.invoiceId),
    events.now,
  );
}
