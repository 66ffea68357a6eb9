import { iso31661, iso31662 } from 'iso-3166';

/**
 * Countries and their subdivisions, from the iso-3166 package.
 *
 * A country's id is its ISO 3166-1 numeric code (840 United States, 124 Canada).
 * A state's id must be a stable integer; it is derived from its ISO 3166-2 code
 * alone: country id × 100000 + the subdivision part read as base 36 (CA-ON →
 * 12400887). The same code always gives the same id, whatever else the list holds.
 */
export interface State {
  id: number;
  name: string;
  code: string;
}

export interface Country {
  id: number;
  name: string;
  iso: string;
  iso3: string;
  states: State[];
}

function stateIdFor(countryId: number, code: string): number {
  const part = code.split('-')[1] ?? '';
  return countryId * 100_000 + parseInt(part.toLowerCase(), 36);
}

const countries: Country[] = iso31661
  .map((c) => ({ id: Number(c.numeric), name: c.name, iso: c.alpha2, iso3: c.alpha3, states: [] as State[] }))
  .sort((a, b) => a.name.localeCompare(b.name));
const byAlpha2 = new Map(countries.map((c) => [c.iso, c]));
const byId = new Map(countries.map((c) => [c.id, c]));
const statesById = new Map<number, State & { countryId: number }>();

for (const s of iso31662) {
  // Only first-level subdivisions (whose parent is the country itself).
  const country = byAlpha2.get(s.parent);
  if (!country) continue;
  const state = { id: stateIdFor(country.id, s.code), name: s.name, code: s.code };
  country.states.push(state);
  statesById.set(state.id, { ...state, countryId: country.id });
}
for (const c of countries) c.states.sort((a, b) => a.name.localeCompare(b.name));

export function allCountries(): readonly Country[] {
  return countries;
}

export function countryById(id: number): Country | undefined {
  return byId.get(id);
}

export function countryByAlpha2(code: string): Country | undefined {
  return byAlpha2.get(code.toUpperCase());
}

export function stateById(id: number): (State & { countryId: number }) | undefined {
  return statesById.get(id);
}

/** `CA-ON`, or `ON` within a known country. */
export function stateByCode(code: string, country?: Country): State | undefined {
  const upper = code.toUpperCase();
  const full = upper.includes('-') ? upper : country ? `${country.iso}-${upper}` : upper;
  const countryPart = byAlpha2.get(full.split('-')[0] ?? '');
  if (!countryPart || (country && countryPart.id !== country.id)) return undefined;
  return countryPart.states.find((s) => s.code === full);
}
