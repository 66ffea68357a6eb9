import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/**
 * Table types, camel-cased by Kysely's CamelCasePlugin (the SQL itself is snake_case).
 * `numeric` columns arrive as strings and become decimal.js values in repositories.
 */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Numeric = ColumnType<string, string | number, string | number>;

export interface AccountsTable {
  id: Generated<number>;
  name: string;
  privateKeyHash: string;
  publicKeyHash: string;
  rateLimitPerMinute: Generated<number>;
  rateLimitPerDay: Generated<number>;
  nextInvoiceNumber: Generated<number>;
  /** The next credit note's number (migration 0048). */
  nextCreditNoteNumber: Generated<number>;
  createdAt: Generated<Date>;
  privateKeyRotatedAt: Generated<Date | null>;
  publicKeyRotatedAt: Generated<Date | null>;
}

export interface CustomersTable {
  id: Generated<number>;
  accountId: number;
  title: string | null;
  firstName: string | null;
  middleName: string | null;
  lastName: string | null;
  companyName: string | null;
  suffix: string | null;
  primaryEmail: string | null;
  primaryPhone: string | null;
  secondaryEmail: string | null;
  secondaryPhone: string | null;
  reference: string | null;
  status: Generated<string>;
  customerAccountStatus: Generated<string>;
  currency: string;
  crmId: string | null;
  crmAccountType: string | null;
  crmSynchStatus: ColumnType<string, string | undefined, string>;
  erpId: string | null;
  erpSynchStatus: ColumnType<string, string | undefined, string>;
  erpCustomerType: string | null;
  portalUserName: string | null;
  parentId: number | null;
  accountingLatchType: string | null;
  accountingId: number | null;
  accountingSyncToken: number | null;
  marketingId: number | null;
  /** en, fr, de or es: the language of its e-mails; null: the catalogue's emails.defaultLanguage. */
  language: ColumnType<string | null, string | null | undefined, string | null>;
  lifetimeValue: ColumnType<string, string | undefined, string>;
  createdAt: Generated<Date>;
  modifiedAt: Timestamp;
  statusAt: Timestamp;
  accountStatusAt: Timestamp;
}

export interface CustomerReferencesTable {
  customerId: number;
  reference1: string | null;
  reference2: string | null;
  reference3: string | null;
}

export interface CustomerSalesTrackingCodesTable {
  customerId: number;
  position: number;
  type: string;
  code: string;
  name: string | null;
}

export interface CustomerAcquisitionsTable {
  customerId: number;
  adContent: string | null;
  campaign: string | null;
  keyword: string | null;
  landingPage: string | null;
  medium: string | null;
  source: string | null;
}

export interface CustomerBillingSettingsTable {
  customerId: number;
  term: string | null;
  interval: string | null;
  invoiceDay: number | null;
  autoCollect: boolean | null;
  rechargeType: string | null;
  rechargeThresholdAmount: Numeric | null;
  rechargeTargetAmount: Numeric | null;
  statusOnThreshold: boolean | null;
  autoPostDraftInvoice: boolean | null;
  customerGracePeriod: number | null;
  gracePeriodExtension: number | null;
  customerAutoCancel: number | null;
  defaultCancelOption: string | null;
  standingPoNumber: string | null;
  acquisitionCost: Numeric | null;
  showZeroDollarCharges: boolean | null;
  taxExempt: Generated<boolean>;
  taxExemptCode: string | null;
  useCustomerBillingAddress: boolean | null;
  taxUsageType: string | null;
  vatIdentificationNumber: number | null;
  customerServiceStartOption: string | null;
  rollUpTaxes: boolean | null;
  rollUpDiscounts: boolean | null;
  postReadyChargesOnRenew: boolean | null;
  /** Invoice-presentation flags (PDF roll-ups, tracked item display, statements): stored as given. */
  presentation: ColumnType<Record<string, unknown>, string | undefined, string>;
  customerBillingStatementSetting: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
}

export interface CustomerBillingPeriodConfigurationsTable {
  customerId: number;
  interval: string;
  type: string;
  rule: string;
  day: number | null;
  month: number | null;
}

export interface CustomerAddressPreferencesTable {
  customerId: number;
  contactName: string | null;
  shippingInstructions: string | null;
  useBillingAddressAsShippingAddress: Generated<boolean>;
}

export interface AddressesTable {
  id: Generated<number>;
  accountId: number;
  customerId: number;
  addressType: string;
  companyName: string | null;
  line1: string | null;
  line2: string | null;
  countryId: number | null;
  stateId: number | null;
  city: string | null;
  postalZip: string | null;
  valid: Generated<boolean>;
}

export interface CustomerNotesTable {
  id: Generated<number>;
  accountId: number;
  customerId: number;
  note: string;
  userWhoCreatedNote: string | null;
  createdAt: Generated<Date>;
}

