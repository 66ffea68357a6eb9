import { html, nothing } from 'lit';
import { get } from '../api.js';
import { date, money, number, t } from '../i18n.js';
import { type Loaded, settle, show } from '../page.js';
import type { Subscription } from './customer-model.js';

/** A subscription's usage this period (issue 41), as GET /v1/subscriptions/{id}/usage answers it. */
export interface SubscriptionUsage {
  subscriptionId: number;
  currency: string;
  /** UTC dates; the end is the next period's start. */
  periodStart: string;
  periodEnd: string;
  metrics: Array<{ metricCode: string; name: string; quantity: number; billedUnits: number; amount: number }>;
  amount: number;
}

/**
 * The usage so far of the customer's Active and Suspended subscriptions (those usage events are counted for), each
 * through the API; only the subscriptions whose plan charges usage are kept (the others answer no metrics).
 */
export async function loadUsage(subscriptions: Loaded<Subscription[]>): Promise<Loaded<SubscriptionUsage[]>> {
  if (subscriptions.state !== 'ok') return { state: 'ok', value: [] };
  const live = subscriptions.value.filter((s) => s.status === 'Active' || s.status === 'Suspended');
  const usage = Promise.all(live.map((s) => get<SubscriptionUsage>(`/v1/subscriptions/${s.id}/usage`)));
  return settle(usage.then((all) => all.filter((u) => u.metrics.length > 0)));
}

/** "Usage this period": per metered subscription its period, each metric's quantity, billed units and amount so far, the total. */
export function usageSection(usage: Loaded<SubscriptionUsage[]> | undefined, subscriptions: Loaded<Subscription[]>) {
  // Nothing for a customer without metered subscriptions, nor while it is not known yet.
  if (!usage || usage.state === 'loading' || (usage.state === 'ok' && usage.value.length === 0)) return nothing;
  const planOf = (id: number) => (subscriptions.state === 'ok' ? (subscriptions.value.find((s) => s.id === id)?.planName ?? '') : '');
  return html`<section aria-labelledby="usage-title">
    <h2 id="usage-title">${t('usageTitle')}</h2>
    ${show(usage, (rows) => html`${rows.map((row) => usageTable(row, planOf(row.subscriptionId)))}`)}
  </section>`;
}

function usageTable(usage: SubscriptionUsage, plan: string) {
  const quantity = (value: number) => number(value, { maximumFractionDigits: 6 });
  return html`<div class="table-wrap" data-usage=${usage.subscriptionId}><table>
    <caption>${t('usageCaption', { id: usage.subscriptionId, plan, from: date(usage.periodStart), to: date(usage.periodEnd) })}</caption>
    <thead><tr><th scope="col">${t('colMetric')}</th><th scope="col" class="num">${t('colQuantity')}</th><th scope="col" class="num">${t('colBilledUnits')}</th><th scope="col" class="num">${t('colAmountSoFar')}</th></tr></thead>
    <tbody>
      ${usage.metrics.map(
        (metric) => html`<tr data-metric=${metric.metricCode}>
          <td>${metric.name}</td><td class="num">${quantity(metric.quantity)}</td><td class="num">${quantity(metric.billedUnits)}</td>
          <td class="num">${money(metric.amount, usage.currency)}</td>
        </tr>`,
      )}
    </tbody>
    <tfoot><tr><th scope="row" colspan="3">${t('usageTotal')}</th><td class="num" data-field="usage-total">${money(usage.amount, usage.currency)}</td></tr></tfoot>
  </table></div>`;
}
