import { z } from 'zod';
import { SERVICE_START_OPTIONS } from '../billing-settings/schemas.js';
import { CustomerResponse } from '../customers/schemas.js';
import { ChangeInvoicePreviewResponse, InvoicePreviewResponse, InvoiceResponse } from '../invoices/schemas.js';
import { SubscriptionResponse } from '../subscriptions/schemas.js';

/** URL flags arrive as text: "true"/"false" in any case. */
const flag = z
  .string()
  .regex(/^(true|false)$/i, 'must be true or false')
  .transform((v) => v.toLowerCase() === 'true')
  .optional();

export const ActivationQuery = z.object({
  preview: flag,
  showZeroDollarCharges: flag,
  view: z
    .string()
    .regex(/^sideeffects$/i, 'the only view is sideeffects')
    .optional(),
});

export const ActivationBody = z.object({
  customerId: z.number().int().positive(),
  activateAllSubscriptions: z.boolean().nullish(),
  activateAllDraftPurchases: z.boolean().nullish(),
  temporarilyDisableAutoPost: z.boolean().nullish(),
  /** An extension of the spec: refuse (402) unless the money the customer holds covers the first invoice, checked under the customer's lock. */
  requireFullPayment: z.boolean().nullish(),
});
export type ActivationInput = z.infer<typeof ActivationBody>;

export const UnholdBody = z.object({
  customerId: z.number().int().positive(),
  serviceStartOption: z.enum(SERVICE_START_OPTIONS, { error: `must be one of ${SERVICE_START_OPTIONS.join(', ')}` }),
  preview: z.boolean().nullish(),
  showZeroDollarCharges: z.boolean().nullish(),
  temporarilyDisableAutoPost: z.boolean().nullish(),
  prorate: z.boolean().nullish(),
});
export type UnholdInput = z.infer<typeof UnholdBody>;

/** The option is checked by the service so that any bad value gets the spec's exact message. */
export const CancellationBody = z.object({
  customerId: z.number().int().positive(),
  cancellationOption: z.unknown().optional(),
});
export type CancellationInput = z.infer<typeof CancellationBody>;

export const CANCELLATION_OPTIONS = ['None', 'Unearned', 'Full'] as const;
export type CancellationOption = (typeof CANCELLATION_OPTIONS)[number];

/** The customer, with what the operation computed (previews) or created (view=sideeffects). */
export const LifecycleResponse = CustomerResponse.extend({
  invoicePreview: InvoicePreviewResponse.nullable().optional(),
  additionalInvoicesForPreview: z.array(InvoicePreviewResponse).optional(),
  invoices: z.array(InvoiceResponse).optional(),
});
export type LifecycleResponse = z.infer<typeof LifecycleResponse>;

export const PLAN_CHANGE_TIMINGS = ['now', 'periodEnd'] as const;

/** POST /v1/subscriptions/{id}/changes (issue 28, an extension; see src/subscriptions/PLAN-CHANGES.md). Bounds are the service's. */
export const PlanChangeBody = z.object({
  planFrequencyId: z.number().int().positive().nullish(),
  /** Product code → new quantity; codes of the target plan, within its minQuantity … maxQuantity. */
  quantities: z.record(z.string().min(1), z.number()).nullish(),
  /** Missing: upgrades now, downgrades as the catalogue's planChanges.downgradeTiming says. */
  timing: z.enum(PLAN_CHANGE_TIMINGS).nullish(),
  preview: z.boolean().nullish(),
});
export type PlanChangeInput = z.infer<typeof PlanChangeBody>;

export const PlanChangeResponse = z.object({
  /** The subscription as GET /v1/subscriptions/{id} shows it after the change (a preview: as it would be). */
  subscription: SubscriptionResponse,
  /** The invoice the change posted (the invoice shape); a preview: as it would be (the preview shape); null when nothing is posted now. */
  invoice: z.union([InvoiceResponse, ChangeInvoicePreviewResponse]).nullable(),
  /** The next renewal after the change: its date and the total of the invoice it will post for this subscription. */
  nextRenewal: z.object({ date: z.string(), amount: z.number() }),
});
export type PlanChangeResponse = z.infer<typeof PlanChangeResponse>;
