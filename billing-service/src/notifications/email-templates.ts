import type { EmailType } from '../email-preferences/schemas.js';
import type { NotificationEvent } from '../outbox/notifications.js';

/** What an e-mail says: subject and plain text. Pure: no I/O. */
export interface EmailContent {
  subject: string;
  body: string;
}

export type { NotificationEvent };

export type NotificationType = NotificationEvent['type'] & EmailType;

/** How a refund's money reaches the customer, by refund method. */
const REFUND_WAYS: Record<string, string> = { CreditCard: 'to your card', Cash: 'in cash', Check: 'by check', DirectDeposit: 'by direct deposit', ACH: 'by ACH transfer' };

export function renderEmail(accountName: string, customerName: string, event: NotificationEvent): EmailContent {
  const hello = `Hello ${customerName},`;
  const sign = `\n\n— ${accountName}`;
  switch (event.type) {
    case 'InvoicePost':
      return {
        subject: `${accountName}: invoice ${event.invoiceNumber} for ${event.amount} ${event.currency}`,
        body: `${hello}\n\nInvoice ${event.invoiceNumber} for ${event.amount} ${event.currency} has been issued; it is due on ${event.dueDate}. The invoice is attached as a PDF.${sign}`,
      };
    case 'PaymentReceived':
      return {
        subject: `${accountName}: payment of ${event.amount} ${event.currency} received`,
        body: `${hello}\n\nWe received your payment of ${event.amount} ${event.currency}${event.reference ? ` (${event.reference})` : ''}. Thank you.${sign}`,
      };
    case 'PaymentFailed':
      return {
        subject: `${accountName}: your payment of ${event.amount} ${event.currency} failed`,
        body: `${hello}\n\nYour payment of ${event.amount} ${event.currency} could not be collected: ${event.reason}. Please update your payment method.${sign}`,
      };
    case 'Refund': {
      const how = REFUND_WAYS[event.method] ?? `by ${event.method}`;
      return {
        subject: `${accountName}: refund of ${event.amount} ${event.currency}`,
        body: `${hello}\n\nWe have refunded ${event.amount} ${event.currency} of your payment of ${event.paymentAmount} ${event.currency} made on ${event.paymentDate}, ${how}${event.reference ? ` (${event.reference})` : ''}.${sign}`,
      };
    }
    case 'InvoiceOverdue':
      return {
        subject: `${accountName}: invoice ${event.invoiceNumber} is overdue`,
        body: `${hello}\n\nInvoice ${event.invoiceNumber} was due on ${event.dueDate}; ${event.outstanding} ${event.currency} is still unpaid. Please pay it to keep your service.${sign}`,
      };
    case 'SubscriptionCancellation':
      return {
        subject: `${accountName}: your subscription${event.subscriptions.length === 1 ? ' is' : 's are'} cancelled`,
        body: `${hello}\n\nThese subscriptions are cancelled: ${event.subscriptions.join(', ')}.${sign}`,
      };
    case 'CreditCardExpiry':
      return {
        subject: `${accountName}: your card ending ${event.lastFour} expires soon`,
        body: `${hello}\n\nYour ${event.cardType} card ending ${event.lastFour} expires at the end of ${event.expiry}. Please add a new card so your payments continue.${sign}`,
      };
    case 'CustomerActivation':
      return { subject: `${accountName}: your account is active`, body: `${hello}\n\nYour account and subscriptions are active. Welcome!${sign}` };
    case 'CustomerSuspend':
      return {
        subject: `${accountName}: your account is suspended`,
        body: `${hello}\n\nYour account has been suspended: ${event.reason}. It is restored as soon as the overdue balance is paid.${sign}`,
      };
  }
}
