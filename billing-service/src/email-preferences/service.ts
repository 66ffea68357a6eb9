import { Refusal } from '../refusals/refusal.js';
import { diffFields, recordChange } from '../audit/audit-log.js';
import { EMAIL_TYPES, type Catalog } from '../catalog/schema.js';
import { customerExists, lockCustomer } from '../customers/repository.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import { accountDefault } from './enabled.js';
import { replaceEmailPreferences, selectEmailPreferences } from './repository.js';
import type { EmailCategory, EmailPreferencesResponse, EmailType, UpdateEmailPreferencesInput } from './schemas.js';

/** The category each type is shown under (a new type in EMAIL_TYPES must be given one here). */
export const EMAIL_CATEGORY: Record<EmailType, EmailCategory> = {
  PasswordReset: 'Customers',
  CustomerActivation: 'Customers',
  CustomerCredentialCreate: 'Customers',
  CustomerCredentialPasswordReset: 'Customers',
  CustomerSuspend: 'Customers',
  InvoicePost: 'InvoicesAndStatements',
  InvoiceOverdue: 'InvoicesAndStatements',
  StatementNotification: 'InvoicesAndStatements',
  UpcomingBillingNotification: 'InvoicesAndStatements',
  DraftInvoice: 'InvoicesAndStatements',
  CreditNote: 'InvoicesAndStatements',
  PaymentReceived: 'PaymentsAndRefunds',
  PaymentFailed: 'PaymentsAndRefunds',
  AuthenticationRequired: 'PaymentsAndRefunds',
  PaymentMethodUpdate: 'PaymentsAndRefunds',
  CreditCardExpiry: 'PaymentsAndRefunds',
  Refund: 'PaymentsAndRefunds',
  SubscriptionActivation: 'Subscriptions',
  SubscriptionCancellation: 'Subscriptions',
  PendingExpiryRenewalNotice: 'Subscriptions',
  SubscriptionChange: 'Subscriptions',
  UsageThresholdReached: 'Subscriptions',
};

function toResponse(catalog: Catalog, customerId: number, stored: ReadonlyMap<string, boolean | null>): EmailPreferencesResponse {
  return {
    customerId,
    preferences: EMAIL_TYPES.map((emailType) => ({
      emailType,
      enabled: stored.get(emailType) ?? null,
      accountDefault: accountDefault(catalog, emailType),
      emailCategory: EMAIL_CATEGORY[emailType],
    })),
  };
}

/** Every type, with null where the customer has made no choice. */
function everyType(stored: ReadonlyMap<string, boolean | null>): Record<EmailType, boolean | null> {
  return Object.fromEntries(EMAIL_TYPES.map((t) => [t, stored.get(t) ?? null])) as Record<EmailType, boolean | null>;
}

export async function getEmailPreferences(ctx: AppContext, caller: Caller, customerId: number): Promise<EmailPreferencesResponse> {
  if (!(await customerExists(ctx.db, caller.accountId, customerId))) throw Refusal.notFound('customer', customerId);
  return toResponse(ctx.catalog, customerId, await selectEmailPreferences(ctx.db, customerId));
}

/** PUT: the given set replaces the stored one; types left out become null (account default). */
export async function updateEmailPreferences(
  ctx: AppContext,
  caller: Caller,
  input: UpdateEmailPreferencesInput,
): Promise<EmailPreferencesResponse> {
  const next = new Map<string, boolean | null>();
  input.preferences.forEach((p, i) => {
    if (next.has(p.emailType))
      throw Refusal.invalid(`${p.emailType} is given more than once`, `preferences[${i}].emailType`, 'value_invalid');
    next.set(p.emailType, p.enabled);
  });
  await ctx.db.transaction().execute(async (trx) => {
    // Locking the customer serializes concurrent replacements of the same set.
    if (!(await lockCustomer(trx, caller.accountId, input.customerId))) throw Refusal.notFound('customer', input.customerId);
    const before = await selectEmailPreferences(trx, input.customerId);
    const chosen = [...next].flatMap(([emailType, enabled]) => (enabled === null ? [] : [{ emailType, enabled }]));
    await replaceEmailPreferences(trx, input.customerId, chosen);
    await recordChange(trx, caller, {
      entityType: 'CustomerEmailPreferences',
      entityId: input.customerId,
      action: 'update',
      changes: diffFields(everyType(before), everyType(next)),
    });
  });
  return toResponse(ctx.catalog, input.customerId, next);
}
