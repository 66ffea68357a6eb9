import { sql } from 'kysely';
import type { Queryable } from '../../db/database.js';
import { monthsPerPeriodSql } from '../../plans/repository.js';

/** One instant the revenue is read at: a month end (the first instant of the next month) or now. */
export interface RevenuePoint {
  index: number;
  at: Date;
  /** The service day the invoice lines must cover: the month's last day (YYYY-MM-DD), or today's for now. */
  day: string;
  isNow: boolean;
}

/** Per currency and point: MRR, its movements from the point before, active and churned customers. */
export interface RevenueRow {
  currency: string;
  point: number;
  mrr: string;
  newMrr: string;
  expansion: string;
  contraction: string;
  churn: string;
  active: number;
  churned: number;
}

/**
 * MRR at each point, per subscription, summed per currency in SQL (one statement; cost in README).
 * A subscription counts at a month end when it was activated before it and not cancelled (or suspended, while it
 * still is) by then; its value is that of the recurring invoice lines covering the month's last day (the latest
 * invoice's: a plan change's lines replace the period's), as plans/recurring-revenue.ts computes it: each line
 * quantity × unit price rounded to the currency, their sum over the months of the line's full period, rounded.
 * The full period is the line's length over its proration factor (unit price / prorated unit price), in months.
 * At `now`: the Active subscriptions and their products, as GET /v1/subscriptions computes monthlyRecurringRevenue.
 */
export async function revenueByCurrencyAndPoint(
  db: Queryable,
  accountId: number,
  points: RevenuePoint[],
  currencyDecimals: Array<{ code: string; decimals: number }>,
): Promise<RevenueRow[]> {
  const first = points[0];
  const last = points.at(-1);
  if (!first || !last) return [];
  const pointValues = sql.join(
    points.map((p) => sql`(${p.index}::int, ${p.at.toISOString()}::timestamptz, ${p.day}::date, ${p.isNow}::boolean)`),
  );
  const currencies = currencyDecimals.length
    ? sql.join(currencyDecimals.map((c) => sql`(${c.code}::text, ${c.decimals}::int)`))
    : sql`(''::text, 2::int)`;
  const result = await sql<{
    currency: string;
    point: number;
    mrr: string;
    newMrr: string;
    expansion: string;
    contraction: string;
    churn: string;
    active: string | number;
    churned: string | number;
  }>`
    with points (idx, at, day, is_now) as (values ${pointValues}),
    currency_decimals (code, decimals) as (values ${currencies}),
    ${subscriptionValues(accountId, first.at, last.at)}
    ${MOVEMENTS}
  `.execute(db);
  return result.rows.map((row) => ({ ...row, point: Number(row.point), active: Number(row.active), churned: Number(row.churned) }));
}

/**
 * The subscriptions live at some point (subs), their value from their products (now) and from the
 * invoice lines covering each month end (line_value), per month normalised as MONTHS_PER_INTERVAL says.
 */
function subscriptionValues(accountId: number, first: Date, last: Date) {
  return sql`
    subs as (
      select s.id, s.customer_id, s.currency, s.status, s.activated_at, s.cancelled_at, s.suspended_at,
        ${monthsPerPeriodSql('pf.interval', 'pf.number_of_intervals')} as months,
        coalesce(cd.decimals, 2) as decimals
      from subscriptions s
      join plan_frequencies pf on pf.id = s.plan_frequency_id
      left join currency_decimals cd on cd.code = s.currency
      where s.account_id = ${accountId} and s.activated_at is not null and s.activated_at <= ${last.toISOString()}::timestamptz
        and (s.cancelled_at is null or s.cancelled_at >= ${first.toISOString()}::timestamptz)
    ),
    product_value as (
      select s.id,
        round(coalesce(sum(round(sp.quantity * coalesce(sp.price_override, sp.catalog_price), s.decimals)) filter (where sp.included), 0)
          / s.months, s.decimals) as mrr
      from subs s join subscription_products sp on sp.subscription_id = s.id
      group by s.id, s.months, s.decimals
    ),
    covering as (
      select s.id, p.idx, ic.invoice_id, ic.start_service_date, ic.end_service_date, ic.quantity, ic.unit_price, ic.prorated_unit_price,
        s.decimals, s.months,
        rank() over (partition by s.id, p.idx order by ic.start_service_date desc, ic.invoice_id desc) as latest
      from subs s
      join invoice_charges ic on ic.subscription_id = s.id and ic.kind = 'Recurring'
      join points p on not p.is_now and ic.start_service_date <= p.day and ic.end_service_date > p.day
      join invoices i on i.id = ic.invoice_id and i.status <> 'Void'
    ),
    line_value as (
      select id, idx,
        round(sum(round(quantity * unit_price, decimals)) / max(line_months), max(decimals)) as mrr
      from (
        select c.*,
          case when c.prorated_unit_price > 0 and c.unit_price > 0
            then greatest(1, round((c.end_service_date - c.start_service_date) * c.unit_price / c.prorated_unit_price / (365.25 / 12)))
            else c.months end as line_months
        from covering c where c.latest = 1
      ) lines
      group by id, idx
    ),
  `;
}

