import type { AppContext } from '../app-context.js';
import type { BillableMetric } from '../catalog/usage-schema.js';
import type { Caller } from '../http/auth.js';
import { validationError } from '../http/validation.js';
import { money } from '../money/money.js';
import type { ErrorItem } from '../refusals/error-codes.js';
import { findUsageTargets, lockUsagePeriods, storeEvents, type StoredEvent, type UsageTarget } from './repository.js';
import { usageWindowStart } from './quantities.js';
import { fireReachedThresholds } from './thresholds.js';
import { UsageEventInput, type UsageEventsResponse } from './schemas.js';

/** How far ahead of the account's clock an event may be dated (clients' clocks drift). */
export const FUTURE_SKEW_MS = 5 * 60_000;

/**
 * POST /v1/usageEvents (issue 41): each event checked on its own, the good ones stored in one statement (repository
 * storeEvents), idempotent per account on transactionId. An event is refused (in `refused`, keyed `[i].field`) when it
 * is malformed, names no customer of the account, a metric the catalogue does not define or no subscription of the
 * customer (Active or Suspended) charges, is dated more than 5 minutes ahead or before the subscription's current
 * period (the period the next invoice bills), or lacks the property its metric reads. An event a metric's filters
 * exclude is stored, acknowledged and not counted.
 */
export async function ingestUsageEvents(ctx: AppContext, caller: Caller, body: unknown): Promise<UsageEventsResponse> {
  const items = Array.isArray(body) ? body : [body];
  const now = await ctx.clock.now(caller.accountId);
  const refused: UsageEventsResponse['refused'] = [];
  const parsed: Array<{ index: number; event: UsageEventInput }> = [];
  for (const [index, item] of items.entries()) {
    const result = UsageEventInput.safeParse(item);
    if (!result.success) refused.push({ index, errors: prefixed(validationError(result.error.issues, item).errors, index) });
    else if (result.data.customerId == null && result.data.customerReference == null)
      refused.push({
        index,
        errors: [{ Key: `[${index}].customerId`, Value: 'give customerId or customerReference', Code: 'value_required' }],
      });
    else parsed.push({ index, event: result.data });
  }
  const targets = await findUsageTargets(
    ctx.db,
    caller.accountId,
    [...new Set(parsed.flatMap(({ event }) => (event.customerId == null ? [] : [event.customerId])))],
    [...new Set(parsed.flatMap(({ event }) => (event.customerReference == null ? [] : [event.customerReference])))],
  );
  const charged = chargedMetricsByFrequency(ctx);
  const stored: Array<{ index: number; event: StoredEvent }> = [];
  for (const { index, event } of parsed) {
    const checked = checkEvent(ctx, caller, event, targets, charged, now);
    if ('errors' in checked) refused.push({ index, errors: prefixed(checked.errors, index) });
    else stored.push({ index, event: checked });
  }
  const fresh = await ctx.db.transaction().execute(async (trx) => {
    // checked again under the subscriptions' share lock: a renewal that invoiced a period meanwhile refuses its events
    const periods = await lockUsagePeriods(trx, [...new Set(stored.map((e) => e.event.subscriptionId))]);
    const still = stored.filter(({ index, event }) => {
      const late = invoicedMeanwhile(event, periods);
      if (late) refused.push({ index, errors: prefixed([late], index) });
      return !late;
    });
    const fresh = await storeEvents(
      trx,
      still.map((e) => e.event),
      now,
    );
    const counted = still.filter((e) => e.event.counted && fresh.has(e.event.transactionId)).map((e) => e.event);
    await fireReachedThresholds(ctx, trx, caller.accountId, counted, periods, now);
    return { count: fresh.size, of: still.length };
  });
  refused.sort((a, b) => a.index - b.index);
  return { accepted: fresh.count, duplicates: fresh.of - fresh.count, refused };
}

/** The refusal of an event whose subscription has, since it was checked, been renewed past its date or ended. */
function invoicedMeanwhile(event: StoredEvent, periods: Awaited<ReturnType<typeof lockUsagePeriods>>): ErrorItem | null {
  const subscription = periods.find((p) => p.id === event.subscriptionId);
  if (!subscription || !['Active', 'Suspended'].includes(subscription.status))
    return { Key: 'customerId', Value: 'the subscription charging this metric has ended', Code: 'usage_not_charged' };
  const start = usageWindowStart(subscription);
  if (start !== null && new Date(event.occurredAt) < new Date(`${start}T00:00:00Z`)) return outOfPeriod(start);
  return null;
}

