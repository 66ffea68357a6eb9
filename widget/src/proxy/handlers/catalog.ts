import type { CountryResponse, PlanResponse } from '@renew/billing-service/api-types';
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
  });
  return (await ctx.catalogPlans(exchange.headers))
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
