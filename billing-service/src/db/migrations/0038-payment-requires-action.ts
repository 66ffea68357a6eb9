import { sql, type Kysely } from 'kysely';

/**
 * A payment the customer's bank holds until the customer authenticates it (3-D Secure, issue 37): an
 * off-session charge (a renewal, the API) answered "authentication required". Nothing is charged or in
 * the ledger; it ends Succeeded when the customer completes the challenge in the portal, or Failed when
 * a later payment of the customer is recorded. At most one per customer waits (the index finds it).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table payments drop constraint payments_status_check;
    alter table payments add constraint payments_status_check check (status in ('Succeeded', 'Failed', 'RequiresAction'));
    create index payments_requiring_action on payments (customer_id) where status = 'RequiresAction';
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop index payments_requiring_action;
    update payments set status = 'Failed' where status = 'RequiresAction';
    alter table payments drop constraint payments_status_check;
    alter table payments add constraint payments_status_check check (status in ('Succeeded', 'Failed'));
  `.execute(db);
}
