import type { Queryable } from '../db/database.js';

/** The stored choices of one customer: only types set to true or false have a row (no row = null). */
export async function selectEmailPreferences(db: Queryable, customerId: number): Promise<Map<string, boolean | null>> {
  const rows = await db
    .selectFrom('customerEmailPreferences')
    .select(['emailType', 'enabled'])
    .where('customerId', '=', customerId)
    .execute();
  return new Map(rows.map((r) => [r.emailType, r.enabled]));
}

export async function selectEmailPreference(db: Queryable, customerId: number, emailType: string): Promise<boolean | null> {
  const row = await db
    .selectFrom('customerEmailPreferences')
    .select('enabled')
    .where('customerId', '=', customerId)
    .where('emailType', '=', emailType)
    .executeTakeFirst();
  return row?.enabled ?? null;
}

/** Replaces the customer's whole set (call inside a transaction, with the customer row locked). */
export async function replaceEmailPreferences(
  db: Queryable,
  customerId: number,
  preferences: ReadonlyArray<{ emailType: string; enabled: boolean }>,
): Promise<void> {
  await db.deleteFrom('customerEmailPreferences').where('customerId', '=', customerId).execute();
  if (preferences.length === 0) return;
  await db
    .insertInto('customerEmailPreferences')
    .values(preferences.map((p) => ({ customerId, emailType: p.emailType, enabled: p.enabled })))
    .execute();
}
