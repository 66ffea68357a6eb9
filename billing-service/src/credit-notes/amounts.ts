import { money, roundToCurrency, sumMoney, type Money } from '../money/money.js';

/**
 * The money of a credit note (pure). Invoices carry their taxes per invoice, not per line, so a line's tax is its
 * share of the invoice's: credited tax = credited net × the invoice's taxes / its taxable total (subtotal − discounts),
 * rounded ONCE to the currency's minor unit (half up, as every amount: money/money.ts). By quantity, the credited net
 * is the line's net × quantity / its quantity, rounded once too. A line can be credited, over all its credits
 * (cancellations' and credit notes'), up to what it billed with its tax (the figure a cancellation Full credits).
 */

export interface CreditedInvoice {
  currency: string;
  subtotal: Money;
  totalDiscount: Money;
  totalTaxes: Money;
}

export interface CreditableLine {
  id: number;
  quantity: Money;
  /** The line's net after its discounts (what taxes were computed on). */
  taxableAmount: Money;
  /** Credited so far, with tax (cancellations, earlier credit notes). */
  creditedAmount: Money;
}

export type CreditRequest = { amount: Money; quantity?: undefined } | { quantity: Money; amount?: undefined };

export interface CreditedLine {
  amount: Money;
  taxAmount: Money;
  total: Money;
}

/** Why a requested line cannot be credited (the service turns it into a refusal on the line's field). */
export type LineProblem =
  | { kind: 'quantity_exceeds_line'; quantity: Money }
  | { kind: 'rounds_to_nothing' }
  | { kind: 'exceeds_line'; creditable: Money };

/** The invoice's taxable total (what its taxes were computed on). */
function taxableTotal(invoice: CreditedInvoice): Money {
  return invoice.subtotal.minus(invoice.totalDiscount);
}

/** What a line billed with its share of tax, rounded once: the most all its credits may come to. */
export function lineWithTax(invoice: CreditedInvoice, line: CreditableLine): Money {
  const taxable = taxableTotal(invoice);
  if (taxable.lessThanOrEqualTo(0)) return roundToCurrency(line.taxableAmount, invoice.currency);
  return roundToCurrency(line.taxableAmount.times(taxable.plus(invoice.totalTaxes)).dividedBy(taxable), invoice.currency);
}

/** What is left to credit on a line, with tax (never below 0). */
export function creditableLeft(invoice: CreditedInvoice, line: CreditableLine): Money {
  const left = lineWithTax(invoice, line).minus(line.creditedAmount);
  return left.greaterThan(0) ? left : money(0);
}

/**
 * One line's credit: its net, tax and total, or the problem. `alreadyInRequest`: what earlier lines of the same
 * request credit on this invoice line (with tax), so two entries for one line cannot together exceed it.
 */
export function creditLine(
  invoice: CreditedInvoice,
  line: CreditableLine,
  request: CreditRequest,
  alreadyInRequest: Money = money(0),
): CreditedLine | LineProblem {
  let net: Money;
  if (request.quantity !== undefined) {
    if (request.quantity.greaterThan(line.quantity)) return { kind: 'quantity_exceeds_line', quantity: line.quantity };
    net = line.quantity.isZero()
      ? money(0)
      : roundToCurrency(line.taxableAmount.times(request.quantity).dividedBy(line.quantity), invoice.currency);
  } else {
    net = request.amount;
  }
  if (net.lessThanOrEqualTo(0)) return { kind: 'rounds_to_nothing' };
  const taxable = taxableTotal(invoice);
  const taxAmount = taxable.greaterThan(0) ? roundToCurrency(net.times(invoice.totalTaxes).dividedBy(taxable), invoice.currency) : money(0);
  const total = net.plus(taxAmount);
  const creditable = creditableLeft(invoice, line).minus(alreadyInRequest);
  if (total.greaterThan(creditable)) return { kind: 'exceeds_line', creditable: creditable.greaterThan(0) ? creditable : money(0) };
  return { amount: net, taxAmount, total };
}

export function isProblem(credit: CreditedLine | LineProblem): credit is LineProblem {
  return 'kind' in credit;
}

/** The credit note's totals, and how its total is used: the invoice's open balance first, the excess after. */
export function creditNoteTotals(lines: CreditedLine[], invoiceOpen: Money) {
  const subtotal = sumMoney(lines.map((l) => l.amount));
  const taxTotal = sumMoney(lines.map((l) => l.taxAmount));
  const total = subtotal.plus(taxTotal);
  const appliedToInvoice = total.lessThan(invoiceOpen) ? total : invoiceOpen;
  return { subtotal, taxTotal, total, appliedToInvoice, excess: total.minus(appliedToInvoice) };
}

/**
 * The refunds an excess asks for with `refund: true`: the invoice's payments, newest first, each up to what it paid
 * on the invoice, until the excess is covered. What they cannot cover stays the customer's credit.
 */
export function planRefunds(
  excess: Money,
  paymentsOfInvoice: Array<{ paymentId: number; paid: Money }>,
): Array<{ paymentId: number; amount: Money }> {
  const plan: Array<{ paymentId: number; amount: Money }> = [];
  let left = excess;
  for (const payment of [...paymentsOfInvoice].sort((a, b) => b.paymentId - a.paymentId)) {
    if (left.lessThanOrEqualTo(0)) break;
    const amount = payment.paid.lessThan(left) ? payment.paid : left;
    if (amount.greaterThan(0)) plan.push({ paymentId: payment.paymentId, amount });
    left = left.minus(amount);
  }
  return plan;
}
