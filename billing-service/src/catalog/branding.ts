import type { Catalog } from './schema.js';

/** The merchant as its customers see it, in e-mails and on the portal's pages (catalogue `emails`). */
export interface MerchantBranding {
  name: string;
  /** An https URL; null: the name alone. */
  logoUrl: string | null;
  /** #rrggbb, as the catalogue gives it. */
  color: string;
}

export function merchantBranding(catalog: Catalog): MerchantBranding {
  return {
    name: catalog.emails.brandName ?? catalog.account.name,
    logoUrl: catalog.emails.logoUrl ?? null,
    color: catalog.emails.brandColor,
  };
}
