import { Refusal } from '../refusals/refusal.js';
import { countryByAlpha2, countryById, stateByCode, stateById, type Country } from './countries.js';

export interface LocationInput {
  /** ISO 3166-1 numeric id, or a 2-letter code. */
  country?: number | string | null;
  /** The stable state id, or an ISO 3166-2 code (`CA-ON`, or `ON` within the country). */
  state?: number | string | null;
}

export interface ResolvedLocation {
  countryId: number | null;
  stateId: number | null;
}

/**
 * Turns what a client sent into stored ids, or a 400 keyed on the field at
 * fault: an unknown country or state, or a state outside the given country.
 * A state alone implies its country.
 */
export function resolveLocation(input: LocationInput, keys: { country: string; state: string }): ResolvedLocation {
  let country: Country | undefined;
  if (input.country !== null && input.country !== undefined && input.country !== '') {
    country =
      typeof input.country === 'number' || /^\d+$/.test(input.country)
        ? countryById(Number(input.country))
        : countryByAlpha2(input.country);
    if (!country) throw Refusal.invalid(`unknown country ${JSON.stringify(input.country)}`, keys.country, 'value_invalid');
  }
  if (input.state === null || input.state === undefined || input.state === '') {
    return { countryId: country?.id ?? null, stateId: null };
  }
  const byId = typeof input.state === 'number' || /^\d+$/.test(input.state) ? stateById(Number(input.state)) : undefined;
  const state = byId ?? (typeof input.state === 'string' && !/^\d+$/.test(input.state) ? stateByCode(input.state, country) : undefined);
  if (!state) {
    throw Refusal.invalid(
      country ? `unknown state ${JSON.stringify(input.state)} in ${country.name}` : `unknown state ${JSON.stringify(input.state)}`,
      keys.state,
      'value_invalid',
    );
  }
  // an ISO 3166-2 code starts with its country's alpha-2 code (US-NY), and the state table holds only known countries'
  const stateCountry = countryByAlpha2(state.code.slice(0, 2));
  if (!stateCountry) throw new Error(`state ${state.code} names no known country`);
  if (country && stateCountry.id !== country.id) {
    throw Refusal.invalid(`state ${state.code} is not in ${country.name}`, keys.state, 'value_invalid');
  }
  return { countryId: stateCountry.id, stateId: state.id };
}

/** Names for a response: `country` and `state` next to their ids. */
export function locationNames(countryId: number | null, stateId: number | null): { country: string | null; state: string | null } {
  return {
    country: countryId === null ? null : (countryById(countryId)?.name ?? null),
    state: stateId === null ? null : (stateById(stateId)?.name ?? null),
  };
}
