import { z } from 'zod';

/** `WrittenOff` (issue 40, an extension): its open balance written off as a bad debt, the invoice closed. */
export const INVOICE_STATUSES = ['Draft', 'Posted', 'PartiallyPaid', 'Paid', 'Void', 'WrittenOff'] as const;
/** The stored statuses (Paid and PartiallyPaid follow from the ledger): what the Status list filter takes. */
export const STORED_INVOICE_STATUSES = ['Draft', 'Posted', 'Void', 'WrittenOff'] as const;

export const InvoiceIdParams = z.object({ invoiceId: z.coerce.number().int().positive() });

const DraftDiscount = z.object({ name: z.string(), amount: z.number() });

/** A charge line, as the activation preview shows it and as posted invoices carry it. */
export const DraftChargeResponse = z.object({
  name: z.string(),
  description: z.string().nullable(),
  quantity: z.number(),
  unitPrice: z.number(),
  proratedUnitPrice: z.number(),
  amount: z.number(),
  taxableAmount: z.number(),
  startServiceDate: z.string(),
  endServiceDate: z.string(),
  draftDiscounts: z.array(DraftDiscount),
  subscriptionId: z.number().nullable(),
  productCode: z.string(),
  /** `Usage` (issue 41): a metric's usage of the period before, billed in arrears. */
  chargeType: z.enum(['Recurring', 'SetupFee', 'Purchase', 'Usage']),
});

export const TaxResponse = z.object({ name: z.string(), rate: z.number(), amount: z.number() });

export const InvoicePreviewResponse = z.object({
  draftCharges: z.array(DraftChargeResponse),
  subtotal: z.number(),
  totalDiscount: z.number(),
  draftTaxes: z.array(TaxResponse),
  totalTaxes: z.number(),
  total: z.number(),
  currency: z.string(),
  effectiveTimestamp: z.string(),
  dueTimestamp: z.string(),
});
export type InvoicePreviewResponse = z.infer<typeof InvoicePreviewResponse>;

/**
 * A plan change's invoice as its preview shows it (issue 28, an extension): its lines may also be `Credit`, the
 * credit of a line billed before for its unused days (negative amount and taxable amount).
 */
export const ChangeInvoicePreviewResponse = InvoicePreviewResponse.extend({
  draftCharges: z.array(DraftChargeResponse.extend({ chargeType: z.enum(['Recurring', 'SetupFee', 'Credit', 'Purchase', 'Usage']) })),
});
export type ChangeInvoicePreviewResponse = z.infer<typeof ChangeInvoicePreviewResponse>;

export const InvoiceResponse = z.object({
  invoiceNumber: z.number(),
  postedTimestamp: z.string().nullable(),
  effectiveTimestamp: z.string(),
  dueTimestamp: z.string(),
  /** `Credit`: a plan change's credit of a line billed before, for its unused days (an extension; negative amount). */
  charges: z.array(
    DraftChargeResponse.extend({ id: z.number(), chargeType: z.enum(['Recurring', 'SetupFee', 'Credit', 'Purchase', 'Usage']) }),
  ),
  subtotal: z.number(),
  totalDiscount: z.number(),
  taxes: z.array(TaxResponse),
  totalTaxes: z.number(),
  invoiceAmount: z.number(),
  totalPayments: z.number(),
  outstandingBalance: z.number(),
  terms: z.string(),
  poNumber: z.string().nullable(),
  currency: z.string(),
  customerId: z.number(),
  status: z.enum(INVOICE_STATUSES),
  id: z.number(),
  uri: z.string(),
});
export type InvoiceResponse = z.infer<typeof InvoiceResponse>;
