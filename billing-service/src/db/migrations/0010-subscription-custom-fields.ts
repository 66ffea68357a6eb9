import { sql, type Kysely } from 'kysely';

/**
 * A subscription's custom fields (the spec's `customFields`): a flat object of
 * names and scalar values, stored as given by PUT /v1/subscriptions; null when
 * none were set.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table subscriptions add column custom_fields jsonb`.execute(db);
}
