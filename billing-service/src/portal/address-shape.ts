/**
 * What the portal's address form is given, shared with its page's script (type-only: this file imports nothing).
 */

/** The customer's billing address as the form shows it: the country by its id (what the form sends back), the state by its ISO 3166-2 code. */
export interface PortalBillingAddress {
  line1: string | null;
  line2: string | null;
  city: string | null;
  postalZip: string | null;
  countryId: number | null;
  /** ISO 3166-2, e.g. CA-ON. */
  state: string | null;
}

/** A country the form offers, its subdivisions by ISO 3166-2 code. */
export interface PortalCountry {
  id: number;
  /** ISO 3166-1 alpha-2: the page names the country in the customer's language from it. */
  iso: string;
  name: string;
  states: Array<{ code: string; name: string }>;
}
