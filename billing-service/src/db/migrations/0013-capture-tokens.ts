import { sql, type Kysely } from 'kysely';

/**
 * Capture tokens: the shop's server (private key) lets the card-capture host put a card on one
 * customer, once, for a short time. Only the token's SHA-256 is kept; the token itself is shown once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table capture_tokens (
      id integer generated always as identity primary key,
      account_id integer not null references accounts(id),
      customer_id integer not null references customers(id) on delete cascade,
      token_hash text not null unique,
      max_collection_amount numeric check (max_collection_amount >= 0),
      expires_at timestamptz not null,
      spent_at timestamptz,
      created_at timestamptz not null default now()
    );
    create index capture_tokens_expiry on capture_tokens (expires_at);
  `.execute(db);
}
