import { Refusal } from '../refusals/refusal.js';
import { createHash, randomUUID } from 'node:crypto';
import type { AppContext } from '../app-context.js';
import { findAddressOfType } from '../addresses/repository.js';
import { createAddress, updateAddress } from '../addresses/service.js';
import { recordChange } from '../audit/audit-log.js';
import { effectiveBillingSettings } from '../billing-settings/effective-settings.js';
import { findBillingSetting } from '../billing-settings/repository.js';
import { createCaptureToken } from '../capture-tokens/service.js';
import { wallClockNow } from '../clock/account-clock.js';
import { getCustomerOverview } from '../customers/overview.js';
import { getEmailPreferences, updateEmailPreferences } from '../email-preferences/service.js';
import type { Caller } from '../http/auth.js';
import { API_ERROR_KEY } from '../http/errors.js';
import { selectInvoices } from '../invoices/repository.js';
import { invoicePdf, type InvoicePdfFile } from '../invoices/pdf/invoice-pdf.js';
import { toInvoiceResponses } from '../invoices/service.js';
import type { InvoiceResponse } from '../invoices/schemas.js';
import { cancelCustomer, uncancelCustomer } from '../lifecycle/cancellation.js';
import { findDefaultPaymentMethod, findPaymentMethod } from '../payment-methods/repository.js';
import { updateCreditCard } from '../payment-methods/service.js';
import { findSubscription, findSubscriptionsOfCustomers } from '../subscriptions/repository.js';
import { toSubscriptionResponses } from '../subscriptions/subscription-response.js';
import { utcDate } from '../invoices/billing-run.js';
import type { PortalSession } from './links.js';
import { portalBillingAddress } from './address.js';
import { portalAmountDue } from './amount-due.js';
import { findAwaitingPayment } from '../payments/repository.js';
import {
  findPendingCancellation,
  insertPortalCancellation,
  withdrawCancellation,
} from '../lifecycle/period-end-cancellation-repository.js';
import { findPortalCaptureSession } from './repository.js';
import { pendingPortalEmail } from './email-change-repository.js';
import type { PortalBillingAddressInput, PortalCancelInput, PortalEmailPreferencesInput } from './schemas.js';

/**
 * What the portal does, each operation on the session's own customer and within its scope, through
 * the same services as the API: the same rules, the same webhooks, the same audit (source `Portal`).
 * An id of another customer's invoice, card or subscription is answered as unknown (404).
 */

/** The caller the services see for a portal session: its account, audit actor `portal` and source `Portal`, the account's limits. */
export function portalCaller(ctx: AppContext, session: PortalSession): Caller {
  return {
    accountId: session.accountId,
    keyKind: 'private',
    actor: 'portal',
    auditSource: 'Portal',
    rateLimits: ctx.catalog.rateLimits,
    keyHash: `portal-customer:${session.customerId}`,
  };
}

function notAllowed(message: string): Refusal {
  return new Refusal('forbidden', [{ Key: API_ERROR_KEY, Value: message, Code: 'portal_action_not_allowed' }]);
}

/** An e-mail link's session (scope cardAndPay) reads, updates the card and pays; nothing else. */
export function requireFullScope(session: PortalSession, what: string) {
  if (session.scope !== 'full')
    throw notAllowed(`a session opened from an e-mail link may update the card and pay, not ${what}; sign in to do that`);
}

/** Days before a card's expiry month ends at which it is flagged as expiring soon. */
const EXPIRING_SOON_DAYS = 45;

export function cardExpiresSoon(card: { expirationMonth: number | null; expirationYear: number | null }, now: Date): boolean {
  if (!card.expirationMonth || !card.expirationYear) return false;
  // A card works through the last day of its expiry month.
  const end = Date.UTC(card.expirationYear, card.expirationMonth, 1);
  return end - now.getTime() <= EXPIRING_SOON_DAYS * 86_400_000;
}

/** The payment waiting for the customer's bank, as the portal's overview offers it; null when none waits. */
export async function awaitingPortalPayment(ctx: AppContext, session: PortalSession) {
  const payment = await findAwaitingPayment(ctx.db, session.customerId);
  if (!payment) return null;
  const card = payment.paymentMethodId === null ? undefined : await findPaymentMethod(ctx.db, session.accountId, payment.paymentMethodId);
  return {
    id: payment.id,
    amount: Number(payment.amount),
    currency: payment.currency,
    cardLastFour: card?.lastFour ?? null,
    createdTimestamp: payment.createdAt.toISOString(),
  };
}

