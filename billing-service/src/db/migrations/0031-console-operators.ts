import { sql, type Kysely } from 'kysely';

/**
 * The merchant console (README "Console"). operators: an account's staff who sign in with e-mail and
 * password (argon2id), with an optional TOTP second factor; the e-mail is kept lower-cased, unique per
 * account among operators not removed. operator_sessions: a signed-in browser (only the SHA-256 of the
 * cookie's token is kept; the CSRF token is derived from the token, so nothing else is stored), with
 * a sliding idle expiry and an absolute cap. operator_invitations: a one-use link (SHA-256 of a 256-bit
 * token) that creates an operator with the role it names; `first_owner`: the link `npm start` prints when
 * the account has no operator yet. operator_sign_in_failures: failed sign-ins per e-mail and per client
 * address, in the database so that instances sharing it throttle together.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table operators (
      id integer generated always as identity primary key,
      account_id integer not null references accounts(id),
      email text not null check (email = lower(email)),
      name text not null,
      role text not null check (role in ('owner', 'billing', 'support', 'viewer')),
      password_hash text not null,
      totp_secret text,
      totp_enabled boolean not null default false,
      totp_last_step bigint,
      created_at timestamptz not null default now(),
      last_sign_in_at timestamptz,
      deleted_at timestamptz
    );
    create unique index operators_account_email on operators (account_id, email) where deleted_at is null;
    create index operators_email on operators (email) where deleted_at is null;
    create table operator_sessions (
      id bigint generated always as identity primary key,
      account_id integer not null references accounts(id),
      operator_id integer not null references operators(id) on delete cascade,
      token_hash text not null unique,
      created_at timestamptz not null default now(),
      last_seen_at timestamptz not null,
      idle_expires_at timestamptz not null,
      absolute_expires_at timestamptz not null,
      ended_at timestamptz
    );
    create index operator_sessions_operator on operator_sessions (operator_id) where ended_at is null;
    create table operator_invitations (
      id integer generated always as identity primary key,
      account_id integer not null references accounts(id),
      token_hash text not null unique,
      email text check (email = lower(email)),
      role text not null check (role in ('owner', 'billing', 'support', 'viewer')),
      invited_by integer references operators(id) on delete set null,
      first_owner boolean not null default false,
      expires_at timestamptz not null,
      accepted_at timestamptz,
      accepted_operator_id integer references operators(id) on delete set null,
      created_at timestamptz not null default now()
    );
    create index operator_invitations_account on operator_invitations (account_id) where accepted_at is null;
    create table operator_sign_in_failures (
      id bigint generated always as identity primary key,
      scope text not null check (scope in ('email', 'ip')),
      key text not null,
      failed_at timestamptz not null
    );
    create index operator_sign_in_failures_key on operator_sign_in_failures (scope, key, failed_at);
  `.execute(db);
}
