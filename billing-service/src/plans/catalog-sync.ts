import { sql } from 'kysely';
import { wallClockNow } from '../clock/account-clock.js';
import type { Catalog } from '../catalog/schema.js';
import { money, sumMoney } from '../money/money.js';
import type { Db } from '../db/database.js';

/**
 * Copies the catalogue file's plans and frequencies into the database at start,
 * so that lists use the same query module as everything else and subscriptions
 * can reference them. Plans or frequencies gone from the file become Inactive
 * (subscriptions keep pointing at them). Idempotent; concurrent starts serialize
 * on an advisory lock.
 */
export async function syncCatalog(db: Db, catalog: Catalog): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(724002)`.execute(trx);
    const now = wallClockNow(); // the catalogue is the service's, not an account's
    for (const plan of catalog.plans) {
      const fields = {
        code: plan.code,
        name: plan.name,
        reference: plan.reference ?? null,
        description: plan.description ?? null,
        longDescription: plan.longDescription ?? null,
        status: plan.status,
        products: plan.products,
      };
      const existing = await trx.selectFrom('plans').selectAll().where('id', '=', plan.id).executeTakeFirst();
      // modificationTimestamp moves only when the plan really changed (jsonb does not keep key order).
      const changed =
        !existing || Object.entries(fields).some(([k, v]) => canonicalJson(existing[k as keyof typeof existing]) !== canonicalJson(v));
      const row = { ...fields, products: JSON.stringify(plan.products) };
      await trx
        .insertInto('plans')
        .values({ id: plan.id, ...row, modifiedAt: now })
        .onConflict((oc) => oc.column('id').doUpdateSet({ ...row, ...(changed ? { modifiedAt: now } : {}) }))
        .execute();
      for (const f of plan.frequencies) {
        const frequency = {
          planId: plan.id,
          interval: f.interval,
          numberOfIntervals: f.numberOfIntervals,
          isProrated: f.isProrated,
          prorationGranularity: f.prorationGranularity,
          prices: JSON.stringify(f.prices),
          charges: JSON.stringify(totalsPerCurrency(plan.products, f.prices, 'charges')),
          setupFees: JSON.stringify(totalsPerCurrency(plan.products, f.prices, 'setupFees')),
          status: 'Active',
        };
        await trx
          .insertInto('planFrequencies')
          .values({ id: f.id, ...frequency })
          .onConflict((oc) => oc.column('id').doUpdateSet(frequency))
          .execute();
      }
    }
    const planIds = catalog.plans.map((p) => p.id);
    const frequencyIds = catalog.plans.flatMap((p) => p.frequencies.map((f) => f.id));
    await trx
      .updateTable('plans')
      .set({ status: 'Inactive', modifiedAt: now })
      .where('status', '!=', 'Inactive')
      .$if(planIds.length > 0, (q) => q.where('id', 'not in', planIds))
      .execute();
    await trx
      .updateTable('planFrequencies')
      .set({ status: 'Inactive' })
      .$if(frequencyIds.length > 0, (q) => q.where('id', 'not in', frequencyIds))
      .execute();
  });
}

type PlanOf = Catalog['plans'][number];

/** JSON with object keys sorted, so equal values compare equal whatever their key order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/**
 * The plan's price per currency at its default quantities: Σ quantity × unit amount.
 * Charges list only the currencies every charged product is priced in: a product
 * without a price in a currency is not free there, the plan is not offered in it.
 */
function totalsPerCurrency(products: PlanOf['products'], prices: PlanOf['frequencies'][number]['prices'], kind: 'charges' | 'setupFees') {
  const currencies = [...new Set(prices.flatMap((p) => p[kind].map((a) => a.currency)))]
    .filter(
      (currency) => kind === 'setupFees' || prices.every((p) => p.charges.length === 0 || p.charges.some((a) => a.currency === currency)),
    )
    .sort();
  return currencies.map((currency) => ({
    currency,
    amount: sumMoney(
      prices.map((p) => {
        const quantity = products.find((product) => product.code === p.product)?.quantity ?? 0;
        return money(p[kind].find((a) => a.currency === currency)?.amount ?? 0).times(quantity);
      }),
    ).toString(),
  }));
}
