import { z } from 'zod';
import { PAYMENT_METHOD_TYPES, positiveAmount } from '../payments/schemas.js';

export const REFUND_STATUSES = ['Pending', 'Succeeded', 'Failed'] as const;

export const CreateRefundBody = z.object({
  originalPaymentId: z.number().int().positive(),
  amount: positiveAmount,
  reference: z.string().max(500, 'must be at most 500 characters').nullish(),
  /** How the money goes back: CreditCard through the gateway (card payments only); others are recorded as paid back that way. Default: the payment's own method. */
  method: z.enum(PAYMENT_METHOD_TYPES).nullish(),
});
export type CreateRefundInput = z.infer<typeof CreateRefundBody>;

export const RefundIdParams = z.object({ refundId: z.coerce.number().int().positive() });

export const RefundResponse = z.object({
  originalPaymentId: z.number(),
  customerId: z.number(),
  amount: z.number(),
  currency: z.string(),
  method: z.enum(PAYMENT_METHOD_TYPES),
  status: z.enum(REFUND_STATUSES),
  reference: z.string().nullable(),
  effectiveTimestamp: z.string(),
  declineCode: z.string().nullable(),
  /** What the refund took back from invoices the payment had paid: they owe this much again. */
  invoiceUnallocations: z.array(z.object({ invoiceId: z.number(), invoiceNumber: z.number(), amount: z.number(), uri: z.string() })),
  paymentUri: z.string(),
  id: z.number(),
  uri: z.string(),
});
export type RefundResponse = z.infer<typeof RefundResponse>;