/** From each subscription's value per point: the totals per currency, their movements, and the customers active and churned. */
const MOVEMENTS = sql`
    grid as (
      select s.id, s.customer_id, s.currency, p.idx,
        case when p.is_now then s.status = 'Active'
          else s.activated_at < p.at and (s.cancelled_at is null or s.cancelled_at >= p.at)
            and not (s.status = 'Suspended' and s.suspended_at is not null and s.suspended_at < p.at) end as active,
        case when p.is_now then pv.mrr else lv.mrr end as line_mrr,
        pv.mrr as product_mrr
      from subs s cross join points p
      left join product_value pv on pv.id = s.id
      left join line_value lv on lv.id = s.id and lv.idx = p.idx
    ),
    valued as (
      select id, customer_id, currency, idx, active,
        case when active then coalesce(line_mrr, product_mrr, 0) else 0 end as mrr
      from grid
    ),
    moved as (
      select *, coalesce(lag(mrr) over (partition by id order by idx), 0) as before from valued
    ),
    by_customer as (
      select customer_id, currency, idx, bool_or(active) as active from valued group by customer_id, currency, idx
    ),
    customer_moves as (
      select *, coalesce(lag(active) over (partition by customer_id, currency order by idx), false) as was_active from by_customer
    ),
    money_totals as (
      select currency, idx,
        sum(mrr) as mrr,
        coalesce(sum(mrr) filter (where before = 0 and mrr > 0), 0) as new_mrr,
        coalesce(sum(mrr - before) filter (where before > 0 and mrr > before), 0) as expansion,
        coalesce(sum(before - mrr) filter (where mrr > 0 and mrr < before), 0) as contraction,
        coalesce(sum(before) filter (where before > 0 and mrr = 0), 0) as churn
      from moved group by currency, idx
    ),
    customer_totals as (
      select currency, idx, count(*) filter (where active) as active, count(*) filter (where was_active and not active) as churned
      from customer_moves group by currency, idx
    )
    select m.currency, m.idx as point, m.mrr::text as mrr, m.new_mrr::text as new_mrr, m.expansion::text as expansion,
      m.contraction::text as contraction, m.churn::text as churn, ct.active, ct.churned
    from money_totals m join customer_totals ct on ct.currency = m.currency and ct.idx = m.idx
    order by m.currency, m.idx
`;

/**
 * Write-offs (issue 40) per currency (their invoice's) and month (YYYY-MM, UTC) from `from` to `to`: what the
 * `write_off` ledger entries dated then closed (a write-off a later refund grew counts in full in its own month).
 */
export async function writeOffsByCurrencyAndMonth(
  db: Queryable,
  accountId: number,
  from: Date,
  to: Date,
): Promise<Array<{ currency: string; month: string; amount: string }>> {
  const result = await sql<{ currency: string; month: string; amount: string }>`
    select i.currency, to_char(w.effective_at at time zone 'UTC', 'YYYY-MM') as month, sum(w.amount)::text as amount
    from ledger_entries w join invoices i on i.id = w.invoice_id
    where w.account_id = ${accountId} and w.entry_type = 'write_off'
      and w.effective_at >= ${from.toISOString()}::timestamptz and w.effective_at <= ${to.toISOString()}::timestamptz
    group by 1, 2`.execute(db);
  return result.rows;
}