export interface AuditLogTable {
  id: Generated<number>;
  accountId: number;
  actor: string;
  source: string;
  entityType: string;
  entityId: number;
  action: string;
  changes: ColumnType<unknown, string, string>;
  createdAt: Generated<Date>;
}

export interface LedgerEntriesTable {
  id: Generated<number>;
  accountId: number;
  customerId: number;
  /** `void`, `write_off` (migration 0046): the entry that closed its invoice's entry (invoiceId), allocated to it in full. */
  entryType: 'invoice' | 'payment' | 'credit' | 'refund' | 'opening_balance' | 'dispute' | 'dispute_reversal' | 'void' | 'write_off';
  amount: Numeric;
  openAmount: Numeric;
  dueAt: Date | null;
  effectiveAt: Timestamp;
  invoiceId: number | null;
  description: string | null;
  createdAt: Generated<Date>;
  /** When the open amount last rose from zero, on the account's clock (an invoice: posted, or reopened by a refund). */
  openedAt: ColumnType<Date, Date | string | undefined, Date | string>;
  /** When the open amount last fell to zero, on the account's clock (null: never). */
  settledAt: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface RateLimitCountersTable {
  bucket: string;
  windowStart: Date;
  hits: number;
}

export interface CustomerEmailPreferencesTable {
  customerId: number;
  emailType: string;
  enabled: boolean | null;
}

export interface PaymentMethodsTable {
  id: Generated<number>;
  accountId: number;
  customerId: number;
  methodType: Generated<string>;
  gatewayToken: string;
  cardBrand: string | null;
  lastFour: string | null;
  expirationMonth: number | null;
  expirationYear: number | null;
  firstName: string | null;
  lastName: string | null;
  address1: string | null;
  address2: string | null;
  countryId: number | null;
  stateId: number | null;
  city: string | null;
  postalZip: string | null;
  email: string | null;
  gatewayCustomerId: string | null;
  isDefault: Generated<boolean>;
  removedAt: Date | null;
  createdAt: Generated<Date>;
  modifiedAt: Timestamp;
  expiryNotifiedAt: Generated<Date | null>;
}

export interface AmountPerCurrency {
  currency: string;
  amount: string;
}

export interface PlansTable {
  id: number;
  code: string;
  name: string;
  reference: string | null;
  description: string | null;
  longDescription: string | null;
  status: string;
  products: ColumnType<
    Array<{ code: string; name: string; description?: string; quantity: number; minQuantity?: number; maxQuantity?: number }>,
    string,
    string
  >;
  modifiedAt: Timestamp;
}

export interface PlanFrequenciesTable {
  id: number;
  planId: number;
  interval: 'Monthly' | 'Yearly';
  numberOfIntervals: number;
  isProrated: boolean;
  prorationGranularity: string;
  prices: ColumnType<Array<{ product: string; charges: AmountPerCurrency[]; setupFees: AmountPerCurrency[] }>, string, string>;
  charges: ColumnType<AmountPerCurrency[], string, string>;
  setupFees: ColumnType<AmountPerCurrency[], string, string>;
  status: string;
}

export interface SubscriptionsTable {
  id: Generated<number>;
  accountId: number;
  customerId: number;
  planFrequencyId: number;
  code: string | null;
  name: string;
  description: string | null;
  reference: string | null;
  status: Generated<string>;
  currency: string;
  contractStartAt: Date | null;
  contractEndAt: Date | null;
  expiresAt: Date | null;
  activatedAt: Date | null;
  suspendedAt: Date | null;
  cancelledAt: Date | null;
  cancellationOption: string | null;
  currentPeriodStart: ColumnType<string | null, string | null | undefined, string | null>;
  nextPeriodStart: ColumnType<string | null, string | null | undefined, string | null>;
  /** The day periods fall on once it moved from the activation day (ChargeForCurrentFullPeriod); null: the activation day. */
  anchorDay: ColumnType<number | null, number | null | undefined, number | null>;
  /** Usage billed up to this day (exclusive) outside renewals: a cancellation's final usage (migration 0050). */
  usageBilledUntil: ColumnType<string | null, string | null | undefined, string | null>;
  invoicesPosted: Generated<number>;
  /** The spec's `customFields`: names to scalar values, stored as given; null when none. */
  customFields: ColumnType<Record<string, string | number | boolean | null> | null, string | null | undefined, string | null>;
  createdAt: Generated<Date>;
  modifiedAt: Timestamp;
}

export interface SubscriptionProductsTable {
  id: Generated<number>;
  subscriptionId: number;
  position: number;
  productCode: string;
  name: string;
  description: string | null;
  quantity: Numeric;
  catalogPrice: Numeric;
  priceOverride: Numeric | null;
  setupFee: Numeric;
  included: Generated<boolean>;
  discountKind: string | null;
  discountValue: Numeric | null;
}

/** A plan change scheduled for the end of the period (migration 0030; written only by src/subscriptions). */
export interface PendingPlanChangesTable {
  subscriptionId: number;
  planFrequencyId: number;
  /** Product code → quantity after the change (every product of the plan frequency). */
  quantities: ColumnType<Record<string, string>, string, string>;
  effectiveDate: ColumnType<string, string, string>;
  createdAt: Date;
}

export interface SubscriptionCouponsTable {
  subscriptionId: number;
  couponCode: string;
  periodsUsed: Generated<number>;
  /** The first service day of the period its last use discounted (null: never used). Migration 0030. */
  lastUsedOn: ColumnType<string | null, string | null | undefined, string | null>;
  /** The end (exclusive) of that period (null: never used, or used before migration 0030). */
  lastUsedUntil: ColumnType<string | null, string | null | undefined, string | null>;
  /** Where the coupon is in the subscription's list (0 first): coupons apply in this order. */
  position: number;
}

export interface InvoicesTable {
  id: Generated<number>;
  accountId: number;
  customerId: number;
  invoiceNumber: number;
  /** `WrittenOff` (migration 0046): its open balance written off, the invoice closed. */
  status: 'Draft' | 'Posted' | 'Void' | 'WrittenOff';
  currency: string;
  terms: string;
  poNumber: string | null;
  effectiveAt: Timestamp;
  postedAt: Date | null;
  dueAt: Timestamp;
  subtotal: Numeric;
  totalDiscount: Numeric;
  totalTaxes: Numeric;
  total: Numeric;
  createdAt: Generated<Date>;
  overdueNotifiedAt: Generated<Date | null>;
}

export interface InvoiceChargesTable {
  id: Generated<number>;
  invoiceId: number;
  subscriptionId: number | null;
  position: number;
  kind: string;
  productCode: string;
  name: string;
  description: string | null;
  quantity: Numeric;
  unitPrice: Numeric;
  proratedUnitPrice: Numeric;
  amount: Numeric;
  taxableAmount: Numeric;
  startServiceDate: ColumnType<string, string, string>;
  endServiceDate: ColumnType<string, string, string>;
  discounts: ColumnType<Array<{ name: string; amount: string }>, string, string>;
  /** What credits reversed of this line so far (a recurring line: cancellations, unhold with ChargeForCurrentFullPeriod). */
  creditedAmount: ColumnType<string, string | number | undefined, string | number>;
  /** The day an unhold with ChargeForCurrentFullPeriod replaced this line's period (null: never). */
  replacedOn: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A usage event (migration 0049, partitioned by month; written only by src/usage). */
export interface UsageEventsTable {
  accountId: number;
  customerId: number;
  subscriptionId: number;
  metricCode: string;
  transactionId: string;
  occurredAt: Date;
  /** The numeric property a sum, max or latest metric reads; null for the others. */
  value: Numeric | null;
  /** The property value a uniqueCount metric counts; null for the others. */
  dimension: string | null;
  properties: ColumnType<Record<string, unknown>, string, string>;
  receivedAt: Date;
}

export interface UsageEventIdsTable {
  accountId: number;
  transactionId: string;
}

/** The rollup of usage events per subscription, metric and UTC day (migration 0049). */
export interface UsageDailyTable {
  accountId: number;
  subscriptionId: number;
  metricCode: string;
  day: ColumnType<string, string, string>;
  count: ColumnType<string, string | number, string | number>;
  sum: Numeric;
  max: Numeric | null;
  latestValue: Numeric | null;
  latestAt: Date | null;
}

export interface UsageUniqueValuesTable {
  subscriptionId: number;
  metricCode: string;
  day: ColumnType<string, string, string>;
  dimension: string;
}

/** A quantity of a metric a subscription wants to hear of (migration 0051; written only by src/usage). */
export interface UsageThresholdsTable {
  subscriptionId: number;
  metricCode: string;
  quantity: Numeric;
}

/** A threshold reached in a usage period (migration 0051): its key fences the webhook and e-mail to once a period. */
export interface UsageThresholdsReachedTable {
  subscriptionId: number;
  metricCode: string;
  quantity: Numeric;
  periodStart: ColumnType<string, string, string>;
  reachedQuantity: Numeric;
  reachedAt: Date;
}

/** A correction of a posted invoice (migration 0048; written only by src/credit-notes). */
export interface CreditNotesTable {
  id: Generated<number>;
  accountId: number;
  customerId: number;
  invoiceId: number;
  number: number;
  currency: string;
  reason: string;
  refund: boolean;
  subtotal: Numeric;
  taxTotal: Numeric;
  total: Numeric;
  /** What of the total paid the invoice's open balance; the rest was the customer's credit or refunded. */
  appliedToInvoice: Numeric;
  ledgerEntryId: number;
  createdAt: Date;
}

export interface CreditNoteLinesTable {
  creditNoteId: number;
  position: number;
  invoiceChargeId: number;
  description: string;
  quantity: Numeric | null;
  /** The net amount credited (before tax). */
  amount: Numeric;
  taxAmount: Numeric;
}

/** A refund a credit note with `refund: true` asked for: one per payment of the invoice, done once. */
export interface CreditNoteRefundsTable {
  creditNoteId: number;
  paymentId: number;
  amount: Numeric;
  refundId: number | null;
  /** When the plan was made, on the database's clock (migration 0052). */
  plannedAt: Generated<Date>;
  /** Why the plan can no longer be refunded (its amount stays the customer's credit); null while it can (migration 0052). */
  refused: string | null;
}

/** A one-time charge of a customer (migration 0047; written only by src/purchases). */
export interface PurchasesTable {
  id: Generated<number>;
  accountId: number;
  customerId: number;
  status: 'Draft' | 'Pending' | 'Invoiced';
  /** The catalogue's one-time product; null: an ad hoc charge. */
  productCode: string | null;
  name: string;
  description: string | null;
  quantity: Numeric;
  unitPrice: Numeric;
  /** quantity × unitPrice, rounded once to the currency's minor unit. */
  amount: Numeric;
  currency: string;
  invoiceId: number | null;
  createdAt: Date;
  invoicedAt: Date | null;
}

export interface InvoiceTaxesTable {
  invoiceId: number;
  position: number;
  name: string;
  rate: Numeric;
  amount: Numeric;
}

export interface LedgerAllocationsTable {
  id: Generated<number>;
  accountId: number;
  sourceEntryId: number;
  invoiceEntryId: number;
  amount: Numeric;
  createdAt: Generated<Date>;
}

export interface PaymentsTable {
  id: Generated<number>;
  accountId: number;
  customerId: number;
  ledgerEntryId: number | null;
  paymentMethodType: string;
  paymentMethodId: number | null;
  source: string;
  reference: string | null;
  amount: Numeric;
  currency: string;
  /** RequiresAction: an off-session charge the bank holds for the customer's authentication (migration 0038). */
  status: 'Succeeded' | 'Failed' | 'RequiresAction';
  gatewayTransactionId: string | null;
  declineCode: string | null;
  declineMessage: string | null;
  effectiveAt: Timestamp;
  createdAt: Generated<Date>;
  /** The key the payment was made under (the client's Idempotency-Key, a bulk record's, the billing clock's). */
  idempotencyKey: string | null;
  /** When the client's key began its present life (idempotency_keys.created_at); null for the service's own keys, which live for ever. */
  idempotencyKeyAt: Generated<Date | null>;
}

/** Rows per account of a big table (migration 0019's triggers keep it); an account's count is the sum of its slots. */
export interface AccountRowCountsTable {
  accountId: number;
  tableName: string;
  slot: number;
  rowCount: ColumnType<string, string | number, string | number>;
}

export interface RefundsTable {
  id: Generated<number>;
  accountId: number;
  customerId: number;
  paymentId: number;
  ledgerEntryId: number | null;
  method: string;
  amount: Numeric;
  currency: string;
  reference: string | null;
  status: 'Pending' | 'Succeeded' | 'Failed';
  gatewayRefundId: string | null;
  declineCode: string | null;
  declineMessage: string | null;
  effectiveAt: Timestamp;
  createdAt: Generated<Date>;
  /** The key the gateway's refund is asked under (reserved before the call; null: a refund by another method). */
  gatewayIdempotencyKey: string | null;
}

export interface RefundUnallocationsTable {
  refundId: number;
  invoiceId: number;
  amount: Numeric;
}

export interface IdempotencyKeysTable {
  accountId: number;
  key: string;
  endpoint: string;
  requestHash: string;
  responseStatus: number | null;
  /** The answer's body exactly as sent ('' for none), replayed byte for byte. */
  responseBody: string | null;
  createdAt: Generated<Date>;
  /** The instance running the first request (service_instances.id); null once answered. */
  claimedBy: string | null;
  /** The claim's fencing token, new at every claim and take-over: only its holder saves the answer or commits (db/keyed-commit.ts). */
  claimToken: string | null;
  /** When a transaction of the keyed request committed (in that transaction); null: nothing committed yet. */
  committedAt: Date | null;
  /** What the committed request created, by entity type ({"Customer": [12]}); null when nothing. */
  committedRef: Record<string, number[]> | null;
}

/** Card-capture host: SHA-256 of each CAPTCHA token already used (single use). */
export interface UsedCaptchaTokensTable {
  tokenHash: string;
  usedAt: Generated<Date>;
}

export type BulkJobStatus = 'Validated' | 'Processing' | 'Completed' | 'Cancelled';
export type BulkRecordStatus = 'Invalid' | 'Pending' | 'Processing' | 'Succeeded' | 'Failed' | 'Cancelled';

export interface BulkJobsTable {
  id: Generated<number>;
  accountId: number;
  type: Generated<string>;
  status: BulkJobStatus;
  fileName: string | null;
  reference: string | null;
  auditSource: string;
  totalRecords: number;
  successfulRecords: number;
  failedRecords: number;
  createdAt: Generated<Date>;
  importingAt: Timestamp | null;
  processedAt: Timestamp | null;
  completedAt: Timestamp | null;
  modifiedAt: Generated<Date>;
}

export interface BulkJobRecordsTable {
  id: Generated<number>;
  jobId: number;
  position: number;
  item: ColumnType<unknown, string, string>;
  status: BulkRecordStatus;
  errors: ColumnType<Array<{ Key: string; Value: string }> | null, string | null, string | null>;
  paymentId: number | null;
  claimedAt: Timestamp | null;
  /** The instance paying the record (service_instances.id). */
  claimedBy: string | null;
  /** New at every claim: only the record's present holder may finish it (fencing). */
  claimToken: string | null;
  processedAt: Timestamp | null;
}

export interface AutoCollectionAttemptsTable {
  customerId: number;
  attemptDate: ColumnType<string, string, string>;
  /** The default card the attempt charges (migration 0043; 0 on earlier rows): a new default card gets its own attempt. */
  paymentMethodId: Generated<number>;
  /** Who took the attempt (0043): the billing clock, or the customer paying now in the portal. */
  claimedBy: ColumnType<'clock' | 'portal', 'clock' | 'portal' | undefined, never>;
  createdAt: Generated<Date>;
}

/** A test clock (RENEW_TEST_CLOCKS): the account's time while it stands still after an advance. */
export interface AccountClocksTable {
  accountId: number;
  frozenAt: Date;
  firstAdvancedAt: Date;
  advancingSince: Date | null;
  /** The instance running the advance (service_instances.id). */
  advancingBy: string | null;
  /** New at every claim of the clock: only the advance holding it moves the time or lets go (fencing). */
  advancingToken: string | null;
}

/** A merchant's webhook endpoint; `secret` signs deliveries (Standard Webhooks, `whsec_…`). */
export interface WebhookEndpointsTable {
  id: Generated<number>;
  accountId: number;
  url: string;
  /** ["*"] or a list of event types. */
  eventTypes: ColumnType<string[], string, string>;
  description: string | null;
  status: ColumnType<string, string | undefined, string>;
  secret: string;
  /** When deliveries to it started failing without a success since (null: healthy). */
  failingSince: Date | null;
  createdAt: Generated<Date>;
  modifiedAt: ColumnType<Date, Date | undefined, Date>;
  deletedAt: Date | null;
}

/** An event, written with the change that caused it (the outbox). */
export interface WebhookEventsTable {
  id: Generated<number>;
  /** `evt_…`, the `webhook-id` of its deliveries. */
  publicId: string;
  accountId: number;
  customerId: number | null;
  eventType: string;
  payload: ColumnType<Record<string, unknown>, string, string>;
  createdAt: Generated<Date>;
}

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  accountId: number;
  eventId: number;
  endpointId: number;
  customerId: number | null;
  status: ColumnType<string, string | undefined, string>;
  attempts: ColumnType<number, number | undefined, number>;
  nextAttemptAt: ColumnType<Date, Date | undefined, Date>;
  claimedUntil: Date | null;
  /** The instance sending it (service_instances.id). */
  claimedBy: string | null;
  /** New at every claim: only the delivery's present holder sends it and records the attempt (fencing). */
  claimToken: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Generated<Date>;
  deliveredAt: Date | null;
}

export interface WebhookDeliveryAttemptsTable {
  id: Generated<number>;
  deliveryId: number;
  attemptedAt: ColumnType<Date, Date | undefined, Date>;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
}

/** Lets the card-capture host put a card on one customer, once, until it expires (only the token's hash is kept). */
/** The sandbox gateway's idempotency records (shared by every instance, as a processor's are). */
export interface SandboxGatewayOperationsTable {
  kind: 'charge' | 'refund';
  idempotencyKey: string;
  status: 'succeeded' | 'refused';
  /** The charge's transaction id or the refund's id (succeeded). */
  resultId: string | null;
  code: string | null;
  message: string | null;
  /** A refund's charge. */
  transactionId: string | null;
  amount: Numeric;
  currency: string;
  createdAt: Generated<Date>;
}

/** Money the gateway moved that was neither recorded nor paid back: an operator's to settle. */
export interface PaymentsNeedingAttentionTable {
  id: Generated<number>;
  accountId: number;
  customerId: number | null;
  reason: 'compensation_failed';
  gatewayTransactionId: string;
  amount: Numeric;
  currency: string;
  gatewayCode: string | null;
  gatewayMessage: string | null;
  createdAt: Generated<Date>;
  resolvedAt: Date | null;
}

/** The sandbox gateway's 3-D Secure challenges (migration 0037). */
export interface SandboxAuthenticationsTable {
  id: string;
  /** The card's behaviour on charges once saved (sandbox-gateway.ts). */
  behaviour: string;
  token: string;
  brand: string;
  lastFour: string;
  gatewayCustomerId: string;
  status: ColumnType<
    'Pending' | 'Succeeded' | 'Failed',
    'Pending' | 'Succeeded' | 'Failed' | undefined,
    'Pending' | 'Succeeded' | 'Failed'
  >;
  expiresAt: Date;
  decidedAt: Date | null;
  createdAt: Generated<Date>;
}

/** The sandbox gateway's disputes (migration 0039): their events are due `openedAt`, then `closedAt` once decided. */
export interface SandboxDisputesTable {
  id: string;
  transactionId: string;
  amount: Numeric;
  currency: string;
  reason: string;
  fee: Numeric;
  evidenceDueAt: Date;
  status: ColumnType<DisputeStatus, DisputeStatus | undefined, DisputeStatus>;
  /** The idempotency key of the evidence that decided it (a retry answers as the first time). */
  evidenceKey: string | null;
  openedAt: Date;
  openedAcknowledgedAt: Date | null;
  closedAt: Date | null;
  closedAcknowledgedAt: Date | null;
  createdAt: Generated<Date>;
}

export type DisputeStatus = 'NeedsResponse' | 'UnderReview' | 'Won' | 'Lost';

/** A payment's dispute (chargeback) as Renew records it (migration 0039; disputes/). */
export interface DisputesTable {
  id: Generated<number>;
  accountId: number;
  customerId: number;
  paymentId: number;
  gatewayDisputeId: string;
  amount: Numeric;
  currency: string;
  reason: string;
  status: DisputeStatus;
  evidenceDueAt: Date | null;
  /** What the processor charges the merchant (not the customer); null when it does not say. */
  fee: Numeric | null;
  /** The `dispute` ledger entry: the money taken back. */
  ledgerEntryId: number | null;
  /** The `dispute_reversal` entry of a dispute won: the money given back. */
  reversalEntryId: number | null;
  evidenceSubmittedAt: Date | null;
  /** On the account's clock. */
  createdAt: Timestamp;
  closedAt: Timestamp | null;
}

export interface DisputeUnallocationsTable {
  disputeId: number;
  invoiceId: number;
  amount: Numeric;
}

/** A capture waiting for its shopper's 3-D Secure challenge (migration 0037; card-authentications/). */
export interface CardAuthenticationsTable {
  id: Generated<number>;
  publicId: string;
  accountId: number;
  customerId: number;
  gatewayActionId: string;
  /** The first payment's own challenge, when the bank asked again after the card's (migration 0040): it authorises the payment. */
  paymentActionId: Generated<string | null>;
  challengeUrl: string;
  expiresAt: Date;
  /** What the card will be stored as, without the gateway's token (given when the challenge succeeds). */
  card: ColumnType<unknown, string, string>;
  makeDefault: boolean;
  mayNotMoveDefault: ColumnType<unknown, string | null, string | null>;
  collectionAmount: ColumnType<string | null, string | null, string | null>;
  captureTokenId: number | null;
  status: ColumnType<
    'Pending' | 'Completing' | 'Succeeded' | 'Failed' | 'Expired',
    'Pending' | undefined,
    'Pending' | 'Completing' | 'Succeeded' | 'Failed' | 'Expired'
  >;
  claimToken: string | null;
  claimedUntil: Date | null;
  paymentMethodId: number | null;
  paymentId: number | null;
  declineCode: string | null;
  createdAt: Generated<Date>;
  completedAt: Date | null;
}

/** A card attempt of a portal session (migration 0042): declines and unfinished ones count towards the customer's hourly budget. */
export interface PortalCardAttemptsTable {
  id: Generated<number>;
  accountId: number;
  customerId: number;
  /** The capture token it spent: one token, one attempt. */
  captureTokenId: number;
  captchaSolved: boolean;
  startedAt: Date;
  /** null while the attempt runs (or when its outcome never came). */
  outcome: ColumnType<PortalCardOutcome | null, PortalCardOutcome | null | undefined, PortalCardOutcome | null>;
  finishedAt: ColumnType<Date | null, Date | null | undefined, Date | null>;
}
/** A new e-mail address asked for in the portal, applied when the link sent to it is opened (migration 0042). */
export interface PortalEmailChangesTable {
  id: Generated<number>;
  accountId: number;
  customerId: number;
  newEmail: string;
  tokenHash: string;
  locale: string | null;
  expiresAt: Date;
  usedAt: ColumnType<Date | null, Date | null | undefined, Date | null>;
  supersededAt: ColumnType<Date | null, Date | null | undefined, Date | null>;
  createdAt: Generated<Date>;
}

export type PortalCardOutcome = 'declined' | 'stored' | 'challenged' | 'failed';

export interface CaptureTokensTable {
  id: Generated<number>;
  accountId: number;
  customerId: number;
  tokenHash: string;
  maxCollectionAmount: ColumnType<string | null, string | null, string | null>;
  expiresAt: Date;
  spentAt: Date | null;
  /** The portal session that minted the token (it stands in for the CAPTCHA while the session lives); null: the API's. */
  portalSessionId: ColumnType<number | null, number | null | undefined, number | null>;
  createdAt: Generated<Date>;
}

export interface EmailOutboxTable {
  id: Generated<number>;
  accountId: number;
  /** null: an e-mail to the account itself (catalogue `account.email`). */
  customerId: number | null;
  emailType: string;
  toAddress: string;
  /**
   * What the e-mail says (language, name, the event's fields, links), written out by the worker when it
   * sends (notifications/email-content.ts); null: a row with its text already written (subject, body).
   */
  content: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  /** The subject, as written before content was kept (or a notice to the account); null: written from content. */
  subject: ColumnType<string | null, string | null | undefined, string | null>;
  /** The plain-text body (null: written from content). */
  body: ColumnType<string | null, string | null | undefined, string | null>;
  /** The HTML alternative (null: a plain-text e-mail, or one written from content). */
  htmlBody: ColumnType<string | null, string | null | undefined, string | null>;
  /** The invoice whose PDF the e-mail carries (made when it is sent). */
  attachedInvoiceId: Generated<number | null>;
  status: Generated<'Pending' | 'Sent' | 'Failed'>;
  attempts: Generated<number>;
  nextAttemptAt: Generated<Date>;
  /** The instance sending it (service_instances.id). */
  claimedBy: Generated<string | null>;
  /** Set anew at every claim: only the holder of the current token may send it or record its outcome. */
  claimToken: Generated<string | null>;
  lastError: string | null;
  createdAt: Generated<Date>;
  sentAt: Date | null;
}

/** One running process (API, capture host, worker) and its heartbeat, on the database's clock. */
export interface ServiceInstancesTable {
  id: string;
  role: string;
  host: string;
  pid: number;
  startedAt: Generated<Date>;
  heartbeatAt: Generated<Date>;
}

/**
 * An amount of an invoice held for a card payment that names it (paymentAllocations) while its charge
 * is at the gateway; counted by the allocation check until released, its holder gone or held_until past.
 */
export interface AllocationReservationsTable {
  id: Generated<number>;
  accountId: number;
  customerId: number;
  /** The gateway idempotency key of the charge it waits for. */
  chargeKey: string;
  invoiceEntryId: number;
  amount: Numeric;
  /** The instance (service_instances.id) that holds it. */
  heldBy: string;
  heldUntil: Date;
  createdAt: Generated<Date>;
}

export type PortalScope = 'full' | 'cardAndPay';

export interface PortalLinksTable {
  id: Generated<number>;
  accountId: number;
  customerId: number;
  tokenHash: string;
  kind: 'session' | 'signIn' | 'emailAction';
  scope: PortalScope;
  flow: string | null;
  subscriptionId: number | null;
  returnUrl: string | null;
  locale: string | null;
  expiresAt: Date;
  usedAt: Date | null;
  /** No longer set (migration 0041): a newer e-mail's link leaves the older ones working. */
  supersededAt: Date | null;
  /** A sign-in link: the SHA-256 of the nonce in the cookie of the browser that asked for it (migration 0041). */
  browserNonceHash: Generated<string | null>;
  createdAt: Generated<Date>;
}

export interface PortalSessionsTable {
  id: Generated<number>;
  accountId: number;
  customerId: number;
  linkId: number;
  tokenHash: string;
  scope: PortalScope;
  flow: string | null;
  subscriptionId: number | null;
  returnUrl: string | null;
  locale: string | null;
  idleExpiresAt: Date;
  absoluteExpiresAt: Date;
  endedAt: Date | null;
  createdAt: Generated<Date>;
}

export interface PortalCancellationsTable {
  id: Generated<number>;
  accountId: number;
  customerId: number;
  subscriptionId: number;
  mode: 'now' | 'periodEnd';
  reason: string | null;
  effectiveOn: ColumnType<string | null, string | null, string | null>;
  requestedAt: Date;
  withdrawnAt: Date | null;
  /** When the billing clock carried out a periodEnd cancellation (null: not yet, or withdrawn). */
  carriedOutAt: ColumnType<Date | null, Date | null | undefined, Date | null>;
  createdAt: Generated<Date>;
}

/** What an operator of the merchant console may do, least first (README "Console"). */
export type OperatorRole = 'viewer' | 'support' | 'billing' | 'owner';

/** A member of a merchant's staff who signs in to the console (migration 0031; written only by src/console). */
export interface OperatorsTable {
  id: Generated<number>;
  accountId: number;
  /** Lower-cased. */
  email: string;
  name: string;
  role: OperatorRole;
  /** argon2id, PHC string. */
  passwordHash: string;
  /** Base32; set by TOTP setup, used once totpEnabled. */
  totpSecret: string | null;
  totpEnabled: Generated<boolean>;
  /** The last TOTP time step accepted: a code is not accepted twice. */
  totpLastStep: ColumnType<string | null, string | number | null | undefined, string | number | null>;
  createdAt: Generated<Date>;
  lastSignInAt: Date | null;
  deletedAt: Date | null;
}

export interface OperatorSessionsTable {
  id: Generated<number>;
  accountId: number;
  operatorId: number;
  tokenHash: string;
  createdAt: Generated<Date>;
  lastSeenAt: Date;
  idleExpiresAt: Date;
  absoluteExpiresAt: Date;
  endedAt: Date | null;
}

export interface OperatorInvitationsTable {
  id: Generated<number>;
  accountId: number;
  tokenHash: string;
  /** Lower-cased; null: the first owner's link, which names none. */
  email: string | null;
  role: OperatorRole;
  invitedBy: number | null;
  firstOwner: Generated<boolean>;
  expiresAt: Date;
  acceptedAt: Date | null;
  acceptedOperatorId: number | null;
  createdAt: Generated<Date>;
}

export interface OperatorSignInFailuresTable {
  id: Generated<number>;
  /** pair: the key is `e-mail address-key` (migration 0041); email: no longer written. */
  scope: 'email' | 'ip' | 'pair';
  key: string;
  failedAt: Date;
}

export interface Database {
  accounts: AccountsTable;
  accountClocks: AccountClocksTable;
  accountRowCounts: AccountRowCountsTable;
  customers: CustomersTable;
  customerReferences: CustomerReferencesTable;
  customerSalesTrackingCodes: CustomerSalesTrackingCodesTable;
  customerAcquisitions: CustomerAcquisitionsTable;
  customerBillingSettings: CustomerBillingSettingsTable;
  customerBillingPeriodConfigurations: CustomerBillingPeriodConfigurationsTable;
  customerAddressPreferences: CustomerAddressPreferencesTable;
  addresses: AddressesTable;
  customerNotes: CustomerNotesTable;
  auditLog: AuditLogTable;
  ledgerEntries: LedgerEntriesTable;
  rateLimitCounters: RateLimitCountersTable;
  customerEmailPreferences: CustomerEmailPreferencesTable;
  paymentMethods: PaymentMethodsTable;
  plans: PlansTable;
  planFrequencies: PlanFrequenciesTable;
  subscriptions: SubscriptionsTable;
  subscriptionProducts: SubscriptionProductsTable;
  subscriptionCoupons: SubscriptionCouponsTable;
  pendingPlanChanges: PendingPlanChangesTable;
  invoices: InvoicesTable;
  invoiceCharges: InvoiceChargesTable;
  invoiceTaxes: InvoiceTaxesTable;
  purchases: PurchasesTable;
  creditNotes: CreditNotesTable;
  creditNoteLines: CreditNoteLinesTable;
  creditNoteRefunds: CreditNoteRefundsTable;
  usageEvents: UsageEventsTable;
  usageEventIds: UsageEventIdsTable;
  usageDaily: UsageDailyTable;
  usageUniqueValues: UsageUniqueValuesTable;
  usageThresholds: UsageThresholdsTable;
  usageThresholdsReached: UsageThresholdsReachedTable;
  ledgerAllocations: LedgerAllocationsTable;
  payments: PaymentsTable;
  refunds: RefundsTable;
  refundUnallocations: RefundUnallocationsTable;
  sandboxGatewayOperations: SandboxGatewayOperationsTable;
  sandboxAuthentications: SandboxAuthenticationsTable;
  sandboxDisputes: SandboxDisputesTable;
  disputes: DisputesTable;
  disputeUnallocations: DisputeUnallocationsTable;
  cardAuthentications: CardAuthenticationsTable;
  paymentsNeedingAttention: PaymentsNeedingAttentionTable;
  allocationReservations: AllocationReservationsTable;
  portalLinks: PortalLinksTable;
  portalSessions: PortalSessionsTable;
  portalCardAttempts: PortalCardAttemptsTable;
  portalEmailChanges: PortalEmailChangesTable;
  portalCancellations: PortalCancellationsTable;
  idempotencyKeys: IdempotencyKeysTable;
  usedCaptchaTokens: UsedCaptchaTokensTable;
  bulkJobs: BulkJobsTable;
  bulkJobRecords: BulkJobRecordsTable;
  autoCollectionAttempts: AutoCollectionAttemptsTable;
  emailOutbox: EmailOutboxTable;
  captureTokens: CaptureTokensTable;
  webhookEndpoints: WebhookEndpointsTable;
  webhookEvents: WebhookEventsTable;
  webhookDeliveries: WebhookDeliveriesTable;
  webhookDeliveryAttempts: WebhookDeliveryAttemptsTable;
  serviceInstances: ServiceInstancesTable;
  operators: OperatorsTable;
  operatorSessions: OperatorSessionsTable;
  operatorInvitations: OperatorInvitationsTable;
  operatorSignInFailures: OperatorSignInFailuresTable;
}

export type CustomerRow = Selectable<CustomersTable>;
export type NewCustomerRow = Insertable<CustomersTable>;
export type CustomerRowUpdate = Updateable<CustomersTable>;
