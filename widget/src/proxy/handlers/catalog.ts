import type { CountryResponse, PlanResponse, UsageChargeResponse } from '@renew/billing-service/api-types';
import type { CheckoutConfig, CountryOption, PlanOption } from '../../checkout-contract.js';
import type { Exchange, ProxyContext } from '../proxy-context.js';

/** What the browser needs before step 1: the capture host, the public key, the CAPTCHA, the currency, its own address. */
export async function config(ctx: ProxyContext, exchange: Exchange): Promise<CheckoutConfig> {
  const { options } = ctx;
  return {
    captureUrl: options.captureUrl,
    publicApiKey: options.publicApiKey,
    captcha: { mode: options.captcha.mode, siteKey: options.captcha.siteKey, scriptUrl: options.captcha.scriptUrl ?? null },
    currency: options.currency,
    clientIp: exchange.ip,
  };
}

/** Step 1: the plans on sale, one option per plan frequency priced in the shop's currency. */
export async function plans(ctx: ProxyContext, exchange: Exchange): Promise<PlanOption[]> {
  const currency = ctx.options.currency;
  const inCurrency = (prices: Array<{ amount: number; currency: string }>) => prices.find((p) => p.currency === currency);
  const toOption = (plan: PlanResponse, f: PlanResponse['planFrequencies'][number]): PlanOption => ({
    planFrequencyId: f.id,
    planCode: plan.code,
    planName: plan.name,
    description: plan.description,
    interval: f.interval,
    numberOfIntervals: f.numberOfIntervals,
    currency,
    recurringPrice: ctx.amount(Number(inCurrency(f.charges)?.amount ?? 0)),
    setupFee: ctx.amount(Number(inCurrency(f.setupFees)?.amount ?? 0)),
    quantityChoosable: plan.planProducts.some((p) => p.maxQuantity !== undefined),
    usage: usageCharges.filter((c) => c.planFrequencyId === f.id).flatMap((charge) => usagePrice(charge, currency)),
  });
  const [catalogPlans, usageCharges] = await Promise.all([ctx.catalogPlans(exchange.headers), ctx.usageCharges(exchange.headers)]);
  return catalogPlans
    .filter((plan) => plan.status === 'Active')
    .flatMap((plan) => plan.planFrequencies.filter((f) => f.status === 'Active' && inCurrency(f.charges)).map((f) => toOption(plan, f)));
}

export async function countries(ctx: ProxyContext, exchange: Exchange): Promise<CountryOption[]> {
  exchange.headers.set('cache-control', 'public, max-age=3600');
  return ctx.sharedAnswer('countries', 3_600_000, async () => {
    await ctx.spendShoppersShare(exchange.headers);
    return ctx.billing.call<CountryResponse[]>('GET', '/v1/countries');
  });
}

/**
 * A usage charge as a shopper reads it: the units free each period (the charge's free units, and a graduated
 * charge's leading tiers priced at nothing), then the first price paid, per unit or per package.
 */
function usagePrice(charge: UsageChargeResponse, currency: string): PlanOption['usage'] {
  const price = charge.prices.find((p) => p.currency === currency);
  if (!price) return [];
  const base = { name: charge.name, free: charge.freeUnits, per: 1, from: false };
  if (charge.model === 'perUnit') return [{ ...base, unitAmount: price.unitAmount ?? '0' }];
  if (charge.model === 'package') return [{ ...base, unitAmount: price.packageAmount ?? '0', per: charge.packageSize ?? 1 }];
  const tiers = price.tiers ?? [];
  const isFree = (tier: (typeof tiers)[number]) => Number(tier.unitAmount) === 0 && Number(tier.flatAmount) === 0;
  const freeTiers = charge.model === 'graduated' ? tiers.findIndex((tier) => !isFree(tier)) : 0;
  const paid = tiers.slice(Math.max(0, freeTiers));
  const freeUpTo = freeTiers > 0 ? (tiers[freeTiers - 1]?.upTo ?? 0) : 0;
  const first = paid[0];
  if (!first) return [];
  return [{ ...base, free: base.free + freeUpTo, unitAmount: first.unitAmount, from: paid.length > 1 || charge.model === 'volume' }];
}