/** The overview page: the customer's subscriptions, balance and default card, read through the API's own services. */
export async function getPortalOverview(ctx: AppContext, session: PortalSession) {
  const caller = portalCaller(ctx, session);
  const overview = await getCustomerOverview(ctx, caller, session.customerId);
  const rows = await findSubscriptionsOfCustomers(ctx.db, session.accountId, [session.customerId]);
  const subscriptions = await toSubscriptionResponses(
    ctx.db,
    ctx.catalog,
    ctx.uris,
    rows.filter((s) => s.status !== 'Draft'),
  );
  const pending = await Promise.all(subscriptions.map((s) => findPendingCancellation(ctx.db, s.id)));
  const card = await findDefaultPaymentMethod(ctx.db, session.customerId);
  const now = wallClockNow();
  const awaitingPayment = await awaitingPortalPayment(ctx, session);
  const billingAddress = await portalBillingAddress(ctx, session.customerId);
  const amountDue = await portalAmountDue(ctx, session);
  return {
    customer: {
      id: overview.id,
      firstName: overview.firstName,
      lastName: overview.lastName,
      companyName: overview.companyName,
      primaryEmail: overview.primaryEmail,
      primaryPhone: overview.primaryPhone,
      status: overview.status,
      customerAccountStatus: overview.customerAccountStatus,
      currency: overview.currency,
      /** A new address given in the portal, waiting for the customer to open the link sent to it; null: none. */
      pendingEmail: await pendingPortalEmail(ctx.db, session.customerId, now),
    },
    balance: overview.arBalance,
    /** What the card form offers to pay with the new card (an invoice is due); 0: nothing is. */
    amountDue,
    /** The billing address on file (the checkout's), to prefill the details form. */
    billingAddress,
    /** A renewal's payment waiting for the customer's bank (3-D Secure): the pay view offers to confirm it. */
    awaitingPayment,
    nextBillingDate: overview.nextBillingDate,
    daysUntilSuspension: overview.daysUntilSuspension,
    subscriptions: subscriptions.map((s, i) => {
      const cancellation = pending[i];
      return {
        id: s.id,
        planName: s.planName,
        name: s.subscriptionOverride.name ?? s.planName,
        status: s.status,
        nextChargeDate: s.status === 'Active' ? s.nextPeriodStartDate : null,
        nextChargeAmount: s.status === 'Active' ? s.amount : null,
        currency: s.currency,
        cancellation: cancellation
          ? { mode: cancellation.mode, effectiveDate: cancellation.effectiveOn, reason: cancellation.reason }
          : null,
      };
    }),
    defaultCard: card
      ? {
          id: card.id,
          brand: card.cardBrand,
          lastFour: card.lastFour,
          expirationMonth: card.expirationMonth,
          expirationYear: card.expirationYear,
          expiringSoon: cardExpiresSoon(card, now),
        }
      : null,
    scope: session.scope,
    cancelMode: ctx.catalog.portal.cancelMode,
    returnUrl: session.returnUrl,
  };
}
export type PortalOverview = Awaited<ReturnType<typeof getPortalOverview>>;

/** The invoices page: posted invoices, newest first, as the API shows them. */
export async function listPortalInvoices(ctx: AppContext, session: PortalSession): Promise<InvoiceResponse[]> {
  const rows = await selectInvoices(ctx.db, session.accountId)
    .where('invoices.customerId', '=', session.customerId)
    .where('invoices.status', '!=', 'Draft')
    .orderBy('invoices.id', 'desc')
    .limit(200)
    .execute();
  return toInvoiceResponses(ctx.db, ctx.uris, rows);
}

/** One of the customer's posted invoices as a PDF (the API's renderer). */
export async function portalInvoicePdf(ctx: AppContext, session: PortalSession, invoiceId: number): Promise<InvoicePdfFile> {
  const owned = await selectInvoices(ctx.db, session.accountId)
    .where('invoices.id', '=', invoiceId)
    .where('invoices.customerId', '=', session.customerId)
    .where('invoices.status', '!=', 'Draft')
    .executeTakeFirst();
  const file = owned ? await invoicePdf(ctx, session.accountId, invoiceId) : undefined;
  if (!file) throw Refusal.notFound('invoice', invoiceId);
  return file;
}

/**
 * A capture token for the hosted card fields: the card the customer types there goes from their
 * browser to the capture endpoint inside the card-fields frame, and may become the default.
 */
export async function portalCardCaptureToken(ctx: AppContext, session: PortalSession, options: { maxCollectionAmount?: string } = {}) {
  const caller = portalCaller(ctx, session);
  const minted = await createCaptureToken(
    ctx,
    caller,
    {
      customerId: session.customerId,
      expiresInSeconds: 900,
      ...(options.maxCollectionAmount ? { maxCollectionAmount: options.maxCollectionAmount } : {}),
    },
    undefined,
    { portalSessionId: session.id },
  );
  // What the card fields' frame sends besides the card: no CAPTCHA (the session stands in for it) and no public key (the token names the account).
  return { ...minted, riskToken: `portal-${session.id}-${randomUUID()}` };
}

