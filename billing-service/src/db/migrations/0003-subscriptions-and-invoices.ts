import { sql, type Kysely } from 'kysely';

/**
 * The catalogue (plans, frequencies) as synced from the catalogue file,
 * subscriptions with their products and coupons, invoices with charges and
 * taxes, and the allocations of payments and credits to invoices.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table plans (
      id integer primary key,
      code text not null unique,
      name text not null,
      reference text,
      description text,
      long_description text,
      status text not null,
      products jsonb not null,
      modified_at timestamptz not null default now()
    );

    create table plan_frequencies (
      id integer primary key,
      plan_id integer not null references plans(id),
      interval text not null,
      number_of_intervals integer not null,
      is_prorated boolean not null,
      proration_granularity text not null,
      -- per product: unit charge and setup fee per currency
      prices jsonb not null,
      -- per currency, for the plan's default quantities (what the plan response shows)
      charges jsonb not null,
      setup_fees jsonb not null,
      status text not null
    );

    alter table accounts add column next_invoice_number integer not null default 1;

    create table subscriptions (
      id integer generated always as identity primary key,
      account_id integer not null references accounts(id),
      customer_id integer not null references customers(id) on delete cascade,
      plan_frequency_id integer not null references plan_frequencies(id),
      code text,
      name text not null,
      description text,
      reference text,
      status text not null default 'Draft',
      currency text not null,
      contract_start_at timestamptz,
      contract_end_at timestamptz,
      expires_at timestamptz,
      activated_at timestamptz,
      suspended_at timestamptz,
      cancelled_at timestamptz,
      cancellation_option text,
      current_period_start date,
      next_period_start date,
      invoices_posted integer not null default 0,
      created_at timestamptz not null default now(),
      modified_at timestamptz not null default now()
    );
    create index subscriptions_customer on subscriptions (customer_id, id);

    create table subscription_products (
      id integer generated always as identity primary key,
      subscription_id integer not null references subscriptions(id) on delete cascade,
      position smallint not null,
      product_code text not null,
      name text not null,
      description text,
      quantity numeric not null,
      catalog_price numeric not null,
      price_override numeric,
      setup_fee numeric not null,
      included boolean not null default true,
      discount_kind text,
      discount_value numeric,
      unique (subscription_id, position)
    );

    create table subscription_coupons (
      subscription_id integer not null references subscriptions(id) on delete cascade,
      coupon_code text not null,
      periods_used integer not null default 0,
      primary key (subscription_id, coupon_code)
    );

    create table invoices (
      id integer generated always as identity primary key,
      account_id integer not null references accounts(id),
      customer_id integer not null references customers(id) on delete cascade,
      invoice_number integer not null,
      status text not null check (status in ('Draft', 'Posted', 'Void')),
      currency text not null,
      terms text not null,
      po_number text,
      effective_at timestamptz not null,
      posted_at timestamptz,
      due_at timestamptz not null,
      subtotal numeric not null,
      total_discount numeric not null,
      total_taxes numeric not null,
      total numeric not null,
      created_at timestamptz not null default now(),
      unique (account_id, invoice_number)
    );
    create index invoices_customer on invoices (customer_id, id);

    create table invoice_charges (
      id integer generated always as identity primary key,
      invoice_id integer not null references invoices(id) on delete cascade,
      subscription_id integer references subscriptions(id),
      position smallint not null,
      kind text not null,
      product_code text not null,
      name text not null,
      description text,
      quantity numeric not null,
      unit_price numeric not null,
      prorated_unit_price numeric not null,
      amount numeric not null,
      taxable_amount numeric not null,
      start_service_date date not null,
      end_service_date date not null,
      discounts jsonb not null
    );
    create index invoice_charges_invoice on invoice_charges (invoice_id, position);

    create table invoice_taxes (
      invoice_id integer not null references invoices(id) on delete cascade,
      position smallint not null,
      name text not null,
      rate numeric not null,
      amount numeric not null,
      primary key (invoice_id, position)
    );

    alter table ledger_entries add column invoice_id integer references invoices(id);
    alter table ledger_entries add column description text;
    create unique index ledger_entries_invoice on ledger_entries (invoice_id) where entry_type = 'invoice';

    -- Funds (payment, credit) applied to an invoice's entry.
    create table ledger_allocations (
      id bigint generated always as identity primary key,
      account_id integer not null references accounts(id),
      source_entry_id bigint not null references ledger_entries(id),
      invoice_entry_id bigint not null references ledger_entries(id),
      amount numeric not null check (amount > 0),
      created_at timestamptz not null default now()
    );
    create index ledger_allocations_invoice on ledger_allocations (invoice_entry_id);
    create index ledger_allocations_source on ledger_allocations (source_entry_id);
  `.execute(db);
}
