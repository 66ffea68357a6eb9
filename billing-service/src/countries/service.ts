import { Refusal } from '../refusals/refusal.js';
import { allCountries, countryByAlpha2, countryById, type Country } from '../geo/countries.js';
import type { CountryResponse } from './schemas.js';
import { StaticJson } from './static-json.js';

/** Country data never changes within a process: responses are cacheable for a day. */
export const COUNTRIES_CACHE_CONTROL = 'public, max-age=86400';

function toCountryResponse(country: Country): CountryResponse {
  return {
    id: country.id,
    name: country.name,
    iso: country.iso,
    iso3: country.iso3,
    states: country.states.map((s) => ({ id: s.id, name: s.name, code: s.code })),
  };
}

// Serialized once, when the module is first loaded (at start-up, as app.ts imports the routes).
const list = new StaticJson(allCountries().map(toCountryResponse));
const alpha3 = new Map(allCountries().map((c) => [c.iso3, c]));
const single = new Map<number, StaticJson>(allCountries().map((c) => [c.id, new StaticJson(toCountryResponse(c))]));

export function countryList(): StaticJson {
  return list;
}

/** One country by its numeric id (124), alpha-2 (CA) or alpha-3 (CAN) code; 404 otherwise. */
export function oneCountry(id: string): StaticJson {
  const key = id.trim();
  let country: Country | undefined;
  if (/^\d{1,4}$/.test(key)) country = countryById(Number(key));
  else if (/^[A-Za-z]{2}$/.test(key)) country = countryByAlpha2(key);
  else if (/^[A-Za-z]{3}$/.test(key)) country = alpha3.get(key.toUpperCase());
  const found = country && single.get(country.id);
  if (!found) throw Refusal.notFound('country', id);
  return found;
}
