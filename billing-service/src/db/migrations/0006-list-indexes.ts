import { sql, type Kysely } from 'kysely';

/**
 * Indexes in the exact order lists sort in (ascending: nulls first, strings
 * collate "C", ties by id), so a sorted page is an index scan, not a sort of
 * every match. A backward scan serves the descending order (nulls last).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    drop index if exists customers_account_last_name;
    drop index if exists customers_account_created;
    create index customers_account_last_name on customers (account_id, last_name collate "C" nulls first, id);
    create index customers_account_first_name on customers (account_id, first_name collate "C" nulls first, id);
    create index customers_account_company_name on customers (account_id, company_name collate "C" nulls first, id);
    create index customers_account_created on customers (account_id, created_at nulls first, id);
    create index customers_account_modified on customers (account_id, modified_at nulls first, id);
    -- Case-insensitive prefix search (LastName:Smi*) as an index range.
    create index customers_account_last_name_search on customers (account_id, lower(last_name) text_pattern_ops);
    create index customers_account_first_name_search on customers (account_id, lower(first_name) text_pattern_ops);
    create index customers_account_company_name_search on customers (account_id, lower(company_name) text_pattern_ops);
    create index customers_account_primary_email_search on customers (account_id, lower(primary_email) text_pattern_ops);
    create index customers_account_reference_search on customers (account_id, lower(reference) text_pattern_ops);
  `.execute(db);
}