/**
 * A capture the portal's card form sends (POST /api/paymentsv2 with a capture token a portal session minted, and
 * no public key): the caller it is made as (the portal's, audit source `Portal`), the customer, and the session, whose
 * per-customer limit it spends. The session stands in for the CAPTCHA: it was opened by a one-use link the merchant
 * or the customer's own mailbox gave, and every request of it is limited per customer (README "Customer portal").
 * Undefined when the token is not a live portal session's.
 */
export async function portalCaptureCaller(
  ctx: AppContext,
  captureToken: string,
): Promise<{ caller: Caller; customerId: number; sessionId: number } | undefined> {
  if (typeof captureToken !== 'string' || captureToken.length > 200) return undefined;
  const found = await findPortalCaptureSession(ctx.db, createHash('sha256').update(captureToken).digest('hex'), wallClockNow());
  if (!found) return undefined;
  const session = { id: found.sessionId, accountId: found.accountId, customerId: found.customerId } as PortalSession;
  return { caller: portalCaller(ctx, session), customerId: found.customerId, sessionId: found.sessionId };
}

/** Makes one of the customer's cards the default (PUT /v1/creditCards' rule: the default moves, it is never left without one). */
export async function setPortalDefaultCard(ctx: AppContext, session: PortalSession, paymentMethodId: number) {
  const card = await findPaymentMethod(ctx.db, session.accountId, paymentMethodId);
  if (!card || card.customerId !== session.customerId || card.removedAt) throw Refusal.notFound('payment method', paymentMethodId);
  return updateCreditCard(ctx, portalCaller(ctx, session), {
    id: card.id,
    expirationMonth: card.expirationMonth ?? 1,
    expirationYear: (card.expirationYear ?? 2000) % 100,
    isDefault: true,
    firstName: card.firstName ?? '',
    lastName: card.lastName ?? '',
    address1: card.address1,
    address2: card.address2,
    city: card.city,
    countryId: card.countryId,
    stateId: card.stateId,
    postalZip: card.postalZip,
    email: card.email,
  });
}

/** One of the session customer's subscriptions; another customer's (or account's) is unknown (404). */
export async function ownSubscription(ctx: AppContext, session: PortalSession, subscriptionId: number) {
  const subscription = await findSubscription(ctx.db, session.accountId, subscriptionId);
  if (!subscription || subscription.customerId !== session.customerId) throw Refusal.notFound('subscription', subscriptionId);
  return subscription;
}

/**
 * Cancels a subscription as the catalogue's `portal.cancelMode` allows, with the customer's reason
 * stored. The API cancels a customer (POST /v1/customercancellation), not one subscription: `now`
 * is that cancellation, offered when this is the customer's only live subscription; `periodEnd`
 * records the request with the date the period ends (README "Customer portal").
 */
export async function cancelPortalSubscription(ctx: AppContext, session: PortalSession, subscriptionId: number, input: PortalCancelInput) {
  requireFullScope(session, 'cancel');
  const subscription = await ownSubscription(ctx, session, subscriptionId);
  const allowed = ctx.catalog.portal.cancelMode;
  if (allowed === 'none' || (allowed !== 'either' && allowed !== input.mode)) {
    throw notAllowed(
      allowed === 'none'
        ? 'this shop does not let customers cancel in the portal'
        : `this shop lets customers cancel ${allowed === 'now' ? 'at once' : 'at the end of the period'} only`,
    );
  }
  if (subscription.status !== 'Active' && subscription.status !== 'Suspended') {
    throw Refusal.conflict(
      `the subscription is ${subscription.status}; only an Active or Suspended one can be cancelled`,
      'subscriptionId',
      'state_conflict',
    );
  }
  if (await findPendingCancellation(ctx.db, subscriptionId))
    throw Refusal.conflict('this subscription is already set to be cancelled', 'subscriptionId', 'state_conflict');
  const caller = portalCaller(ctx, session);
  const now = await ctx.clock.now(session.accountId);
  const reason = input.reason?.trim() || null;
  if (input.mode === 'now') {
    const live = (await findSubscriptionsOfCustomers(ctx.db, session.accountId, [session.customerId], ['Active', 'Suspended'])).filter(
      (s) => s.id !== subscriptionId,
    );
    if (live.length > 0) {
      throw Refusal.conflict(
        'cancelling at once ends the whole account, and this customer has other subscriptions: cancel at the end of the period instead',
        'mode',
        'state_conflict',
      );
    }
    const { defaultCancelOption } = effectiveBillingSettings(await findBillingSetting(ctx.db, session.customerId), ctx.catalog);
    await cancelCustomer(ctx, caller, { customerId: session.customerId, cancellationOption: defaultCancelOption }, now);
  }
  await ctx.db.transaction().execute(async (trx) => {
    const row = await insertPortalCancellation(trx, {
      accountId: session.accountId,
      customerId: session.customerId,
      subscriptionId,
      mode: input.mode,
      reason,
      effectiveOn: input.mode === 'now' ? utcDate(now) : subscription.nextPeriodStart,
      requestedAt: now,
    });
    await recordChange(trx, caller, {
      entityType: 'Subscription',
      entityId: subscriptionId,
      action: 'update',
      changes: { portalCancellation: [null, { mode: row.mode, effectiveOn: row.effectiveOn, reason }] },
    });
  });
  return getPortalOverview(ctx, session);
}

