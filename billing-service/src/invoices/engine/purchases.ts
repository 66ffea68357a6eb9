import { money } from '../../money/money.js';
import { invoiceTotals } from './compute-invoices.js';
import { dueDate } from './due-date.js';
import type { DraftCharge, DraftInvoice, EngineInput, EnginePurchase } from './types.js';

/** What billing purchases needs of the engine's input: the invoice date, terms and taxes. */
export type PurchasePricing = Pick<EngineInput, 'currency' | 'effectiveDate' | 'term' | 'taxRates' | 'rollUpTaxes'>;

/**
 * The invoices with the purchases' lines on the first of them (a renewal's, an activation's), its taxes
 * computed again over the whole invoice; with no invoice, one invoice of the purchases alone. A purchase's
 * line is always shown (even at 0), is never discounted (coupons discount recurring lines only), and is
 * taxed like any other line. Its service dates are the invoice date (start and end: a one-time charge).
 */
export function attachPurchases(invoices: DraftInvoice[], purchases: readonly EnginePurchase[], pricing: PurchasePricing): DraftInvoice[] {
  if (purchases.length === 0) return invoices;
  const [first, ...rest] = invoices;
  const lines = [...purchases].sort((a, b) => a.purchaseId - b.purchaseId).map((p) => purchaseLine(p, pricing.effectiveDate));
  const base = first ?? emptyInvoice(pricing);
  return [{ ...base, ...invoiceTotals([...base.charges, ...lines], pricing) }, ...rest];
}

/** An invoice of no subscription's period (it moves none): purchases alone, a cancellation's final usage. */
export function emptyInvoice(pricing: PurchasePricing): DraftInvoice {
  return {
    currency: pricing.currency,
    effectiveDate: pricing.effectiveDate,
    dueDate: dueDate(pricing.effectiveDate, pricing.term),
    subscriptionIds: [],
    charges: [],
    subtotal: money(0),
    totalDiscount: money(0),
    taxes: [],
    totalTaxes: money(0),
    total: money(0),
    nextPeriodStart: {},
    couponsApplied: {},
  };
}

function purchaseLine(p: EnginePurchase, date: string): DraftCharge {
  return {
    subscriptionId: null,
    productCode: p.productCode,
    kind: 'Purchase',
    purchaseId: p.purchaseId,
    name: p.name,
    description: p.description,
    quantity: money(p.quantity),
    unitPrice: money(p.unitPrice),
    proratedUnitPrice: money(p.unitPrice),
    amount: money(p.amount),
    discounts: [],
    taxableAmount: money(p.amount),
    startServiceDate: date,
    endServiceDate: date,
  };
}

/** The purchases an invoice bills (its Purchase lines). */
export function purchaseIdsOf(invoice: Pick<DraftInvoice, 'charges'>): number[] {
  return invoice.charges.flatMap((c) => (c.kind === 'Purchase' && c.purchaseId !== undefined ? [c.purchaseId] : []));
}
