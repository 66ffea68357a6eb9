import { sql, type Kysely } from 'kysely';

/**
 * Lists sort text case-insensitively ("adams" before "Zed", issue 26): the sort key is
 * `lower(x) collate "C"`, nulls first ascending, ties by id. The sort indexes of 0006
 * (`x collate "C"`) no longer match that order; these replace them, so a sorted page (and
 * a prefix filter on the sort field, `LastName:S*`) is still an index walk that stops
 * after the page. A backward scan serves the descending order (nulls last).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    drop index if exists customers_account_last_name;
    drop index if exists customers_account_first_name;
    drop index if exists customers_account_company_name;
    create index customers_account_last_name_sort on customers (account_id, lower(last_name) collate "C" nulls first, id);
    create index customers_account_first_name_sort on customers (account_id, lower(first_name) collate "C" nulls first, id);
    create index customers_account_company_name_sort on customers (account_id, lower(company_name) collate "C" nulls first, id);
  `.execute(db);
}
