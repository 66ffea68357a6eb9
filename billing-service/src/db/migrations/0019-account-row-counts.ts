import { sql, type Kysely } from 'kysely';

/**
 * Rows per account of a big table, kept exact by triggers in the writing transaction, so a
 * list's X-MaxCount is a sum of a few rows instead of a count of the account's rows.
 * Each account has up to 16 slots per table, picked by the writing connection
 * (pg_backend_pid() % 16): concurrent creations on different connections update
 * different rows instead of queueing on one. Readers sum the slots.
 * Statement-level triggers with transition tables: a bulk insert is one upsert per account.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table account_row_counts (
      account_id integer not null references accounts(id) on delete cascade,
      table_name text not null,
      slot smallint not null,
      row_count bigint not null,
      primary key (account_id, table_name, slot)
    );

    create function count_inserted_account_rows() returns trigger language plpgsql as $$
    begin
      insert into account_row_counts (account_id, table_name, slot, row_count)
      select account_id, tg_table_name, pg_backend_pid() % 16, count(*) from inserted_rows group by account_id
      on conflict (account_id, table_name, slot) do update set row_count = account_row_counts.row_count + excluded.row_count;
      return null;
    end $$;

    create function count_deleted_account_rows() returns trigger language plpgsql as $$
    begin
      insert into account_row_counts (account_id, table_name, slot, row_count)
      select account_id, tg_table_name, pg_backend_pid() % 16, -count(*) from deleted_rows group by account_id
      on conflict (account_id, table_name, slot) do update set row_count = account_row_counts.row_count + excluded.row_count;
      return null;
    end $$;

    -- row level, and only when the account changes: other updates pay nothing
    create function count_moved_account_row() returns trigger language plpgsql as $$
    begin
      insert into account_row_counts (account_id, table_name, slot, row_count)
      values (old.account_id, tg_table_name, pg_backend_pid() % 16, -1), (new.account_id, tg_table_name, pg_backend_pid() % 16, 1)
      on conflict (account_id, table_name, slot) do update set row_count = account_row_counts.row_count + excluded.row_count;
      return null;
    end $$;

    create function forget_account_row_counts() returns trigger language plpgsql as $$
    begin
      delete from account_row_counts where table_name = tg_table_name;
      return null;
    end $$;

    create trigger customers_count_inserted after insert on customers
      referencing new table as inserted_rows for each statement execute function count_inserted_account_rows();
    create trigger customers_count_deleted after delete on customers
      referencing old table as deleted_rows for each statement execute function count_deleted_account_rows();
    create trigger customers_count_moved after update of account_id on customers
      for each row when (old.account_id is distinct from new.account_id) execute function count_moved_account_row();
    create trigger customers_count_truncated after truncate on customers
      for each statement execute function forget_account_row_counts();
  `.execute(db);
  // After the triggers: creating them waits for inserts in flight, so the count below misses none.
  await sql`
    insert into account_row_counts (account_id, table_name, slot, row_count)
    select account_id, 'customers', 0, count(*) from customers group by account_id
  `.execute(db);
}
