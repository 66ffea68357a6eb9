import type { Catalog } from '../catalog/schema.js';
import type { Queryable } from '../db/database.js';
import { isStorableId } from '../db/ids.js';
import { selectEmailPreference } from './repository.js';
import type { EmailType } from './schemas.js';

/** Whether a customer gets an e-mail type: what senders (the notifier) ask, apart from the HTTP service. */

/** The account default of a type: as the catalogue's defaults.emailPreferences says; a type it does not list is sent (true). */
export function accountDefault(catalog: Catalog, emailType: EmailType): boolean {
  return catalog.defaults.emailPreferences[emailType] ?? true;
}

/**
 * Whether an e-mail of this type goes to the customer: the customer's choice
 * when set, else the account default. For modules that send e-mails; the
 * customer is expected to have been found (and scoped to its account) already.
 */
export async function isEmailEnabled(db: Queryable, catalog: Catalog, customerId: number, emailType: EmailType): Promise<boolean> {
  const enabled = isStorableId(customerId) ? await selectEmailPreference(db, customerId, emailType) : null;
  return enabled ?? accountDefault(catalog, emailType);
}
