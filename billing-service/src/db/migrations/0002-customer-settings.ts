import { sql, type Kysely } from 'kysely';

/** E-mail preferences per customer and the payment methods whose presence billing settings depend on. */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table customer_email_preferences (
      customer_id integer not null references customers(id) on delete cascade,
      email_type text not null,
      enabled boolean,
      primary key (customer_id, email_type)
    );

    -- Only what the gateway gives back is kept: never a card number or CVV.
    create table payment_methods (
      id integer generated always as identity primary key,
      account_id integer not null references accounts(id),
      customer_id integer not null references customers(id) on delete cascade,
      method_type text not null default 'CreditCard',
      gateway_token text not null,
      card_brand text,
      last_four text,
      expiration_month smallint,
      expiration_year smallint,
      first_name text,
      last_name text,
      address1 text,
      address2 text,
      country_id integer,
      state_id integer,
      city text,
      postal_zip text,
      email text,
      is_default boolean not null default false,
      removed_at timestamptz,
      created_at timestamptz not null default now(),
      modified_at timestamptz not null default now()
    );
    create index payment_methods_customer on payment_methods (customer_id) where removed_at is null;
    create unique index payment_methods_one_default on payment_methods (customer_id) where is_default and removed_at is null;

    alter table customer_billing_settings add column customer_billing_statement_setting jsonb;
    -- The default payment method is the payment_methods row marked is_default: one source of truth.
    alter table customer_billing_settings drop column default_payment_method_id;
  `.execute(db);
}
