import { z } from 'zod';
import { EMAIL_TYPES } from '../catalog/schema.js';
import { PlanChangeBody } from '../lifecycle/schemas.js';
import { CUSTOMER_TEXT_MAX, UpdateCustomerBody } from '../customers/schemas.js';

export const PORTAL_FLOWS = ['paymentMethodUpdate', 'payInvoices', 'subscriptionCancel', 'invoices', 'authenticatePayment'] as const;
export type PortalFlow = (typeof PORTAL_FLOWS)[number];
export const PORTAL_LOCALES = ['en', 'fr', 'de', 'es'] as const;
export type PortalLocale = (typeof PORTAL_LOCALES)[number];

/** Lifetimes of the portal's bearer links (README "Customer portal"). */
export const SESSION_LINK_MINUTES = 15;
export const SIGN_IN_LINK_MINUTES = 15;
export const EMAIL_ACTION_LINK_DAYS = 7;

const httpUrl = z
  .string()
  .max(2000, 'must be at most 2000 characters')
  .url('must be an absolute URL')
  .refine((v) => /^https?:\/\//i.test(v), 'must be an http or https URL');

export const CreatePortalSessionBody = z
  .object({
    customerId: z.number().int().positive(),
    returnUrl: httpUrl.nullish().describe('where "back to the shop" leads; default: the catalogue\'s portal.defaultReturnUrl'),
    flow: z.enum(PORTAL_FLOWS).nullish().describe('a task to open the portal on; subscriptionCancel needs subscriptionId'),
    subscriptionId: z.number().int().positive().nullish(),
    locale: z.enum(PORTAL_LOCALES).nullish().describe('the language of the portal pages (default en)'),
  })
  .superRefine((body, ctx) => {
    if (body.flow === 'subscriptionCancel' && body.subscriptionId == null) {
      ctx.addIssue({ code: 'custom', path: ['subscriptionId'], message: 'required with flow subscriptionCancel' });
    }
  });
export type CreatePortalSessionInput = z.infer<typeof CreatePortalSessionBody>;

export const PortalSessionResponse = z.object({
  id: z.number().describe("the link's id (the token itself is in url only, shown once)"),
  url: z.string().describe('a one-use link on the card-capture host, to open within 15 minutes'),
  expiresTimestamp: z.string(),
});
export type PortalSessionResponse = z.infer<typeof PortalSessionResponse>;

// What the portal's own JSON routes (on the card-capture host) accept: zod here, one source for every check.

export const PortalCancelBody = z.object({
  mode: z.enum(['periodEnd', 'now']),
  reason: z.string().trim().max(500, 'must be at most 500 characters').nullish(),
});
export type PortalCancelInput = z.infer<typeof PortalCancelBody>;

export const PortalPayBody = z.object({
  paymentMethodId: z.number().int().positive().nullish().describe('a card of the customer; default: the default card'),
  authenticatedBy: z
    .string()
    .max(200)
    .nullish()
    .describe("the bank's challenge the customer just answered (the id of a 202 answer's authentication): the charge it authorised"),
});

/** POST /portal/api/payments/{id}/authenticate: first without, then with the challenge the customer answered. */
export const PortalAuthenticatePaymentBody = PortalPayBody.pick({ authenticatedBy: true });

export const PortalDefaultCardBody = z.object({ paymentMethodId: z.number().int().positive() });

/** A name the customer may not leave empty, as long as the customer schema allows (a longer one was a 500: the API's schema refused it later). */
const portalName = z.string().trim().min(1, 'must not be empty').max(CUSTOMER_TEXT_MAX, `must be at most ${CUSTOMER_TEXT_MAX} characters`);

/** The customer schema's own limits (customers/schemas.ts): what the portal accepts, the API's update accepts too. */
export const PortalContactBody = z.object({
  firstName: portalName.nullish(),
  lastName: portalName.nullish(),
  companyName: UpdateCustomerBody.shape.companyName,
  primaryEmail: z.email('must be an e-mail address').max(255, 'must be at most 255 characters').nullish(),
  primaryPhone: UpdateCustomerBody.shape.primaryPhone,
});
export type PortalContactInput = z.infer<typeof PortalContactBody>;

/** The address service's limits (addresses/schemas.ts), after trimming. */
const trimmedText = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`).nullish();

export const PortalBillingAddressBody = z.object({
  line1: trimmedText(60),
  line2: trimmedText(60),
  city: trimmedText(50),
  postalZip: trimmedText(10),
  countryId: z.number().int().positive().nullish(),
  stateId: z.union([z.number().int().positive(), z.string().min(1).max(10)]).nullish(),
});
export type PortalBillingAddressInput = z.infer<typeof PortalBillingAddressBody>;

export const PortalEmailPreferencesBody = z.object({
  preferences: z.array(z.object({ emailType: z.enum(EMAIL_TYPES), enabled: z.boolean().nullable() })).max(EMAIL_TYPES.length),
});
export type PortalEmailPreferencesInput = z.infer<typeof PortalEmailPreferencesBody>;

export const PortalSignInBody = z.object({
  email: z.email('must be an e-mail address').max(255),
  locale: z.enum(PORTAL_LOCALES).nullish(),
});

/** A plan change asked for in the portal: the API's fields but timing (the catalogue's default: upgrades now, downgrades planChanges.downgradeTiming) and preview (its own route). */
export const PortalPlanChangeBody = PlanChangeBody.pick({ planFrequencyId: true, quantities: true });
export type PortalPlanChangeInput = z.infer<typeof PortalPlanChangeBody>;

export const PortalIdParams = z.object({ id: z.coerce.number().int().positive() });
