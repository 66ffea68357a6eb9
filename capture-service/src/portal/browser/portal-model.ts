/** What the portal page's script reads from /portal/api, and what its sections share: the `<renew-portal>` element as `Portal`. */
import type { PortalBillingAddress, PortalCountry, PortalSubscriptionUsage } from '@renew/billing-service/portal';
import type { PortalLanguage, PortalText } from './portal-text.js';

export type View = 'overview' | 'card' | 'pay' | 'invoices' | 'details' | `cancel-${number}` | `change-${number}` | `seats-${number}`;
export type ErrorBody = { Errors?: Array<{ Key: string; Value: string; Code?: string }> };

export interface Session {
  customerId: number;
  scope: 'full' | 'cardAndPay';
  flow: string | null;
  subscriptionId: number | null;
  locale: string | null;
  returnUrl: string | null;
  csrfToken: string;
}
export interface Card {
  id: number;
  brand: string | null;
  lastFour: string | null;
  expirationMonth: number | null;
  expirationYear: number | null;
  expiringSoon: boolean;
}
export interface Subscription {
  id: number;
  name: string;
  planName: string;
  status: string;
  nextChargeDate: string | null;
  nextChargeAmount: number | null;
  currency: string;
  cancellation: { mode: string; effectiveDate: string | null; reason: string | null } | null;
}
export interface Overview {
  customer: {
    firstName: string | null;
    lastName: string | null;
    companyName: string | null;
    primaryEmail: string | null;
    /** A new address waiting for its confirmation link to be opened. */
    pendingEmail: string | null;
    primaryPhone: string | null;
    status: string;
    currency: string;
  };
  balance: number;
  /** What the card form offers to pay with the new card ("pay now", checked by default) when an invoice is due; 0: nothing is. */
  amountDue: number;
  /** The billing address on file (the checkout's): the details form starts from it. */
  billingAddress: BillingAddress | null;
  /** A renewal's payment waiting for the customer's bank (3-D Secure): the pay view offers to confirm it. */
  awaitingPayment: { id: number; amount: number; currency: string; cardLastFour: string | null } | null;
  subscriptions: Subscription[];
  defaultCard: Card | null;
  scope: 'full' | 'cardAndPay';
  cancelMode: 'periodEnd' | 'now' | 'either' | 'none';
  returnUrl: string | null;
}
/** The billing address on file, and a country the address form offers (GET /portal/api/countries): the server's own types. */
export type BillingAddress = PortalBillingAddress;
export type Country = PortalCountry;
export interface Invoice {
  id: number;
  invoiceNumber: number;
  effectiveTimestamp: string;
  status: string;
  invoiceAmount: number;
  outstandingBalance: number;
  currency: string;
}
/** A credit note on one of the customer's invoices (GET /portal/api/credit-notes). */
export interface CreditNote {
  id: number;
  number: number;
  invoiceNumber: number;
  createdTimestamp: string;
  total: number;
  currency: string;
}
/** A metered subscription's usage this period (issue 41): GET /portal/api/usage, the API's own answer. */
export type SubscriptionUsage = PortalSubscriptionUsage;
export type Interval = 'Monthly' | 'Yearly';
/** What one Active subscription may change to (GET /portal/api/plan-changes). */
export interface ChangeOptions {
  subscriptionId: number;
  name: string;
  planName: string;
  interval: Interval;
  numberOfIntervals: number;
  currency: string;
  amount: number;
  targets: Array<{ planFrequencyId: number; planName: string; interval: Interval; numberOfIntervals: number; amount: number }>;
  quantities: Array<{ productCode: string; name: string; quantity: number; minQuantity: number; maxQuantity: number }>;
  pendingChange: PendingChange | null;
}
export interface PendingChange {
  planName: string;
  interval: Interval;
  numberOfIntervals: number;
  quantities: Record<string, number>;
  effectiveDate: string;
}
export interface ChangeLine {
  chargeType: 'Recurring' | 'SetupFee' | 'Credit' | 'Purchase' | 'Usage';
  name: string;
  quantity: number;
  startServiceDate: string;
  endServiceDate: string;
  amount: number;
}
/** A change's preview, or the change made: the invoice now (null: nothing now, it waits for the period end), the next renewal. */
export interface PlanChange {
  subscriptionId: number;
  invoice: {
    lines: ChangeLine[];
    totalDiscount: number;
    taxes: Array<{ name: string; amount: number }>;
    total: number;
    currency: string;
  } | null;
  nextRenewal: { date: string; amount: number };
  pendingChange: PendingChange | null;
}
export type ChangeRequest = { planFrequencyId: number } | { quantities: Record<string, number> };
export interface Preference {
  emailType: string;
  enabled: boolean | null;
}

/** Pay with the default card, or a new one typed in the card fields. */
export type PayWith = 'default' | 'new';

/**
 * The `<renew-portal>` element as its sections see it: its state (each write re-renders), its words
 * and language, and the calls every section makes. Sections are functions of it (portal-*.ts).
 */
export interface Portal {
  view: View;
  session: Session | undefined;
  overview: Overview | undefined;
  invoices: Invoice[] | undefined;
  creditNotes: CreditNote[] | undefined;
  /** The metered subscriptions' usage so far, loaded with the overview. */
  usage: SubscriptionUsage[] | undefined;
  preferences: Preference[] | undefined;
  /** The address form's countries, loaded with the details view. */
  countries: Country[] | undefined;
  /** The country chosen in the address form: it decides which subdivisions are offered. */
  addressCountry: number | null;
  /** Pay what is due with the card being saved (the card form's box, checked by default). */
  payWithNewCard: boolean;
  notice: string;
  problem: string;
  busy: boolean;
  ended: boolean;
  payWith: PayWith;
  /** The bank's 3-D Secure challenge of a payment, while it is shown (portal-pay.ts). */
  challenge: { url: string; cancel(): void } | undefined;
  changeOptions: ChangeOptions[] | undefined;
  changePreview: PlanChange | undefined;
  /** What the preview shown was asked for: confirming sends exactly it. */
  changeRequest: ChangeRequest | undefined;
  readonly language: PortalLanguage;
  readonly text: PortalText;
  readonly updateComplete: Promise<boolean>;
  readonly renderRoot: HTMLElement | DocumentFragment;
  api<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown, headers?: Record<string, string>): Promise<T>;
  fail(error: unknown): void;
  show(view: View): Promise<void>;
  focusNotice(): Promise<void>;
}

/** The overview every section but the first load shows; the shell renders sections only once it is loaded. */
export function loadedOverview(p: Portal): Overview {
  if (!p.overview) throw new Error('the portal overview is not loaded yet');
  return p.overview;
}

/** The session the page started with; every action comes after it. */
export function loadedSession(p: Portal): Session {
  if (!p.session) throw new Error('the portal session is not loaded yet');
  return p.session;
}

/** A page element the section's own template renders: missing, the template and this script disagree. */
export function requiredElement<E extends Element>(root: ParentNode, selector: string): E {
  const element = root.querySelector<E>(selector);
  if (!element) throw new Error(`the portal page has no ${selector}`);
  return element;
}
