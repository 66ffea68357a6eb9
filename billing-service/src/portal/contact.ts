import { createHash, randomBytes } from 'node:crypto';
import type { AppContext } from '../app-context.js';
import { recordChange } from '../audit/audit-log.js';
import { wallClockNow } from '../clock/account-clock.js';
import { getCustomer, updateCustomer } from '../customers/service.js';
import { UpdateCustomerBody } from '../customers/schemas.js';
import { lockCustomer } from '../db/customer-lock.js';
import { API_ERROR_KEY } from '../http/errors.js';
import { validationError } from '../http/validation.js';
import { Refusal } from '../refusals/refusal.js';
import {
  claimEmailChange,
  insertEmailChange,
  pendingPortalEmail,
  releaseEmailChange,
  supersedeEmailChanges,
} from './email-change-repository.js';
import type { PortalSession } from './links.js';
import { portalCaller, requireFullScope } from './service.js';
import type { PortalContactInput } from './schemas.js';

/*
 * The customer's contact details, changed in the portal through PUT /v1/customers' service. A new e-mail address given in the portal is proven before it replaces the old one (issue 38): a one-use link
 * goes to the new address, and opening it applies the change; until then the e-mails keep going to the address
 * on file. The merchant's PUT /v1/customers changes the address at once, as before (the merchant is trusted).
 * Customers have no unique e-mail rule, so an address another customer uses may be confirmed too.
 */

export const EMAIL_CHANGE_HOURS = 24;
const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

const sameAddress = (a: string | null, b: string) => (a ?? '').split(/[,;]/)[0]?.trim().toLowerCase() === b.trim().toLowerCase();

/** Whether `email` differs from the customer's address on file (a change to prove) or only restates it. */
export function isEmailChange(current: string | null, email: string | null | undefined): email is string {
  return typeof email === 'string' && email.trim() !== '' && !sameAddress(current, email);
}

function refuseWithoutEmail(ctx: AppContext) {
  if (!ctx.notifier?.enabled)
    throw Refusal.conflict(
      'e-mail is not set up on this service, so a new address cannot be confirmed: ask the shop to change it',
      'primaryEmail',
      'state_conflict',
    );
}

/** Sends the confirmation link to the new address; a newer request replaces a pending one. Refused when e-mail is off (no link could arrive). */
export async function requestPortalEmailChange(ctx: AppContext, session: PortalSession, newEmail: string): Promise<void> {
  refuseWithoutEmail(ctx);
  const token = `ec_${randomBytes(32).toString('base64url')}`;
  const now = wallClockNow();
  await ctx.db.transaction().execute(async (trx) => {
    const customer = await lockCustomer(trx, session.accountId, session.customerId);
    if (!customer) throw Refusal.notFound('customer', session.customerId);
    // The page the link opens speaks the e-mail's language: the customer's, else the portal's.
    const lang = customer.language ?? session.locale;
    const query = new URLSearchParams({ token, ...(lang ? { lang } : {}) });
    const url = `${ctx.portal.baseUrl}/portal/confirm-email?${query.toString()}`;
    await supersedeEmailChanges(trx, customer.id, now);
    await insertEmailChange(trx, {
      accountId: session.accountId,
      customerId: customer.id,
      newEmail: newEmail.trim(),
      tokenHash: hashToken(token),
      locale: lang,
      expiresAt: new Date(now.getTime() + EMAIL_CHANGE_HOURS * 3_600_000),
    });
    await recordChange(trx, portalCaller(ctx, session), {
      entityType: 'Customer',
      entityId: customer.id,
      action: 'update',
      changes: { primaryEmailChange: { requested: newEmail.trim(), confirmed: false } },
    });
    await ctx.notifier?.enqueueRequested(
      trx,
      customer,
      { type: 'EmailChangeConfirmation', url, newEmail: newEmail.trim(), hours: EMAIL_CHANGE_HOURS },
      session.locale,
    );
  });
}

function invalidLink(): Refusal {
  return new Refusal('gone', [
    {
      Key: 'token',
      Value: 'this confirmation link was already used, has expired, or a newer request replaced it: change the address again in the portal',
      Code: 'email_change_invalid',
    },
  ]);
}

/**
 * Opens the confirmation link: spends it (one use), then applies the address through PUT /v1/customers' service
 * (its audit record, source Portal); a change that cannot be applied gives the link back.
 */
export async function confirmPortalEmailChange(ctx: AppContext, token: string): Promise<{ primaryEmail: string; locale: string | null }> {
  if (typeof token !== 'string' || token.length > 200) throw invalidLink();
  const claimedAt = wallClockNow();
  const change = await claimEmailChange(ctx.db, hashToken(token), claimedAt);
  if (!change) throw invalidLink();
  const session = { accountId: change.accountId, customerId: change.customerId } as PortalSession;
  const caller = portalCaller(ctx, session);
  try {
    const current = await getCustomer(ctx, caller, change.customerId);
    const parsed = UpdateCustomerBody.safeParse({ ...current, primaryEmail: change.newEmail });
    if (!parsed.success) throw Refusal.invalid('the new address does not fit the customer any more', API_ERROR_KEY, 'value_invalid');
    await updateCustomer(ctx, caller, parsed.data);
  } catch (error) {
    await releaseEmailChange(ctx.db, change.id, claimedAt);
    throw error;
  }
  return { primaryEmail: change.newEmail, locale: change.locale };
}

/**
 * Contact details, through PUT /v1/customers' service (the rest of the customer kept as it is). A new e-mail
 * address is not applied: a confirmation link goes to it (`pendingEmail`), and the address on file stays.
 */
export async function updatePortalContact(ctx: AppContext, session: PortalSession, input: PortalContactInput) {
  requireFullScope(session, 'change contact details');
  const caller = portalCaller(ctx, session);
  const current = await getCustomer(ctx, caller, session.customerId);
  const { primaryEmail, ...others } = input;
  const newEmail = isEmailChange(current.primaryEmail, primaryEmail) ? primaryEmail : null;
  // Refused before anything changes: without e-mail, the new address could never be confirmed.
  if (newEmail !== null) refuseWithoutEmail(ctx);
  const given = Object.fromEntries(Object.entries(others).filter(([, v]) => v !== undefined));
  // The API's own schema, as a 400 (never a 500) should the stored customer and the change not fit it together.
  const parsed = UpdateCustomerBody.safeParse({ ...current, ...given });
  if (!parsed.success) throw validationError(parsed.error.issues);
  const updated = await updateCustomer(ctx, caller, parsed.data);
  if (newEmail !== null) await requestPortalEmailChange(ctx, session, newEmail);
  return {
    firstName: updated.firstName,
    lastName: updated.lastName,
    companyName: updated.companyName,
    primaryEmail: updated.primaryEmail,
    primaryPhone: updated.primaryPhone,
    pendingEmail: await pendingPortalEmail(ctx.db, session.customerId, wallClockNow()),
  };
}
