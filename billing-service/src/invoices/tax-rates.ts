import type { Catalog } from '../catalog/schema.js';
import { countryById, stateById } from '../geo/countries.js';
import { money, type Money } from '../money/money.js';

/**
 * The account's tax rates that apply at an address: rates for its country with
 * no state, plus rates for its state. No address (or a tax-exempt customer): none.
 */
export function taxRatesFor(
  catalog: Catalog,
  address: { countryId: number | null; stateId: number | null } | undefined,
): Array<{ name: string; rate: Money }> {
  if (!address?.countryId) return [];
  const country = countryById(address.countryId)?.iso;
  const stateCode = address.stateId ? stateById(address.stateId)?.code.split('-')[1] : undefined;
  return catalog.taxRates
    .filter((r) => r.country.toUpperCase() === country && (!r.state || r.state.toUpperCase() === stateCode))
    .map((r) => ({ name: r.name, rate: money(r.rate) }));
}
