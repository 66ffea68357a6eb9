/** The catalogue file (`@renew/billing-service/catalog`): its type, and reading and checking it. */
export type { Catalog } from './schema.js';
export { loadCatalog, parseCatalog } from './load-catalog.js';
export { merchantBranding, type MerchantBranding } from './branding.js';
