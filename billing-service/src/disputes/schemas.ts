import { z } from 'zod';

export const DISPUTE_STATUSES = ['NeedsResponse', 'UnderReview', 'Won', 'Lost'] as const;

export const DisputeIdParams = z.object({ disputeId: z.coerce.number().int().positive() });

export const DisputeEvidenceBody = z.object({
  /** What the merchant answers the cardholder's bank: receipts, delivery proof, correspondence, as text. */
  text: z.string().trim().min(1, 'is required').max(20_000, 'must be at most 20000 characters'),
});
export type DisputeEvidenceInput = z.infer<typeof DisputeEvidenceBody>;

export const DisputeResponse = z.object({
  id: z.number(),
  customerId: z.number(),
  paymentId: z.number(),
  /** The processor's id of the dispute. */
  gatewayDisputeId: z.string(),
  amount: z.number(),
  currency: z.string(),
  /** The processor's reason (fraudulent, product_not_received, …). */
  reason: z.string(),
  status: z.enum(DISPUTE_STATUSES),
  /** Until when the processor takes the merchant's evidence. */
  evidenceDueTimestamp: z.string().nullable(),
  evidenceSubmittedTimestamp: z.string().nullable(),
  /** What the processor charges the merchant for the dispute (the customer does not owe it); null when it does not say. */
  fee: z.number().nullable(),
  /** What the dispute took back from invoices the payment had paid: they owe this much again (until a dispute won pays them). */
  invoiceUnallocations: z.array(z.object({ invoiceId: z.number(), invoiceNumber: z.number(), amount: z.number(), uri: z.string() })),
  createdTimestamp: z.string(),
  closedTimestamp: z.string().nullable(),
  paymentUri: z.string(),
  customerUri: z.string(),
  uri: z.string(),
});
export type DisputeResponse = z.infer<typeof DisputeResponse>;
