import type { AppContext } from '../app-context.js';
import { recordChange } from '../audit/audit-log.js';
import { findCustomerRow } from '../customers/repository.js';
import type { Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import { Refusal } from '../refusals/refusal.js';
import { findSubscriptionCustomerId } from '../subscriptions/repository.js';
import { issuePortalLink } from './links.js';
import type { CreatePortalSessionInput, PortalFlow, PortalLocale, PortalSessionResponse } from './schemas.js';

// The links the merchant's server and the e-mails hand out (sign-in links: sign-in-links.ts).

/**
 * POST /v1/portalSessions: a one-use link (15 minutes to open) into a full portal session for the
 * customer, optionally on one task. Audited; the token is in the URL only, shown once.
 */
export async function createPortalSession(
  ctx: AppContext,
  caller: Caller,
  input: CreatePortalSessionInput,
): Promise<PortalSessionResponse> {
  const customer = await findCustomerRow(ctx.db, caller.accountId, input.customerId);
  if (!customer) throw Refusal.notFound('customer', input.customerId);
  if (input.subscriptionId != null) {
    const owner = await findSubscriptionCustomerId(ctx.db, caller.accountId, input.subscriptionId);
    if (owner !== customer.id)
      throw Refusal.invalid(`the customer has no subscription with id ${input.subscriptionId}`, 'subscriptionId', 'not_found');
  }
  const issued = await ctx.db.transaction().execute(async (trx) => {
    const link = await issuePortalLink(ctx, trx, {
      accountId: caller.accountId,
      customerId: customer.id,
      kind: 'session',
      scope: 'full',
      flow: input.flow ?? null,
      subscriptionId: input.subscriptionId ?? null,
      returnUrl: input.returnUrl ?? null,
      locale: input.locale ?? null,
    });
    await recordChange(trx, caller, {
      entityType: 'Customer',
      entityId: customer.id,
      action: 'update',
      changes: {
        portalSession: 'issued',
        portalLinkId: link.row.id,
        flow: input.flow ?? null,
        expiresAt: link.row.expiresAt.toISOString(),
      },
    });
    return link;
  });
  return { id: issued.row.id, url: issued.url, expiresTimestamp: issued.row.expiresAt.toISOString() };
}

/**
 * A link for an e-mail that asks the customer to act (PaymentFailed, CreditCardExpiry, InvoiceOverdue,
 * CustomerSuspend, InvoicePost): 7 days, opens as often as needed until then (a newer e-mail leaves it
 * working), scoped to updating the card and paying. `trx`: the e-mail's transaction (else one of its own).
 */
export async function createEmailActionLink(
  ctx: AppContext,
  link: { accountId: number; customerId: number; flow: Exclude<PortalFlow, 'subscriptionCancel'>; locale?: PortalLocale | null },
  trx?: Queryable,
): Promise<{ url: string; expiresTimestamp: string }> {
  const issue = (q: Queryable) =>
    issuePortalLink(ctx, q, {
      accountId: link.accountId,
      customerId: link.customerId,
      kind: 'emailAction',
      scope: 'cardAndPay',
      flow: link.flow,
      subscriptionId: null,
      returnUrl: null,
      locale: link.locale ?? null,
    });
  const issued = trx ? await issue(trx) : await ctx.db.transaction().execute(issue);
  return { url: issued.url, expiresTimestamp: issued.row.expiresAt.toISOString() };
}
