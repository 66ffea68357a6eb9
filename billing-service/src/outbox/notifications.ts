import type { Queryable } from '../db/database.js';

/*
 * The e-mail notifications the domains send, as a port: a lifecycle move, a billing run or a payment
 * enqueues an event in its own transaction, and the wiring's Notifier (notifications/notifier.ts)
 * puts what its e-mail says in the e-mail outbox (the worker writes the e-mail when it sends). The
 * domains see only this.
 */

/** What the notifier needs of the customer an e-mail goes to. */
export interface NotifiedCustomer {
  id: number;
  accountId: number;
  firstName: string | null;
  lastName: string | null;
  companyName: string | null;
  primaryEmail: string | null;
  /** en, fr, de, es; null: the catalogue's emails.defaultLanguage. */
  language: string | null;
}

/** An event that may send the customer an e-mail (its type is the spec's e-mail type). */
export type NotificationEvent =
  | { type: 'InvoicePost'; invoiceId: number; invoiceNumber: number; amount: string; currency: string; dueDate: string }
  | { type: 'PaymentReceived'; amount: string; currency: string; reference: string | null }
  | { type: 'PaymentFailed'; amount: string; currency: string; declineCode: string | null }
  /** An off-session charge the bank holds until the customer authenticates it (3-D Secure): the button opens the portal's authenticatePayment flow. */
  | { type: 'AuthenticationRequired'; paymentId: number; amount: string; currency: string }
  | {
      type: 'Refund';
      amount: string;
      currency: string;
      paymentAmount: string;
      paymentDate: string;
      method: string;
      reference: string | null;
    }
  | { type: 'InvoiceOverdue'; invoiceNumber: number; outstanding: string; currency: string; dueDate: string }
  | { type: 'SubscriptionCancellation'; subscriptions: string[] }
  | { type: 'CreditCardExpiry'; cardBrand: string | null; lastFour: string; expirationMonth: number; expirationYear: number }
  | { type: 'CustomerActivation' }
  | { type: 'CustomerSuspend'; overdueDays: number }
  /** A credit note (issue 40): its total, and where it went: the invoice's balance, the customer's credit, refunds. */
  | {
      type: 'CreditNote';
      number: number;
      invoiceNumber: number;
      total: string;
      applied: string;
      credited: string;
      refunded: string;
      currency: string;
    }
  /** A metered subscription's usage of a metric reached a threshold set on it (issue 41): quantities as decimals. */
  | { type: 'UsageThresholdReached'; metricName: string; threshold: string; quantity: string; periodStart: string }
  | SubscriptionChangeEvent;

/** A plan as a change e-mail names it: the plan's name and how often it renews. */
export interface ChangedPlan {
  name: string;
  interval: 'Monthly' | 'Yearly';
  numberOfIntervals: number;
}

/**
 * A plan change (issue 28): applied (now, or by the renewal that applies a scheduled one) or scheduled for
 * `effectiveDate`. Amounts are decimal strings in the currency's minor unit.
 */
export interface SubscriptionChangeEvent {
  type: 'SubscriptionChange';
  stage: 'applied' | 'scheduled';
  /** The day the change applies (applied: the day it did). */
  effectiveDate: string;
  from: ChangedPlan;
  to: ChangedPlan;
  /** The products the subscription keeps whose quantity changes (product name, old and new quantity). */
  quantities: Array<{ product: string; from: string; to: string }>;
  currency: string;
  /** The invoice the change posted (a change now); its total is negative when the change gives back more than it charges. */
  invoice: { number: number; total: string } | null;
  /** The next renewal after the change: its date and the total it will charge. */
  nextCharge: { date: string; amount: string };
}

/**
 * An e-mail the customer asked for (not one of the spec's types, so no preference turns it off): a portal
 * sign-in link, opening once within `minutes`; the confirmation of a new e-mail address.
 */
export type RequestedEmail =
  | { type: 'PortalSignIn'; url: string; minutes: number }
  /** A new address the customer gave in the portal, proven by the link sent to it (so it goes to newEmail, not the address on file). */
  | { type: 'EmailChangeConfirmation'; url: string; newEmail: string; hours: number };

/** A notice to the merchant (the catalogue's `account.email`), its text written by the domain that sends it. */
export interface AccountNotice {
  accountId: number;
  emailType: string;
  subject: string;
  body: string;
}

export interface CustomerNotifier {
  /** False when e-mail is off (no SMTP server configured): callers may skip preparing events. */
  readonly enabled: boolean;
  /** Puts the event's e-mail in the outbox, in the caller's transaction (or nothing, by the customer's preferences). */
  enqueue(trx: Queryable, customer: NotifiedCustomer, event: NotificationEvent): Promise<void>;
  /** Several e-mails, each as enqueue decides, in one write. */
  enqueueMany(trx: Queryable, emails: Array<{ customer: NotifiedCustomer; event: NotificationEvent }>): Promise<void>;
  /**
   * An e-mail the customer asked for (a portal sign-in link), sent whatever the preferences say, written like the
   * others: in the customer's language, else `fallbackLanguage` (the page it was asked from), else the account's default.
   */
  enqueueRequested(trx: Queryable, customer: NotifiedCustomer, email: RequestedEmail, fallbackLanguage?: string | null): Promise<void>;
  /** A notice to the merchant's operators (a dispute opened): nothing when e-mail is off or the account has no address. */
  enqueueAccountNotice(trx: Queryable, notice: AccountNotice): Promise<void>;
}
