// The customer page's data: what the API answers, the lifecycle actions a status allows, and the refund form's rules.
import type { MessageKey } from '../messages-en.js';
import type { Loaded } from '../page.js';

export interface Customer {
  id: number;
  firstName: string | null;
  lastName: string | null;
  companyName: string | null;
  primaryEmail: string | null;
  primaryPhone: string | null;
  reference: string | null;
  status: string;
  customerAccountStatus: string;
  currency: string;
  language?: string;
  createdTimestamp: string;
}
export interface Overview {
  arBalance: number;
  unallocatedPayments: number;
  lifetimeValue: number;
  monthlyRecurringRevenue: number;
  nextBillingDate: string | null;
  daysUntilSuspension: number | null;
  currency: string;
  status: string;
  customerAccountStatus: string;
}
export interface Subscription {
  id: number;
  planName: string | null;
  status: string;
  monthlyRecurringRevenue: number;
  nextPeriodStartDate: string | null;
  currency?: string;
}
export interface Invoice {
  id: number;
  invoiceNumber: number;
  status: string;
  effectiveTimestamp: string;
  dueTimestamp: string;
  invoiceAmount: number;
  outstandingBalance: number;
  currency: string;
}
/** A credit note (issue 40), as GET /v1/customers/{id}/creditNotes answers it (the fields the page shows). */
export interface CreditNote {
  id: number;
  number: number;
  invoiceNumber: number;
  reason: string;
  total: number;
  currency: string;
  createdTimestamp: string;
}
export interface Payment {
  id: number;
  effectiveTimestamp: string;
  amount: number;
  currency: string;
  status: string;
  paymentMethod: string;
  declineCode: string | null;
  refundedAmount: number;
  refundableAmount: number;
}
/** A payment's dispute (chargeback), as GET /v1/customers/{id}/disputes answers it. */
export interface Dispute {
  id: number;
  paymentId: number;
  amount: number;
  currency: string;
  reason: string;
  status: string;
  evidenceDueTimestamp: string | null;
  fee: number | null;
}
/** A one-time purchase (issue 40). */
export interface Purchase {
  id: number;
  status: string;
  name: string;
  quantity: number;
  amount: number;
  currency: string;
  invoiceId: number | null;
  createdTimestamp: string;
}
export interface Note {
  id: number;
  note: string;
  userWhoCreatedNote: string | null;
  createdTimestamp: string;
}
export interface AuditEntry {
  id: number | string;
  at: string;
  actor: string;
  source: string;
  entityType: string;
  entityId: number | string;
  action: string;
  changes: unknown;
}
export interface WebhookEvent {
  id: string;
  type: string;
  createdAt: string;
  deliveries: Array<{
    endpointId: number;
    status: string;
    attempts: number;
    lastResponseStatus: number | null;
    lastAttemptAt: string | null;
  }>;
}
export interface InvoicePreview {
  draftCharges: Array<{ name: string; amount: number; startServiceDate: string; endServiceDate: string }>;
  subtotal: number;
  totalDiscount: number;
  totalTaxes: number;
  total: number;
  currency: string;
}

export type Action = 'activate' | 'hold' | 'unhold' | 'cancel' | 'uncancel';
export const ACTION_LABEL: Record<Action, MessageKey> = {
  activate: 'actionActivate',
  hold: 'actionHold',
  unhold: 'actionUnhold',
  cancel: 'actionCancel',
  uncancel: 'actionUncancel',
};
/** The lifecycle of the spec ("States and transitions"): which actions each status allows, and where each leads. */
export const ACTIONS_BY_STATUS: Record<string, Action[]> = {
  Draft: ['activate', 'cancel'],
  Active: ['hold', 'cancel'],
  Hold: ['unhold', 'cancel'],
  Suspended: ['cancel'],
  Cancelled: ['uncancel'],
};
export const TARGET_STATUS: Record<Action, string> = {
  activate: 'Active',
  hold: 'Hold',
  unhold: 'Active',
  cancel: 'Cancelled',
  uncancel: 'Active',
};
export const SERVICE_START_OPTIONS = [
  'NoChargesForMissedPeriods',
  'ChargeForLastMissedPeriods',
  'ChargeForAllMissedPeriods',
  'ChargeForCurrentFullPeriod',
];
export const CANCELLATION_OPTIONS: Array<{ value: string; label: MessageKey }> = [
  { value: 'None', label: 'optionNone' },
  { value: 'Unearned', label: 'optionUnearned' },
  { value: 'Full', label: 'optionFull' },
];

export interface PendingAction {
  action: Action;
  option: string;
  preview: Loaded<InvoicePreview | null> | undefined;
  busy: boolean;
  error: string;
}
export interface PendingRefund {
  payment: Payment;
  idempotencyKey: string;
  busy: boolean;
  error: string;
}

/** A refund amount as typed ("5", "5.00", "5,00") → the API's decimal text, or undefined. */
export function refundAmountText(typed: string): string | undefined {
  const text = typed.trim().replace(',', '.');
  return /^\d{1,15}(\.\d{1,4})?$/.test(text) && Number(text) > 0 ? text : undefined;
}
