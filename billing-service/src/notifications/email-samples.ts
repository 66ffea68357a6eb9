import type { CustomerEmailType, InvoiceLines, NotificationEvent, NotificationType, RequestedEmail } from './email-templates.js';

/** One event of every type an e-mail is written for, with believable values: for the previews and the tests. */
export const SAMPLE_EVENTS: Record<NotificationType, NotificationEvent> = {
  InvoicePost: { type: 'InvoicePost', invoiceId: 1, invoiceNumber: 1042, amount: '65.97', currency: 'EUR', dueDate: '2026-12-26' },
  PaymentReceived: { type: 'PaymentReceived', amount: '65.97', currency: 'EUR', reference: 'CHK-77' },
  AuthenticationRequired: { type: 'AuthenticationRequired', paymentId: 1, amount: '65.97', currency: 'EUR' },
  PaymentFailed: { type: 'PaymentFailed', amount: '65.97', currency: 'EUR', declineCode: 'insufficient_funds' },
  Refund: {
    type: 'Refund',
    amount: '12.50',
    currency: 'EUR',
    paymentAmount: '65.97',
    paymentDate: '2026-11-20',
    method: 'CreditCard',
    reference: null,
  },
  InvoiceOverdue: { type: 'InvoiceOverdue', invoiceNumber: 1042, outstanding: '65.97', currency: 'EUR', dueDate: '2026-11-26' },
  SubscriptionCancellation: { type: 'SubscriptionCancellation', subscriptions: ['Pro', 'Extra storage'] },
  CreditCardExpiry: { type: 'CreditCardExpiry', cardBrand: 'Visa', lastFour: '4242', expirationMonth: 12, expirationYear: 2026 },
  CustomerActivation: { type: 'CustomerActivation' },
  CustomerSuspend: { type: 'CustomerSuspend', overdueDays: 7 },
  CreditNote: {
    type: 'CreditNote',
    number: 7,
    invoiceNumber: 1042,
    total: '11.30',
    applied: '5.00',
    credited: '6.30',
    refunded: '0.00',
    currency: 'EUR',
  },
  UsageThresholdReached: {
    type: 'UsageThresholdReached',
    metricName: 'API calls',
    threshold: '10000',
    quantity: '10214',
    periodStart: '2026-11-01',
  },
  SubscriptionChange: {
    type: 'SubscriptionChange',
    stage: 'applied',
    effectiveDate: '2026-12-10',
    from: { name: 'Basic', interval: 'Monthly', numberOfIntervals: 1 },
    to: { name: 'Pro', interval: 'Monthly', numberOfIntervals: 1 },
    quantities: [{ product: 'Seat', from: '1', to: '5' }],
    currency: 'EUR',
    invoice: { number: 1043, total: '24.71' },
    nextCharge: { date: '2027-01-01', amount: '58.80' },
  },
};

/** One e-mail of every type a customer asks for (the portal sign-in link, the confirmation of a new address). */
export const SAMPLE_REQUESTED: Record<RequestedEmail['type'], RequestedEmail> = {
  PortalSignIn: { type: 'PortalSignIn', url: 'https://pay.shop.example/portal/open?token=pl_sample&lang=en', minutes: 15 },
  EmailChangeConfirmation: {
    type: 'EmailChangeConfirmation',
    url: 'https://pay.shop.example/portal/confirm-email?token=ec_sample&lang=en',
    newEmail: 'grace.hopper@example.com',
    hours: 24,
  },
};

/** Every e-mail a customer gets, one of each type. */
export const SAMPLE_EMAILS: Record<CustomerEmailType, NotificationEvent | RequestedEmail> = { ...SAMPLE_EVENTS, ...SAMPLE_REQUESTED };

/** The lines and totals of the sample InvoicePost. */
export const SAMPLE_INVOICE: InvoiceLines = {
  currency: 'EUR',
  lines: [
    { name: 'Pro plan', quantity: '1', amount: '49.00' },
    { name: 'Extra seats', quantity: '3', amount: '15.00' },
    { name: 'Setup fee', quantity: '1', amount: '5.00' },
  ],
  subtotal: '69.00',
  totalDiscount: '13.80',
  taxes: [{ name: 'VAT', rate: '0.2', amount: '10.77' }],
  total: '65.97',
};
