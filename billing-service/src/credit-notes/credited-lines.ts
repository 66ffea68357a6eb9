import type { InvoiceChargeRow, InvoiceRow } from '../invoices/repository.js';
import { minorUnits, money, type Money } from '../money/money.js';
import { Refusal } from '../refusals/refusal.js';
import { type CreditedInvoice, type CreditedLine, creditLine, isProblem } from './amounts.js';
import type { CreateCreditNoteInput } from './schemas.js';

/** One requested line, priced: the invoice line it credits and its net, tax and total. */
export interface PricedCredit {
  chargeId: number;
  description: string;
  /** Given when the line was credited by quantity. */
  quantity: Money | null;
  credit: CreditedLine;
}

/**
 * The request's lines against the invoice's: each names a line of this invoice that billed something (400 on
 * `lines[i].invoiceLineId` otherwise), an amount with at most the currency's decimals or a quantity up to the line's
 * (400 on `lines[i].amount` / `.quantity`), and credits no more than is left of the line with its tax, counting the
 * request's earlier lines for it (409 credit_exceeds_line).
 */
export function creditedLines(invoice: InvoiceRow, charges: InvoiceChargeRow[], lines: CreateCreditNoteInput['lines']): PricedCredit[] {
  const credited: CreditedInvoice = {
    currency: invoice.currency,
    subtotal: money(invoice.subtotal),
    totalDiscount: money(invoice.totalDiscount),
    totalTaxes: money(invoice.totalTaxes),
  };
  const decimals = minorUnits(invoice.currency);
  const inRequest = new Map<number, Money>();
  return lines.map((line, i) => {
    const charge = charges.find((c) => c.id === line.invoiceLineId);
    if (!charge || !money(charge.taxableAmount).greaterThan(0))
      throw Refusal.invalid(
        charge ? `invoice line ${line.invoiceLineId} bills nothing to credit` : `invoice ${invoice.id} has no line ${line.invoiceLineId}`,
        `lines[${i}].invoiceLineId`,
        'value_invalid',
      );
    const field = line.quantity ? `lines[${i}].quantity` : `lines[${i}].amount`;
    const asked = money(line.quantity ?? line.amount ?? 0);
    if (!line.quantity && asked.decimalPlaces() > decimals)
      throw Refusal.invalid(`${invoice.currency} amounts have at most ${decimals} decimals`, field, 'value_invalid');
    const already = inRequest.get(charge.id) ?? money(0);
    const credit = creditLine(
      credited,
      {
        id: charge.id,
        quantity: money(charge.quantity),
        taxableAmount: money(charge.taxableAmount),
        creditedAmount: money(charge.creditedAmount),
      },
      line.quantity ? { quantity: asked } : { amount: asked },
      already,
    );
    if (isProblem(credit)) throw lineRefusal(credit, field, invoice.currency, decimals);
    inRequest.set(charge.id, already.plus(credit.total));
    return { chargeId: charge.id, description: charge.description ?? charge.name, quantity: line.quantity ? asked : null, credit };
  });
}

function lineRefusal(problem: Exclude<ReturnType<typeof creditLine>, CreditedLine>, field: string, currency: string, decimals: number) {
  switch (problem.kind) {
    case 'quantity_exceeds_line':
      return Refusal.invalid(`the line's quantity is ${problem.quantity.toString()}: credit at most that`, field, 'value_invalid');
    case 'rounds_to_nothing':
      return Refusal.invalid(`that quantity of the line comes to less than one ${currency} minor unit`, field, 'value_invalid');
    case 'exceeds_line':
      return Refusal.conflict(
        `${problem.creditable.toFixed(decimals)} ${currency} is left to credit on this line (with its tax): credit no more`,
        field,
        'credit_exceeds_line',
      );
  }
}
