import { sql, type Kysely } from 'kysely';

/** Accounts, keys, customers and everything a customer owns, the audit log, the ledger, rate-limit counters. */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table accounts (
      id integer generated always as identity primary key,
      name text not null,
      private_key_hash text not null unique,
      public_key_hash text not null unique,
      rate_limit_per_minute integer not null default 1000,
      rate_limit_per_day integer not null default 180000,
      created_at timestamptz not null default now()
    );

    create table customers (
      id integer generated always as identity primary key,
      account_id integer not null references accounts(id),
      title text,
      first_name text,
      middle_name text,
      last_name text,
      company_name text,
      suffix text,
      primary_email text,
      primary_phone text,
      secondary_email text,
      secondary_phone text,
      reference text,
      status text not null default 'Draft',
      customer_account_status text not null default 'Good',
      currency text not null,
      crm_id text,
      crm_account_type text,
      crm_synch_status text,
      erp_id text,
      erp_synch_status text,
      erp_customer_type text,
      portal_user_name text,
      parent_id integer references customers(id),
      accounting_latch_type text,
      accounting_id integer,
      accounting_sync_token integer,
      marketing_id integer,
      lifetime_value numeric not null default 0,
      created_at timestamptz not null default now(),
      modified_at timestamptz not null default now(),
      status_at timestamptz not null default now(),
      account_status_at timestamptz not null default now()
    );
    create unique index customers_portal_user_name on customers (account_id, portal_user_name) where portal_user_name is not null;
    create index customers_account_created on customers (account_id, created_at);
    create index customers_account_last_name on customers (account_id, last_name collate "C");
    create index customers_account_status on customers (account_id, status);

    create table customer_references (
      customer_id integer primary key references customers(id) on delete cascade,
      reference1 text,
      reference2 text,
      reference3 text
    );

    create table customer_sales_tracking_codes (
      customer_id integer not null references customers(id) on delete cascade,
      position smallint not null check (position between 1 and 5),
      type text not null,
      code text not null,
      name text,
      primary key (customer_id, position)
    );

    create table customer_acquisitions (
      customer_id integer primary key references customers(id) on delete cascade,
      ad_content text,
      campaign text,
      keyword text,
      landing_page text,
      medium text,
      source text
    );

    create table customer_billing_settings (
      customer_id integer primary key references customers(id) on delete cascade,
      term text,
      interval text,
      invoice_day integer,
      auto_collect boolean,
      recharge_type text,
      recharge_threshold_amount numeric,
      recharge_target_amount numeric,
      status_on_threshold boolean,
      auto_post_draft_invoice boolean,
      customer_grace_period integer,
      grace_period_extension integer,
      customer_auto_cancel integer,
      default_cancel_option text,
      standing_po_number text,
      acquisition_cost numeric,
      show_zero_dollar_charges boolean,
      tax_exempt boolean not null default false,
      tax_exempt_code text,
      use_customer_billing_address boolean,
      tax_usage_type text,
      vat_identification_number bigint,
      customer_service_start_option text,
      roll_up_taxes boolean,
      roll_up_discounts boolean,
      post_ready_charges_on_renew boolean,
      default_payment_method_id integer,
      presentation jsonb not null default '{}'::jsonb
    );

    create table customer_billing_period_configurations (
      customer_id integer not null references customers(id) on delete cascade,
      interval text not null,
      type text not null,
      rule text not null,
      day smallint,
      month smallint,
      primary key (customer_id, interval)
    );

    create table customer_address_preferences (
      customer_id integer primary key references customers(id) on delete cascade,
      contact_name text,
      shipping_instructions text,
      use_billing_address_as_shipping_address boolean not null default false
    );

    create table addresses (
      id integer generated always as identity primary key,
      account_id integer not null references accounts(id),
      customer_id integer not null references customers(id) on delete cascade,
      address_type text not null,
      company_name text,
      line1 text,
      line2 text,
      country_id integer,
      state_id integer,
      city text,
      postal_zip text,
      valid boolean not null default true,
      unique (customer_id, address_type)
    );

    create table customer_notes (
      id integer generated always as identity primary key,
      account_id integer not null references accounts(id),
      customer_id integer not null references customers(id) on delete cascade,
      note text not null,
      user_who_created_note text,
      created_at timestamptz not null default now()
    );
    create index customer_notes_customer on customer_notes (customer_id, id);

    create table audit_log (
      id bigint generated always as identity primary key,
      account_id integer not null references accounts(id),
      actor text not null,
      source text not null,
      entity_type text not null,
      entity_id integer not null,
      action text not null,
      changes jsonb not null,
      created_at timestamptz not null default now()
    );
    create index audit_log_entity on audit_log (account_id, entity_type, entity_id);

    -- Every posted invoice, payment, credit and refund is an entry. open_amount is
    -- what is still outstanding (invoices) or unallocated (payments, credits).
    create table ledger_entries (
      id bigint generated always as identity primary key,
      account_id integer not null references accounts(id),
      customer_id integer not null references customers(id) on delete cascade,
      entry_type text not null check (entry_type in ('invoice', 'payment', 'credit', 'refund', 'opening_balance')),
      amount numeric not null,
      open_amount numeric not null,
      due_at timestamptz,
      effective_at timestamptz not null default now(),
      created_at timestamptz not null default now()
    );
    create index ledger_entries_customer on ledger_entries (customer_id, entry_type);

    create table rate_limit_counters (
      bucket text not null,
      window_start timestamptz not null,
      hits integer not null,
      primary key (bucket, window_start)
    );
  `.execute(db);
}
