import { sql, type Kysely } from 'kysely';

/**
 * Usage thresholds (issue 41), written only by src/usage: `usage_thresholds` the quantities of a metric a subscription
 * wants to hear of (PUT /v1/subscriptions/{id}/usageThresholds replaces them), `usage_thresholds_reached` each one
 * reached in a usage period. The latter's key is the fence that fires usage.thresholdReached and its e-mail once per
 * threshold and period, whatever batches race or retry (an insert `on conflict do nothing` decides).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table usage_thresholds (
      subscription_id integer not null references subscriptions (id),
      metric_code text not null,
      quantity numeric not null,
      primary key (subscription_id, metric_code, quantity)
    );
    create table usage_thresholds_reached (
      subscription_id integer not null references subscriptions (id),
      metric_code text not null,
      quantity numeric not null,
      period_start date not null,
      reached_quantity numeric not null,
      reached_at timestamptz not null,
      primary key (subscription_id, metric_code, quantity, period_start)
    );
  `.execute(db);
}