function outOfPeriod(start: string): ErrorItem {
  return {
    Key: 'timestamp',
    Value: `is before the subscription's unbilled usage (from ${start}): the usage before it has been invoiced`,
    Code: 'usage_out_of_period',
  };
}

function prefixed(errors: ErrorItem[], index: number): ErrorItem[] {
  return errors.map((e) => ({ ...e, Key: e.Key === 'Api Error' ? `[${index}]` : `[${index}].${e.Key}` }));
}

/** Per catalogue plan frequency id: the metrics its usage charges bill. */
function chargedMetricsByFrequency(ctx: AppContext): Map<number, Set<string>> {
  const byFrequency = new Map<number, Set<string>>();
  for (const plan of ctx.catalog.plans)
    for (const frequency of plan.frequencies) byFrequency.set(frequency.id, new Set(frequency.usageCharges.map((c) => c.metric)));
  return byFrequency;
}

type Checked = StoredEvent | { errors: ErrorItem[] };

function checkEvent(
  ctx: AppContext,
  caller: Caller,
  event: UsageEventInput,
  targets: UsageTarget[],
  charged: Map<number, Set<string>>,
  now: Date,
): Checked {
  const refuse = (Key: string, Value: string, Code: ErrorItem['Code']): Checked => ({ errors: [{ Key, Value, Code }] });
  const metric = ctx.catalog.billableMetrics.find((m) => m.code === event.metricCode);
  if (!metric) return refuse('metricCode', `the catalogue defines no billable metric ${event.metricCode}`, 'value_invalid');
  const ofCustomer = targets.filter((t) =>
    event.customerId != null ? t.customerId === event.customerId : t.reference === event.customerReference,
  );
  const customerKey = event.customerId != null ? 'customerId' : 'customerReference';
  if (ofCustomer.length === 0) return refuse(customerKey, 'no customer of this account has it', 'not_found');
  const subscription = ofCustomer.find((t) => t.subscriptionId > 0 && charged.get(t.planFrequencyId)?.has(metric.code));
  if (!subscription)
    return refuse('metricCode', `no Active or Suspended subscription of the customer charges ${metric.code}`, 'usage_not_charged');
  const occurredAt = new Date(event.timestamp);
  if (occurredAt.getTime() > now.getTime() + FUTURE_SKEW_MS)
    return refuse('timestamp', 'is more than 5 minutes ahead of the account clock', 'usage_out_of_period');
  const start = usageWindowStart(subscription);
  if (start !== null && occurredAt < new Date(`${start}T00:00:00Z`)) return { errors: [outOfPeriod(start)] };
  const read = readProperty(metric, event.properties);
  if ('errors' in read) return read;
  return {
    accountId: caller.accountId,
    customerId: subscription.customerId,
    subscriptionId: subscription.subscriptionId,
    metricCode: metric.code,
    transactionId: event.transactionId,
    occurredAt: occurredAt.toISOString(),
    value: read.value,
    dimension: read.dimension,
    counted: passesFilters(metric, event.properties),
    properties: event.properties,
  };
}

/** The value a metric reads of the event: a number (sum, max, latest), a value to count once (uniqueCount). */
function readProperty(
  metric: BillableMetric,
  properties: UsageEventInput['properties'],
): { value: string | null; dimension: string | null } | { errors: ErrorItem[] } {
  if (metric.aggregation === 'count' || metric.property === undefined) return { value: null, dimension: null };
  const raw = properties[metric.property];
  const Key = `properties.${metric.property}`;
  if (raw === undefined || raw === null || raw === '')
    return { errors: [{ Key, Value: `a ${metric.aggregation} metric reads this property`, Code: 'value_required' }] };
  if (metric.aggregation === 'uniqueCount') return { value: null, dimension: String(raw) };
  const text = String(raw);
  if (typeof raw === 'boolean' || !/^-?\d{1,15}(\.\d{1,15})?$/.test(text))
    return { errors: [{ Key, Value: 'must be a decimal number (at most 15 digits before and after the point)', Code: 'value_invalid' }] };
  return { value: money(text).toString(), dimension: null };
}

function passesFilters(metric: BillableMetric, properties: UsageEventInput['properties']): boolean {
  return Object.entries(metric.filters).every(([property, accepted]) => {
    const value = properties[property];
    return value !== undefined && value !== null && accepted.includes(String(value));
  });
}
