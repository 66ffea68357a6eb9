import type { AppContext } from '../app-context.js';
import { findAddressOfType } from '../addresses/repository.js';
import { allCountries, stateById } from '../geo/countries.js';
import type { PortalBillingAddress, PortalCountry } from './address-shape.js';

export type { PortalBillingAddress, PortalCountry } from './address-shape.js';

/**
 * The portal's billing address form: the address on file (the one the checkout stored) to prefill it, and the
 * countries it offers, each with its first-level subdivisions (the same list as GET /v1/countries).
 */

export async function portalBillingAddress(ctx: AppContext, customerId: number): Promise<PortalBillingAddress | null> {
  const row = await findAddressOfType(ctx.db, customerId, 'Billing');
  if (!row) return null;
  return {
    line1: row.line1,
    line2: row.line2,
    city: row.city,
    postalZip: row.postalZip,
    countryId: row.countryId,
    state: row.stateId === null ? null : (stateById(row.stateId)?.code ?? null),
  };
}

// Built once: the list never changes within a process.
let countries: PortalCountry[] | undefined;

export function portalCountries(): PortalCountry[] {
  countries ??= allCountries().map((c) => ({
    id: c.id,
    iso: c.iso,
    name: c.name,
    states: c.states.map((s) => ({ code: s.code, name: s.name })),
  }));
  return countries;
}
