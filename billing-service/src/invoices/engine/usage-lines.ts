import { priceUsage, type PricedUsage } from '../../pricing/usage-charges.js';
import { money } from '../../money/money.js';
import type { DraftCharge, EngineUsage } from './types.js';

/**
 * The invoice line of a metric's usage over a past period (issue 41, in arrears): its quantity is what was measured,
 * its amount the charge's price of it rounded once (pricing/usage-charges.ts), its unit price that amount over the
 * quantity (so quantity × unit price, rounded, is the amount, as on every line; the tiers are in the description),
 * its service dates the usage period. Never prorated: usage is usage.
 */
export function usageLine(subscriptionId: number, usage: EngineUsage, currency: string): DraftCharge {
  const priced = priceUsage(usage.charge, money(usage.quantity), currency);
  const unitPrice = priced.quantity.isZero() ? money(0) : priced.amount.dividedBy(priced.quantity);
  return {
    subscriptionId,
    productCode: usage.metricCode,
    kind: 'Usage',
    metricCode: usage.metricCode,
    name: usage.name,
    description: usageDescription(usage, priced),
    quantity: priced.quantity,
    unitPrice,
    proratedUnitPrice: unitPrice,
    amount: priced.amount,
    discounts: [],
    taxableAmount: priced.amount,
    startServiceDate: usage.from,
    endServiceDate: usage.to,
  };
}

/**
 * How a usage line was priced, in figures (the same in every language): the free units, then each tier's units and
 * price ("1–1000: 1000 × 0; 1001+: 4000 × 0.002", "500 free; 1+: 20 × 0.5"), a flat amount as "+ 5".
 */
export function usageDescription(usage: EngineUsage, priced: PricedUsage): string {
  const parts: string[] = [];
  const free = money(usage.charge.freeUnits);
  if (free.greaterThan(0)) parts.push(`${free.toString()} free`);
  for (const tier of priced.tiers) {
    // "1001+" for a tier without end: the PDF's fonts have no ∞
    const range = tier.to === null ? `${tier.from.toString()}+` : `${tier.from.toString()}–${tier.to.toString()}`;
    const flat = tier.flatAmount.isZero() ? '' : ` + ${tier.flatAmount.toString()}`;
    if (usage.charge.model === 'package') {
      const size = money(usage.charge.packageSize ?? 1);
      const blocks = tier.units.dividedBy(size).ceil();
      parts.push(`${tier.units.toString()}: ${blocks.toString()} × ${size.toString()} at ${tier.unitAmount.times(size).toString()}`);
    } else parts.push(`${range}: ${tier.units.toString()} × ${tier.unitAmount.toString()}${flat}`);
  }
  return parts.join('; ') || '0';
}
