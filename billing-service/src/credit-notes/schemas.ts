import { z } from 'zod';
import { decimalInput } from '../http/field-schemas.js';

const MAX_REASON = 500;

/** A decimal of at most 15 digits before and after the point, above 0 (numeric columns; decimal.js). */
const positiveDecimal = decimalInput
  .refine((v) => /^\d{1,15}(\.\d{1,15})?$/.test(v), 'must be a decimal number with at most 15 digits before and after the point')
  .refine((v) => Number(v) > 0, 'must be more than 0');

/** One invoice line credited: by its net amount (before tax), or by a quantity of it (its net in proportion). */
const CreditNoteLineInput = z
  .object({
    invoiceLineId: z.number().int().positive(),
    amount: positiveDecimal.nullish(),
    quantity: positiveDecimal.nullish(),
  })
  .superRefine((line, ctx) => {
    const given = [line.amount, line.quantity].filter((v) => v !== null && v !== undefined).length;
    if (given !== 1) ctx.addIssue({ code: 'custom', path: ['amount'], message: 'give exactly one of amount and quantity' });
  });

/**
 * A credit note (issue 40, an extension of the spec): credits part or all of a posted invoice's lines. `refund`:
 * the part of the credit the invoice's open balance does not take is refunded on the invoice's payments rather
 * than kept as the customer's credit.
 */
export const CreateCreditNoteBody = z.object({
  invoiceId: z.number().int().positive(),
  lines: z.array(CreditNoteLineInput).min(1, 'credit at least one line').max(200, 'at most 200 lines'),
  reason: z.string().trim().min(1, 'required').max(MAX_REASON, `must be at most ${MAX_REASON} characters`),
  refund: z.boolean().nullish(),
});
export type CreateCreditNoteInput = z.infer<typeof CreateCreditNoteBody>;

export const CreditNoteIdParams = z.object({ creditNoteId: z.coerce.number().int().positive() });

export const CreditNoteLineResponse = z.object({
  invoiceLineId: z.number(),
  description: z.string(),
  /** The quantity credited when the line was credited by quantity; null when by amount. */
  quantity: z.number().nullable(),
  /** Net, before tax. */
  amount: z.number(),
  taxAmount: z.number(),
  total: z.number(),
});

export const CreditNoteResponse = z.object({
  /** null in a preview. */
  id: z.number().nullable(),
  /** The account's credit note number (its own sequence); null in a preview. */
  number: z.number().nullable(),
  customerId: z.number(),
  invoiceId: z.number(),
  invoiceNumber: z.number(),
  currency: z.string(),
  reason: z.string(),
  status: z.enum(['Issued', 'Preview']),
  lines: z.array(CreditNoteLineResponse),
  subtotal: z.number(),
  taxTotal: z.number(),
  total: z.number(),
  /** What of the total paid the invoice's open balance. */
  appliedToInvoice: z.number(),
  /** What became the customer's credit (it pays their other open invoices, now or later). */
  creditedToCustomer: z.number(),
  /** What was refunded on the invoice's payments (refund: true), once the refunds succeeded. */
  refunded: z.number(),
  refundIds: z.array(z.number()),
  createdTimestamp: z.string().nullable(),
  uri: z.string().nullable(),
  pdfUri: z.string().nullable(),
});
export type CreditNoteResponse = z.infer<typeof CreditNoteResponse>;
