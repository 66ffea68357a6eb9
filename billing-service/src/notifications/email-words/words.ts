import type { EmailActionFlow } from '../email-action-links.js';

/** A message's subject and its paragraphs, in one language. */
export interface Message {
  subject: string;
  paragraphs: string[];
}

/**
 * Every word an e-mail to a customer holds, in one language. Values come in already formatted
 * for the language (amounts, dates, lists: see email-formats.ts), so a template only places them.
 */
export interface EmailWords {
  hello(name: string | null): string;
  /** Why the customer gets this e-mail (the footer). */
  footer(brand: string): string;
  /** The button of an e-mail that asks the customer to act, by the task it opens. */
  buttons: Record<EmailActionFlow, string>;
  /** The button of the portal sign-in e-mail. */
  signInButton: string;
  confirmEmailButton: string;
  /** The button's link in the plain-text e-mail. */
  linkLine(label: string, url: string): string;
  invoiceTable: { subtotal: string; discount: string; total: string };
  /** How a refund reaches the customer, by refund method. */
  refundWays: Record<'CreditCard' | 'Cash' | 'Check' | 'DirectDeposit' | 'ACH', string> & { other: string };
  /** Why a card payment was refused, by the gateway's decline code. */
  declines: { insufficient_funds: string; expired_card: string; incorrect_cvc: string; other: string };
  /** A card whose brand is not known. */
  unknownCardBrand: string;
  InvoicePost(v: { brand: string; number: number; amount: string; dueDate: string }): Message;
  PaymentReceived(v: { brand: string; amount: string; reference: string | null }): Message;
  PaymentFailed(v: { brand: string; amount: string; reason: string }): Message;
  AuthenticationRequired(v: { brand: string; amount: string }): Message;
  Refund(v: { brand: string; amount: string; paymentAmount: string; paymentDate: string; way: string; reference: string | null }): Message;
  InvoiceOverdue(v: { brand: string; number: number; outstanding: string; dueDate: string }): Message;
  SubscriptionCancellation(v: { brand: string; subscriptions: string; count: number }): Message;
  CreditCardExpiry(v: { brand: string; cardBrand: string; lastFour: string; expiry: string }): Message;
  CustomerActivation(v: { brand: string }): Message;
  CustomerSuspend(v: { brand: string; overdueDays: number }): Message;
  /** A credit note on invoice `invoiceNumber`; `applied`, `credited`, `refunded` null when nothing went that way. */
  CreditNote(v: {
    brand: string;
    number: number;
    invoiceNumber: number;
    total: string;
    applied: string | null;
    credited: string | null;
    refunded: string | null;
  }): Message;
  /** A metric's usage (its name) reached `threshold` this period (since `periodStart`, formatted): `quantity` so far. */
  UsageThresholdReached(v: { brand: string; metric: string; threshold: string; quantity: string; periodStart: string }): Message;
  /** How often a plan renews, as a change e-mail names the plan: "Pro (monthly)". */
  frequency(interval: 'Monthly' | 'Yearly', count: number): string;
  /** One product whose quantity a plan change changes. */
  quantityChange(product: string, from: string, to: string): string;
  /**
   * A plan change, applied or scheduled (`scheduled`) on `date`. `fromPlan` equals `toPlan` when only quantities
   * change; `quantities`: the quantity changes, listed (null: none); `invoice`: the change's invoice (`credit`: it
   * gives back `amount`); `nextCharge`: the next renewal.
   */
  SubscriptionChange(v: {
    brand: string;
    scheduled: boolean;
    fromPlan: string;
    toPlan: string;
    date: string;
    quantities: string | null;
    invoice: { number: number; amount: string; credit: boolean } | null;
    nextCharge: { date: string; amount: string };
  }): Message;
  /** The portal sign-in link the customer asked for on the sign-in page (one use, `minutes` to open). */
  PortalSignIn(v: { brand: string; minutes: number }): Message;
  /** Sent to a new address the customer gave in the portal: its button applies the change (one use, `hours` to open). */
  EmailChangeConfirmation(v: { brand: string; newEmail: string; hours: number }): Message;
}
