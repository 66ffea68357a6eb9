import { sql, type Kysely } from 'kysely';

/**
 * 3-D Secure (issue 37).
 * - sandbox_authentications: the sandbox gateway's challenges, as an issuer's access control server keeps
 *   them: one per card that asks for authentication, Pending until its challenge page is answered.
 * - card_authentications: a capture waiting for its shopper's challenge. Only what a card may be kept as
 *   (the gateway's token once given, brand, last four, expiry, the holder's name and address), never its
 *   number or CVV; the capture's options (amount, default card, capture token) so that completing it
 *   stores the card and takes the first payment as the capture would have.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table sandbox_authentications (
      id text primary key,
      behaviour text not null,
      token text not null,
      brand text not null,
      last_four text not null,
      gateway_customer_id text not null,
      status text not null default 'Pending' check (status in ('Pending', 'Succeeded', 'Failed')),
      expires_at timestamptz not null,
      decided_at timestamptz,
      created_at timestamptz not null default now()
    );

    create table card_authentications (
      id integer generated always as identity primary key,
      public_id text not null unique,
      account_id integer not null references accounts(id),
      customer_id integer not null references customers(id),
      gateway_action_id text not null,
      challenge_url text not null,
      expires_at timestamptz not null,
      card jsonb not null,
      make_default boolean not null,
      may_not_move_default jsonb,
      collection_amount numeric,
      capture_token_id integer,
      status text not null default 'Pending' check (status in ('Pending', 'Completing', 'Succeeded', 'Failed', 'Expired')),
      claim_token text,
      claimed_until timestamptz,
      payment_method_id integer references payment_methods(id),
      payment_id integer references payments(id),
      decline_code text,
      created_at timestamptz not null default now(),
      completed_at timestamptz
    );
    create index card_authentications_customer on card_authentications (account_id, customer_id, id);
  `.execute(db);
}
