import { z } from 'zod';
import { decimalInput, optionalText } from '../http/field-schemas.js';

export const PURCHASE_STATUSES = ['Draft', 'Pending', 'Invoiced'] as const;

/** A decimal of at most 15 digits before and after the point (numeric columns; decimal.js). */
const boundedDecimal = decimalInput.refine(
  (v) => /^\d{1,15}(\.\d{1,15})?$/.test(v),
  'must be a decimal number of at least 0, with at most 15 digits before and after the point',
);

/**
 * A one-time purchase (issue 40, an extension of the spec): a catalogue product (`productCode`) or an ad hoc
 * charge (`name` and `amount`, the price per unit in the customer's currency). `invoiceNow`: an Active
 * customer's purchase is invoiced and posted at once rather than on the next renewal's invoice.
 */
export const CreatePurchaseBody = z.object({
  customerId: z.number().int().positive(),
  productCode: z.string().min(1, 'required').max(255, 'must be at most 255 characters').nullish(),
  name: z.string().trim().min(1, 'required').max(255, 'must be at most 255 characters').nullish(),
  amount: boundedDecimal.nullish(),
  quantity: boundedDecimal.refine((v) => Number(v) > 0, 'must be more than 0'),
  description: optionalText(2000),
  invoiceNow: z.boolean().nullish(),
});
export type CreatePurchaseInput = z.infer<typeof CreatePurchaseBody>;

export const PurchaseIdParams = z.object({ purchaseId: z.coerce.number().int().positive() });

export const PurchaseResponse = z.object({
  customerId: z.number(),
  status: z.enum(PURCHASE_STATUSES),
  /** null: an ad hoc charge. */
  productCode: z.string().nullable(),
  name: z.string(),
  description: z.string().nullable(),
  quantity: z.number(),
  unitPrice: z.number(),
  /** quantity × unitPrice, rounded once to the currency's minor unit; before tax. */
  amount: z.number(),
  currency: z.string(),
  /** The invoice that bills it (null until then). */
  invoiceId: z.number().nullable(),
  createdTimestamp: z.string(),
  invoicedTimestamp: z.string().nullable(),
  id: z.number(),
  uri: z.string(),
});
export type PurchaseResponse = z.infer<typeof PurchaseResponse>;
