import { Refusal } from '../refusals/refusal.js';
import type { AppContext } from '../app-context.js';
import { findCustomerRow } from '../customers/repository.js';
import { reactivateIfPaid } from '../lifecycle/billing-clock.js';
import { takeTodaysAttempts } from '../lifecycle/collection.js';
import { minorUnits } from '../money/money.js';
import { findDefaultPaymentMethod, findPaymentMethod } from '../payment-methods/repository.js';
import { payAwaitingPayment } from '../payments/complete-authentication.js';
import { earlierOutcome, paymentDeclinedError, type PaymentOutcome } from '../payments/outcome.js';
import { getPayment } from '../payments/payment-responses.js';
import { recordPayment } from '../payments/record-payment.js';
import { AuthenticationNeeded } from '../payments/record-steps.js';
import type { PaymentResponse } from '../payments/schemas.js';
import { owedOnPostedInvoices } from './amount-due.js';
import type { PortalSession } from './links.js';
import { portalCaller } from './service.js';

/** The portal's answer (202) when the card's bank asks the customer to authenticate the payment first. */
export interface PortalAuthenticationNeeded {
  status: 'RequiresAction';
  authenticationId: string;
  challengeUrl: string;
  expiresTimestamp: string;
}

/**
 * Pays what the customer's posted invoices owe, with the default card or another card of theirs,
 * through POST /v1/payments' service (allocated oldest first, webhooks, e-mail). A Suspended customer
 * left with nothing overdue is reactivated at once, by the billing clock's own rule.
 * Asked again under the same idempotency key (the card form's "pay now" retried), the payment made is the answer.
 * The card's automatic collection attempt of the day is taken first: the billing clock, which tries a new
 * default card at once, does not charge the card this payment pays with (README "Customer portal").
 */
export async function payPortalInvoices(
  ctx: AppContext,
  session: PortalSession,
  input: { paymentMethodId?: number | null; authenticatedBy?: string | null },
  idempotencyKey?: string,
): Promise<PaymentResponse | PortalAuthenticationNeeded> {
  const caller = portalCaller(ctx, session);
  const key = idempotencyKey ? `portal-${session.customerId}-${idempotencyKey}` : undefined;
  const earlier = key ? await earlierOutcome(ctx, caller, key) : undefined;
  if (earlier) return onSession(ctx, session, async () => earlier);
  const customer = await findCustomerRow(ctx.db, session.accountId, session.customerId);
  if (!customer) throw Refusal.notFound('customer', session.customerId);
  if (input.paymentMethodId != null) {
    const card = await findPaymentMethod(ctx.db, session.accountId, input.paymentMethodId);
    if (!card || card.customerId !== session.customerId || card.removedAt) throw Refusal.notFound('payment method', input.paymentMethodId);
  }
  const defaultCardId = (await findDefaultPaymentMethod(ctx.db, session.customerId))?.id;
  const cardIds = [input.paymentMethodId, defaultCardId].filter((id): id is number => id != null);
  const now = await ctx.clock.now(session.accountId);
  if ((await takeTodaysAttempts(ctx, session.accountId, session.customerId, cardIds, now)) === 'inFlight')
    throw Refusal.conflict(
      'an automatic payment with your card is being made right now: look again in a minute',
      'amount',
      'payment_in_progress',
    );
  const owed = await owedOnPostedInvoices(ctx, session.customerId);
  if (owed.lte(0)) throw Refusal.invalid('nothing is owed: every posted invoice is paid', 'amount', 'state_conflict');
  // The customer is here: an on-session charge, whose bank may ask them to authenticate it (3-D Secure).
  return onSession(ctx, session, () =>
    recordPayment(
      ctx,
      caller,
      {
        customerId: session.customerId,
        amount: owed.toFixed(minorUnits(customer.currency)),
        paymentMethod: 'CreditCard',
        ...(input.paymentMethodId != null ? { paymentMethodId: input.paymentMethodId } : { useDefaultPaymentMethod: true }),
        source: 'SelfServicePortal',
        reference: 'customer portal',
      },
      undefined,
      {
        ...(key ? { idempotencyKey: key } : {}),
        customerPresent: true,
        ...(input.authenticatedBy ? { authenticatedBy: input.authenticatedBy } : {}),
      },
    ),
  );
}

/**
 * The authenticatePayment flow (the AuthenticationRequired e-mail's button): the payment a renewal left
 * waiting for the customer's bank is charged on-session through its challenge, then recorded as paid;
 * a Suspended customer left with nothing overdue is reactivated at once.
 */
export async function authenticatePortalPayment(
  ctx: AppContext,
  session: PortalSession,
  paymentId: number,
  input: { authenticatedBy?: string | null },
): Promise<PaymentResponse | PortalAuthenticationNeeded> {
  return onSession(ctx, session, () =>
    payAwaitingPayment(ctx, portalCaller(ctx, session), paymentId, {
      customerId: session.customerId,
      authenticatedBy: input.authenticatedBy,
    }),
  );
}

/**
 * A charge with the customer present: the bank's challenge when it asks for one (nothing charged or recorded:
 * the portal shows it, then asks again with `authenticatedBy`), a 402 for a decline, else the payment made,
 * and a Suspended customer with nothing left overdue reactivated.
 */
async function onSession(
  ctx: AppContext,
  session: PortalSession,
  charge: () => Promise<PaymentOutcome>,
): Promise<PaymentResponse | PortalAuthenticationNeeded> {
  let outcome: PaymentOutcome;
  try {
    outcome = await charge();
  } catch (error) {
    if (!(error instanceof AuthenticationNeeded)) throw error;
    const { action } = error;
    return {
      status: 'RequiresAction',
      authenticationId: action.id,
      challengeUrl: action.challengeUrl,
      expiresTimestamp: action.expiresAt.toISOString(),
    };
  }
  if (outcome.status === 'Declined') throw paymentDeclinedError(outcome);
  const customer = await findCustomerRow(ctx.db, session.accountId, session.customerId);
  if (customer?.status === 'Suspended') {
    const now = await ctx.clock.now(session.accountId);
    // Another request (the same payment asked twice at once) may have reactivated them meanwhile: nothing left to do.
    await reactivateIfPaid(ctx, { id: customer.id, accountId: customer.accountId }, now).catch((error: unknown) => {
      if (!(error instanceof Refusal && error.hasCode('state_conflict'))) throw error;
    });
  }
  return getPayment(ctx, portalCaller(ctx, session), outcome.payment.id);
}
