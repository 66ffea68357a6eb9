/**
 * The customer portal (`@renew/billing-service/portal`), for the card-capture host that serves its
 * pages and for the e-mails that link into it: links and sessions, and every portal operation, each
 * on the session's own customer and within its scope (README "Customer portal").
 */
export {
  authenticatePortalSession,
  csrfTokenFor,
  endPortalSession,
  hashPortalToken,
  newPortalToken,
  openPortalLink,
  type OpenedPortalLink,
  type PortalLinkConfirmation,
  type PortalSession,
} from './links.js';
export { createEmailActionLink } from './link-issuing.js';
export { portalTokenOwner, requestSignInLink, resendPortalLink, SIGN_IN_MAX_ACCOUNTS } from './sign-in-links.js';
export {
  cancelPortalSubscription,
  getPortalEmailPreferences,
  getPortalOverview,
  listPortalInvoices,
  portalCaptureCaller,
  portalCardCaptureToken,
  portalInvoicePdf,
  setPortalDefaultCard,
  uncancelPortalSubscription,
  updatePortalBillingAddress,
  updatePortalEmailPreferences,
  type PortalOverview,
} from './service.js';
export { listPortalCreditNotes, portalCreditNotePdf } from './credit-notes.js';
export { getPortalSubscriptionUsage, listPortalUsage, type PortalSubscriptionUsage } from './usage.js';
export { confirmPortalEmailChange, EMAIL_CHANGE_HOURS, updatePortalContact } from './contact.js';
export {
  beginPortalCardAttempt,
  finishPortalCardAttempt,
  portalCardGate,
  PORTAL_CARD_DECLINES_PER_HOUR,
  type PortalCardGate,
} from './card-attempts.js';
export { authenticatePortalPayment, payPortalInvoices, type PortalAuthenticationNeeded } from './payments.js';
export { portalCountries, type PortalBillingAddress, type PortalCountry } from './address.js';
export {
  applyPortalPlanChange,
  listPortalPlanChanges,
  previewPortalPlanChange,
  withdrawPortalPlanChange,
  type PortalChangeInvoice,
  type PortalPendingChange,
  type PortalPlanChange,
  type PortalPlanChangeOptions,
} from './plan-changes.js';
export {
  PORTAL_FLOWS,
  PORTAL_LOCALES,
  PortalAuthenticatePaymentBody,
  PortalBillingAddressBody,
  PortalCancelBody,
  PortalContactBody,
  PortalDefaultCardBody,
  PortalEmailPreferencesBody,
  PortalIdParams,
  PortalPayBody,
  PortalPlanChangeBody,
  PortalSignInBody,
  type PortalFlow,
  type PortalLocale,
} from './schemas.js';
