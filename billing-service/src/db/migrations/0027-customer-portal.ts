import { sql, type Kysely } from 'kysely';

/**
 * The customer portal (README "Customer portal"). portal_links: bearer links into the portal (a
 * session link minted by POST /v1/portalSessions, a sign-in link sent by e-mail, an e-mail action
 * link); portal_sessions: what an opened link becomes. Only the SHA-256 of each token is kept, so a
 * copy of the database opens nothing. An e-mail action link supersedes the older ones of its
 * customer and flow (superseded_at). portal_cancellations: a cancellation a customer asked for in
 * the portal, with the reason they gave, and its withdrawal (uncancel), and when the billing clock carried
 * it out (carried_out_at). capture_tokens.portal_session_id: a capture token minted by a portal session,
 * which stands in for the CAPTCHA while that session lives. customers_primary_email_first: the sign-in
 * page's lookup (the first address of primary_email, without case) by index, not by scanning customers.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table portal_links (
      id bigint generated always as identity primary key,
      account_id integer not null references accounts(id),
      customer_id integer not null references customers(id) on delete cascade,
      token_hash text not null unique,
      kind text not null check (kind in ('session', 'signIn', 'emailAction')),
      scope text not null check (scope in ('full', 'cardAndPay')),
      flow text,
      subscription_id integer,
      return_url text,
      locale text,
      expires_at timestamptz not null,
      used_at timestamptz,
      superseded_at timestamptz,
      created_at timestamptz not null default now()
    );
    create index portal_links_customer_flow on portal_links (customer_id, kind, flow) where superseded_at is null;
    create table portal_sessions (
      id bigint generated always as identity primary key,
      account_id integer not null references accounts(id),
      customer_id integer not null references customers(id) on delete cascade,
      link_id bigint not null references portal_links(id) on delete cascade,
      token_hash text not null unique,
      scope text not null check (scope in ('full', 'cardAndPay')),
      flow text,
      subscription_id integer,
      return_url text,
      locale text,
      idle_expires_at timestamptz not null,
      absolute_expires_at timestamptz not null,
      ended_at timestamptz,
      created_at timestamptz not null default now()
    );
    create index portal_sessions_customer on portal_sessions (customer_id);
    create table portal_cancellations (
      id bigint generated always as identity primary key,
      account_id integer not null references accounts(id),
      customer_id integer not null references customers(id) on delete cascade,
      subscription_id integer not null references subscriptions(id) on delete cascade,
      mode text not null check (mode in ('now', 'periodEnd')),
      reason text,
      effective_on date,
      requested_at timestamptz not null,
      withdrawn_at timestamptz,
      carried_out_at timestamptz,
      created_at timestamptz not null default now()
    );
    create index portal_cancellations_subscription on portal_cancellations (subscription_id);
    alter table capture_tokens add column portal_session_id bigint references portal_sessions(id) on delete cascade;
    create index customers_primary_email_first on customers (account_id, lower(trim(split_part(replace(primary_email, ';', ','), ',', 1))));
  `.execute(db);
}
