import type { EmailWords } from './words.js';

const ref = (reference: string | null) => (reference ? ` (${reference})` : '');

export const en: EmailWords = {
  hello: (name) => (name ? `Hello ${name},` : 'Hello,'),
  footer: (brand) => `You receive this e-mail because you are a customer of ${brand}.`,
  buttons: {
    paymentMethodUpdate: 'Update your card',
    payInvoices: 'Pay now',
    invoices: 'View your invoices',
    authenticatePayment: 'Confirm your payment',
  },
  signInButton: 'Sign in to your account',
  confirmEmailButton: 'Confirm this address',
  linkLine: (label, url) => `${label}: ${url}`,
  invoiceTable: { subtotal: 'Subtotal', discount: 'Discount', total: 'Total' },
  refundWays: {
    CreditCard: 'to your card',
    Cash: 'in cash',
    Check: 'by check',
    DirectDeposit: 'by direct deposit',
    ACH: 'by ACH transfer',
    other: 'as agreed with you',
  },
  declines: {
    insufficient_funds: 'the card has insufficient funds',
    expired_card: 'the card has expired',
    incorrect_cvc: 'the security code was not accepted',
    other: 'the card was declined',
  },
  unknownCardBrand: 'payment',
  InvoicePost: (v) => ({
    subject: `${v.brand}: invoice ${v.number} for ${v.amount}`,
    paragraphs: [`Invoice ${v.number} for ${v.amount} has been issued; it is due on ${v.dueDate}.`, 'The invoice is attached as a PDF.'],
  }),
  PaymentReceived: (v) => ({
    subject: `${v.brand}: payment of ${v.amount} received`,
    paragraphs: [`We received your payment of ${v.amount}${ref(v.reference)}. Thank you.`],
  }),
  AuthenticationRequired: (v) => ({
    subject: `${v.brand}: confirm your payment of ${v.amount}`,
    paragraphs: [
      `Your bank asks you to confirm your payment of ${v.amount} before it is made (3-D Secure).`,
      "Nothing has been charged yet. Open the link, then confirm the payment on your bank's page.",
    ],
  }),
  PaymentFailed: (v) => ({
    subject: `${v.brand}: your payment of ${v.amount} failed`,
    paragraphs: [
      `Your payment of ${v.amount} could not be collected: ${v.reason}.`,
      'Please update your payment method so your service continues.',
    ],
  }),
  Refund: (v) => ({
    subject: `${v.brand}: refund of ${v.amount}`,
    paragraphs: [
      `We have refunded ${v.amount} of your payment of ${v.paymentAmount} made on ${v.paymentDate}, ${v.way}${ref(v.reference)}.`,
    ],
  }),
  InvoiceOverdue: (v) => ({
    subject: `${v.brand}: invoice ${v.number} is overdue`,
    paragraphs: [`Invoice ${v.number} was due on ${v.dueDate}; ${v.outstanding} is still unpaid. Please pay it to keep your service.`],
  }),
  SubscriptionCancellation: (v) => ({
    subject: `${v.brand}: your subscription${v.count === 1 ? ' is' : 's are'} cancelled`,
    paragraphs: [
      v.count === 1 ? `Your subscription ${v.subscriptions} is cancelled.` : `These subscriptions are cancelled: ${v.subscriptions}.`,
    ],
  }),
  CreditCardExpiry: (v) => ({
    subject: `${v.brand}: your card ending ${v.lastFour} expires soon`,
    paragraphs: [
      `Your ${v.cardBrand} card ending ${v.lastFour} expires at the end of ${v.expiry}.`,
      'Please add a new card so your payments continue.',
    ],
  }),
  CustomerActivation: (v) => ({
    subject: `${v.brand}: your account is active`,
    paragraphs: ['Your account and subscriptions are active. Welcome!'],
  }),
  CustomerSuspend: (v) => ({
    subject: `${v.brand}: your account is suspended`,
    paragraphs: [
      `Your account has been suspended: an invoice stayed overdue for ${v.overdueDays} days.`,
      'It is restored as soon as the overdue balance is paid.',
    ],
  }),
  CreditNote: (v) => ({
    subject: `${v.brand}: credit note ${v.number} for invoice ${v.invoiceNumber}`,
    paragraphs: [
      `We have issued credit note ${v.number} of ${v.total} for invoice ${v.invoiceNumber}.`,
      ...(v.applied ? [`${v.applied} reduces what the invoice asks of you.`] : []),
      ...(v.credited ? [`${v.credited} is credited to your account and pays your next invoices.`] : []),
      ...(v.refunded ? [`${v.refunded} is refunded to your payment method.`] : []),
    ],
  }),
  UsageThresholdReached: (v) => ({
    subject: `${v.brand}: your ${v.metric} usage reached ${v.threshold}`,
    paragraphs: [
      `Your usage of ${v.metric} since ${v.periodStart} has reached ${v.quantity}, past the threshold of ${v.threshold} set on your subscription.`,
      'It is billed with your next invoice.',
    ],
  }),
  frequency: (interval, count) =>
    interval === 'Monthly' ? (count === 1 ? 'monthly' : `every ${count} months`) : count === 1 ? 'yearly' : `every ${count} years`,
  quantityChange: (product, from, to) => `${product}: ${from} → ${to}`,
  SubscriptionChange: (v) => {
    const same = v.fromPlan === v.toPlan;
    const what = v.scheduled
      ? same
        ? `Your ${v.toPlan} subscription will change on ${v.date}, as you asked.`
        : `Your subscription will change from ${v.fromPlan} to ${v.toPlan} on ${v.date}, as you asked.`
      : same
        ? `Your ${v.toPlan} subscription changed on ${v.date}.`
        : `Your subscription changed from ${v.fromPlan} to ${v.toPlan} on ${v.date}.`;
    const invoice = v.invoice
      ? v.invoice.credit
        ? `The change gives you a credit of ${v.invoice.amount} (invoice ${v.invoice.number}), used for your next invoices.`
        : `The change is billed on invoice ${v.invoice.number}: ${v.invoice.amount}.`
      : null;
    return {
      subject: v.scheduled ? `${v.brand}: your plan changes on ${v.date}` : `${v.brand}: your plan has changed`,
      paragraphs: [
        what,
        ...(v.quantities ? [`Quantities: ${v.quantities}.`] : []),
        ...(invoice ? [invoice] : []),
        `Your next charge: ${v.nextCharge.amount} on ${v.nextCharge.date}.`,
      ],
    };
  },
  PortalSignIn: (v) => ({
    subject: `${v.brand}: your sign-in link`,
    paragraphs: [
      `Here is your link to manage your account with ${v.brand}. It works once, within ${v.minutes} minutes.`,
      'If you did not ask for it, ignore this e-mail: nobody can sign in without the link.',
    ],
  }),
  EmailChangeConfirmation: (v) => ({
    subject: `${v.brand}: confirm your new e-mail address`,
    paragraphs: [
      `You asked ${v.brand} to send your e-mails to ${v.newEmail} from now on. Confirm that this address is yours: the link works once, within ${v.hours} hours.`,
      'Until you confirm, your e-mails keep going to your current address. If you did not ask for this, ignore this e-mail: nothing changes.',
    ],
  }),
};
