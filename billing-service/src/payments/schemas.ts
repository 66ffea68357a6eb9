import { z } from 'zod';

export const PAYMENT_METHOD_TYPES = ['CreditCard', 'Cash', 'Check', 'DirectDeposit', 'ACH'] as const;
export const PAYMENT_SOURCES = ['Manual', 'Automatic', 'SelfServicePortal', 'Import'] as const;
export const ALLOCATION_ORDERS = ['OldestToNewest', 'NewestToOldest'] as const;

/** A positive decimal; its places are checked against the customer's currency (amountInCurrency: USD 2, JPY 0, BHD 3). */
export const positiveAmount = z
  .union([z.number(), z.string().regex(/^\d+(\.\d+)?$/, 'must be a decimal number')])
  .transform((v) => String(v))
  .refine((v) => /^\d{1,15}(\.\d{1,15})?$/.test(v), 'must be a decimal number of at most 15 digits before and after the point')
  .refine((v) => Number(v) > 0, 'must be more than 0');

export const CollectPaymentBody = z.object({
  customerId: z.number().int().positive(),
  amount: positiveAmount,
  paymentMethod: z.enum(PAYMENT_METHOD_TYPES).default('CreditCard'),
  paymentMethodId: z.number().int().positive().nullish(),
  useDefaultPaymentMethod: z.boolean().nullish(),
  source: z.enum(PAYMENT_SOURCES).default('Manual'),
  reference: z.string().max(500, 'must be at most 500 characters').nullish(),
  effectiveTimestamp: z.iso.datetime({ offset: true, local: true, message: 'must be an ISO 8601 timestamp' }).or(z.iso.date()).nullish(),
  autoAllocate: z.boolean().nullish(),
  autoAllocateOrder: z.enum(ALLOCATION_ORDERS).nullish(),
  paymentAllocations: z
    .array(z.object({ invoiceId: z.number().int().positive(), amount: positiveAmount }))
    .max(100)
    .nullish(),
});
export type CollectPaymentInput = z.infer<typeof CollectPaymentBody>;

export const PaymentIdParams = z.object({ paymentId: z.coerce.number().int().positive() });

export const PaymentResponse = z.object({
  paymentActivityId: z.number(),
  reference: z.string().nullable(),
  effectiveTimestamp: z.string(),
  customerId: z.number(),
  amount: z.number(),
  currency: z.string(),
  status: z.enum(['Succeeded', 'Failed', 'RequiresAction']),
  paymentMethod: z.enum(PAYMENT_METHOD_TYPES),
  paymentMethodId: z.number().nullable(),
  source: z.enum(PAYMENT_SOURCES),
  declineCode: z.string().nullable(),
  invoiceAllocations: z.array(
    z.object({
      invoiceId: z.number(),
      invoiceNumber: z.number(),
      amount: z.number(),
      outstandingBalance: z.number(),
      invoiceTotal: z.number(),
      uri: z.string(),
    }),
  ),
  /** Every refund of the payment (GET /v1/refunds/{id} has the whole of each). */
  refunds: z.array(
    z.object({
      amount: z.number(),
      status: z.enum(['Pending', 'Succeeded', 'Failed']),
      effectiveTimestamp: z.string(),
      id: z.number(),
      uri: z.string(),
    }),
  ),
  unallocatedAmount: z.number(),
  /** What succeeded refunds paid back. */
  refundedAmount: z.number(),
  /** What open or lost disputes took back through the processor (README "Disputes"); 0 once a dispute is won. */
  disputedAmount: z.number(),
  /** What is left to refund: the amount less succeeded refunds, those waiting for the gateway, and what disputes took back. */
  refundableAmount: z.number(),
  id: z.number(),
  uri: z.string(),
});
export type PaymentResponse = z.infer<typeof PaymentResponse>;