/** Withdraws a cancellation while the period it ends has not ended (a `now` one: POST /v1/customeruncancellation's service). */
export async function uncancelPortalSubscription(ctx: AppContext, session: PortalSession, subscriptionId: number) {
  requireFullScope(session, 'uncancel');
  await ownSubscription(ctx, session, subscriptionId);
  const pending = await findPendingCancellation(ctx.db, subscriptionId);
  if (!pending) throw Refusal.conflict('this subscription is not set to be cancelled', 'subscriptionId', 'state_conflict');
  const caller = portalCaller(ctx, session);
  const now = await ctx.clock.now(session.accountId);
  if (pending.mode === 'now') {
    const subscription = await ownSubscription(ctx, session, subscriptionId);
    if (!subscription.nextPeriodStart || subscription.nextPeriodStart <= utcDate(now)) {
      throw Refusal.conflict('the period this cancellation ended is over; subscribe again instead', 'subscriptionId', 'state_conflict');
    }
    await uncancelCustomer(ctx, caller, session.customerId, now);
  }
  await ctx.db.transaction().execute(async (trx) => {
    if (!(await withdrawCancellation(trx, pending.id, now)))
      throw Refusal.conflict('the period this cancellation ended is over; subscribe again instead', 'subscriptionId', 'state_conflict');
    await recordChange(trx, caller, {
      entityType: 'Subscription',
      entityId: subscriptionId,
      action: 'update',
      changes: { portalCancellation: [{ mode: pending.mode, effectiveOn: pending.effectiveOn }, null] },
    });
  });
  return getPortalOverview(ctx, session);
}

/** The billing address, through the address endpoints' service (created when the customer has none). */
export async function updatePortalBillingAddress(ctx: AppContext, session: PortalSession, input: PortalBillingAddressInput) {
  requireFullScope(session, 'change the billing address');
  const caller = portalCaller(ctx, session);
  const existing = await findAddressOfType(ctx.db, session.customerId, 'Billing');
  const fields = {
    line1: input.line1 ?? null,
    line2: input.line2 ?? null,
    city: input.city ?? null,
    postalZip: input.postalZip ?? null,
    countryId: input.countryId ?? null,
    stateId: input.stateId ?? null,
  };
  return existing
    ? updateAddress(ctx, caller, { id: existing.id, ...fields })
    : createAddress(ctx, caller, { customerAddressPreferenceId: session.customerId, addressType: 'Billing', ...fields });
}

/** The e-mail preferences the catalogue lets customers change (`portal.editableEmailTypes`). */
export async function getPortalEmailPreferences(ctx: AppContext, session: PortalSession) {
  const editable = new Set<string>(ctx.catalog.portal.editableEmailTypes);
  const all = await getEmailPreferences(ctx, portalCaller(ctx, session), session.customerId);
  return all.preferences.filter((p) => editable.has(p.emailType));
}

/** Changes editable preferences only; the others keep their stored values. */
export async function updatePortalEmailPreferences(ctx: AppContext, session: PortalSession, input: PortalEmailPreferencesInput) {
  requireFullScope(session, 'change e-mail preferences');
  const editable = new Set<string>(ctx.catalog.portal.editableEmailTypes);
  input.preferences.forEach((p, i) => {
    if (!editable.has(p.emailType))
      throw Refusal.invalid(
        `${p.emailType} is not one the customer may change here`,
        `preferences[${i}].emailType`,
        'portal_action_not_allowed',
      );
  });
  const caller = portalCaller(ctx, session);
  const current = await getEmailPreferences(ctx, caller, session.customerId);
  const next = new Map(current.preferences.map((p) => [p.emailType, p.enabled] as const));
  for (const p of input.preferences) next.set(p.emailType, p.enabled);
  await updateEmailPreferences(ctx, caller, {
    customerId: session.customerId,
    preferences: [...next].map(([emailType, enabled]) => ({ emailType, enabled })),
  });
  return getPortalEmailPreferences(ctx, session);
}
