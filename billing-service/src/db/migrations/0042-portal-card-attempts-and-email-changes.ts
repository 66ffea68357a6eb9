import { sql, type Kysely } from 'kysely';

/**
 * The portal's card attempts (issue 38, card testing): one row per capture token a portal session spent on a
 * card (capture_token_id unique: one token, one attempt, counted once), its outcome written once when known.
 * Declines, and attempts whose outcome never came (a crash mid-attempt), count towards the customer's hourly
 * budget on the wall clock; the index serves that count.
 * portal_email_changes: a new e-mail address a customer asked for in the portal, applied only once the link sent
 * to it is opened (one use, 24 hours; only the token's SHA-256 is kept); a newer request replaces a pending one.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table portal_card_attempts (
      id integer generated always as identity primary key,
      account_id integer not null references accounts(id),
      customer_id integer not null references customers(id) on delete cascade,
      capture_token_id integer not null unique,
      captcha_solved boolean not null,
      started_at timestamptz not null,
      outcome text check (outcome in ('declined', 'stored', 'challenged', 'failed')),
      finished_at timestamptz
    );
    create index portal_card_attempts_customer on portal_card_attempts (customer_id, started_at);
    create table portal_email_changes (
      id integer generated always as identity primary key,
      account_id integer not null references accounts(id),
      customer_id integer not null references customers(id) on delete cascade,
      new_email text not null,
      token_hash text not null unique,
      locale text,
      expires_at timestamptz not null,
      used_at timestamptz,
      superseded_at timestamptz,
      created_at timestamptz not null default now()
    );
    create index portal_email_changes_customer on portal_email_changes (customer_id) where used_at is null and superseded_at is null;
  `.execute(db);
}
