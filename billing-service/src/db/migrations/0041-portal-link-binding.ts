import { sql, type Kysely } from 'kysely';

/**
 * portal_links.browser_nonce_hash: a sign-in link is bound to the browser that asked for it (the SHA-256 of
 * the nonce in that browser's cookie); opened elsewhere it asks the customer to confirm first.
 * operator_sign_in_failures.scope 'pair': failures per (e-mail, client address), so one address's wrong
 * passwords slow that address only and never lock the operator out everywhere.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table portal_links add column browser_nonce_hash text;
    alter table operator_sign_in_failures drop constraint operator_sign_in_failures_scope_check;
    alter table operator_sign_in_failures add constraint operator_sign_in_failures_scope_check check (scope in ('email', 'ip', 'pair'));
  `.execute(db);
}
