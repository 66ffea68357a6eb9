import { sql, type Kysely } from 'kysely';

/** The months the migration partitions ahead: from January 2025 to December 2035 (the default partition takes the rest). */
const FIRST_YEAR = 2025;
const LAST_YEAR = 2035;

/**
 * Usage events (issue 41), written only by src/usage. `usage_events` is partitioned by month on the event's time
 * (PostgreSQL declarative partitioning: a month's events are one table, dropped or moved as a whole), with a default
 * partition so an event is never refused for want of one. A unique key of a partitioned table must hold the partition
 * key, so ingestion is idempotent through `usage_event_ids` (account, transaction id), written in the same statement.
 * `usage_daily` is the rollup the reads and invoices use (per subscription, metric and UTC day: count, sum, max, the
 * latest value), `usage_unique_values` the distinct property values a uniqueCount metric counts, per day.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table usage_events (
      account_id integer not null,
      customer_id integer not null,
      subscription_id integer not null,
      metric_code text not null,
      transaction_id text not null,
      occurred_at timestamptz not null,
      value numeric,
      dimension text,
      properties jsonb not null,
      received_at timestamptz not null
    ) partition by range (occurred_at);
    create table usage_events_default partition of usage_events default;
    create index usage_events_subscription on usage_events (subscription_id, metric_code, occurred_at);
    create table usage_event_ids (
      account_id integer not null,
      transaction_id text not null,
      primary key (account_id, transaction_id)
    );
    create table usage_daily (
      account_id integer not null,
      subscription_id integer not null,
      metric_code text not null,
      day date not null,
      count bigint not null,
      sum numeric not null,
      max numeric,
      latest_value numeric,
      latest_at timestamptz,
      primary key (subscription_id, metric_code, day)
    );
    create table usage_unique_values (
      subscription_id integer not null,
      metric_code text not null,
      day date not null,
      dimension text not null,
      primary key (subscription_id, metric_code, day, dimension)
    );
  `.execute(db);
  for (let year = FIRST_YEAR; year <= LAST_YEAR; year++) {
    for (let month = 1; month <= 12; month++) {
      const from = `${year}-${String(month).padStart(2, '0')}-01`;
      const to = month === 12 ? `${year + 1}-01-01` : `${year}-${String(month + 1).padStart(2, '0')}-01`;
      const name = `usage_events_${year}_${String(month).padStart(2, '0')}`;
      await sql`create table ${sql.raw(name)} partition of usage_events for values from (${sql.lit(from)}) to (${sql.lit(to)})`.execute(db);
    }
  }
}
