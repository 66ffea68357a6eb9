import { z } from 'zod';
import { findCurrency } from './currencies.js';

/**
 * Usage-based billing in the catalogue (issue 41): billable metrics (what is counted from the usage events) and
 * the charges a plan frequency bills on them in arrears. Validated at start with the rest of the catalogue.
 */

const CurrencyCode = z
  .string()
  .length(3)
  .transform((c) => c.toUpperCase())
  .refine((c) => findCurrency(c) !== undefined, 'not an ISO 4217 currency code');

/** An amount per unit may be finer than the currency's minor unit (0.002 USD per call); line totals are rounded once. */
const UnitAmount = z.union([z.string().regex(/^\d+(\.\d+)?$/, 'must be a non-negative decimal'), z.number().min(0)]).transform(String);

export const METRIC_AGGREGATIONS = ['count', 'sum', 'max', 'uniqueCount', 'latest'] as const;
export type MetricAggregation = (typeof METRIC_AGGREGATIONS)[number];

/**
 * A billable metric. `count` counts events; `sum`, `max` and `latest` read the numeric `property` of each event;
 * `uniqueCount` counts the distinct values of `property`. `filters`: only events whose property has one of the
 * listed values count (`{ region: ['eu'] }`). `reset: period` (the default) starts from nothing each billing
 * period; `carried` keeps the last value across periods (storage held, seats active).
 */
export const BillableMetric = z
  .strictObject({
    code: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'lower-case letters, digits and _ (up to 64), starting with a letter'),
    name: z.string().min(1).max(100),
    aggregation: z.enum(METRIC_AGGREGATIONS),
    property: z.string().min(1).max(64).optional(),
    filters: z.record(z.string().min(1).max(64), z.array(z.string().min(1).max(200)).min(1)).default({}),
    reset: z.enum(['period', 'carried']).default('period'),
  })
  .superRefine((metric, ctx) => {
    if (metric.aggregation !== 'count' && metric.property === undefined) {
      ctx.addIssue({ code: 'custom', path: ['property'], message: `a ${metric.aggregation} metric reads a property: name it` });
    }
    if (metric.reset === 'carried' && !['max', 'latest'].includes(metric.aggregation)) {
      ctx.addIssue({ code: 'custom', path: ['reset'], message: 'only a max or latest metric can be carried across periods' });
    }
  });
export type BillableMetric = z.infer<typeof BillableMetric>;

/** A tier: units up to `upTo` (inclusive; null = without end) at `unitAmount` each, plus `flatAmount` once if reached. */
const UsageTier = z.strictObject({
  upTo: z.number().positive().nullable(),
  unitAmount: UnitAmount,
  flatAmount: UnitAmount.default('0'),
});

/** One currency's price of a usage charge: the fields its `model` reads. */
const UsagePrice = z.strictObject({
  currency: CurrencyCode,
  unitAmount: UnitAmount.optional(),
  packageAmount: UnitAmount.optional(),
  tiers: z.array(UsageTier).min(1).optional(),
});

export const USAGE_CHARGE_MODELS = ['perUnit', 'package', 'graduated', 'volume'] as const;
export type UsageChargeModel = (typeof USAGE_CHARGE_MODELS)[number];

/**
 * A charge a plan frequency bills in arrears on one metric: `perUnit` (unitAmount each), `package` (packageAmount
 * per started block of `packageSize`), `graduated` (each unit at its own tier's price), `volume` (every unit at
 * the price of the tier the total falls in). `freeUnits` are taken off the quantity before the model prices it.
 */
export const UsageCharge = z
  .strictObject({
    metric: z.string().min(1),
    /** The invoice line's description (unset: the metric's name). */
    name: z.string().min(1).max(100).optional(),
    model: z.enum(USAGE_CHARGE_MODELS),
    freeUnits: z.number().min(0).default(0),
    packageSize: z.number().int().positive().optional(),
    prices: z.array(UsagePrice).min(1),
  })
  .superRefine((charge, ctx) => {
    if (charge.model === 'package' && charge.packageSize === undefined) {
      ctx.addIssue({ code: 'custom', path: ['packageSize'], message: 'a package charge needs packageSize' });
    }
    const currencies = new Set<string>();
    for (const [i, price] of charge.prices.entries()) {
      if (currencies.has(price.currency)) {
        ctx.addIssue({ code: 'custom', path: ['prices', i, 'currency'], message: `${price.currency} is priced twice` });
      }
      currencies.add(price.currency);
      const needed = { perUnit: 'unitAmount', package: 'packageAmount', graduated: 'tiers', volume: 'tiers' } as const;
      const field = needed[charge.model];
      if (price[field] === undefined) {
        ctx.addIssue({ code: 'custom', path: ['prices', i, field], message: `a ${charge.model} charge needs ${field}` });
      }
      if (price.tiers) checkTiers(price.tiers, ['prices', i, 'tiers'], ctx);
    }
  });
export type UsageCharge = z.infer<typeof UsageCharge>;

function checkTiers(tiers: z.infer<typeof UsageTier>[], path: (string | number)[], ctx: z.RefinementCtx): void {
  for (const [i, tier] of tiers.entries()) {
    const last = i === tiers.length - 1;
    if (last !== (tier.upTo === null)) {
      ctx.addIssue({ code: 'custom', path: [...path, i, 'upTo'], message: 'only the last tier, and always it, has upTo null' });
    }
    const previous = i > 0 ? tiers[i - 1]?.upTo : 0;
    if (tier.upTo !== null && previous !== null && previous !== undefined && tier.upTo <= previous) {
      ctx.addIssue({ code: 'custom', path: [...path, i, 'upTo'], message: 'tiers must rise: upTo above the previous tier' });
    }
  }
}

/** The metric codes the charges name must be defined, once each; a frequency bills a metric at most once. */
export function checkUsageReferences(
  catalog: { billableMetrics: BillableMetric[]; plans: { frequencies: { usageCharges: UsageCharge[] }[] }[] },
  ctx: z.RefinementCtx,
): void {
  const codes = new Set<string>();
  for (const [i, metric] of catalog.billableMetrics.entries()) {
    if (codes.has(metric.code))
      ctx.addIssue({ code: 'custom', path: ['billableMetrics', i, 'code'], message: `${metric.code} is defined twice` });
    codes.add(metric.code);
  }
  for (const [i, plan] of catalog.plans.entries()) {
    for (const [j, frequency] of plan.frequencies.entries()) {
      const billed = new Set<string>();
      for (const [k, charge] of frequency.usageCharges.entries()) {
        const path = ['plans', i, 'frequencies', j, 'usageCharges', k, 'metric'];
        if (!codes.has(charge.metric)) ctx.addIssue({ code: 'custom', path, message: `no billable metric ${charge.metric}` });
        if (billed.has(charge.metric)) ctx.addIssue({ code: 'custom', path, message: `${charge.metric} is charged twice` });
        billed.add(charge.metric);
      }
    }
  }
}
