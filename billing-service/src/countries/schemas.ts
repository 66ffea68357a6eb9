import { z } from 'zod';

export const StateResponse = z.object({
  id: z.number().describe('State/province id for address and payment-method calls (stable: derived from the ISO 3166-2 code)'),
  name: z.string(),
  code: z.string().describe('ISO 3166-2 subdivision code, e.g. CA-ON'),
});

export const CountryResponse = z.object({
  id: z.number().describe('Country id for address and payment-method calls: the ISO 3166-1 numeric code (840 United States, 124 Canada)'),
  name: z.string(),
  iso: z.string().describe('ISO 3166-1 alpha-2 code'),
  iso3: z.string().describe('ISO 3166-1 alpha-3 code'),
  states: z.array(StateResponse).describe('First-level subdivisions (states, provinces, regions), by name'),
});
export type CountryResponse = z.infer<typeof CountryResponse>;

export const CountryIdParams = z.object({
  countryId: z.string().describe('The ISO 3166-1 numeric id (124), or instead the alpha-2 (CA) or alpha-3 (CAN) code, in any letter case'),
});
