/** A metered subscription's "Used so far this period" (issue 41), in its card on the overview. */
import { html, nothing } from 'lit';
import { date, money } from './portal-format.js';
import type { Portal } from './portal-model.js';
import { say } from './portal-text.js';

/** Per metric its name, quantity and amount so far, and the total; nothing for a subscription whose plan charges no usage. */
export function renderUsage(p: Portal, subscriptionId: number) {
  const usage = p.usage?.find((u) => u.subscriptionId === subscriptionId);
  if (!usage) return nothing;
  const t = p.text;
  const quantity = new Intl.NumberFormat(p.language, { maximumFractionDigits: 6 });
  const heading = `usage-${subscriptionId}`;
  return html`<section class="usage" aria-labelledby=${heading}>
    <h5 id=${heading}>${t.usedSoFar}</h5>
    <p>${say(t.usagePeriod, date(p, usage.periodStart), date(p, usage.periodEnd))}</p>
    <div class="table-wrap"><table aria-labelledby=${heading}>
      <thead><tr><th scope="col">${t.usageMetric}</th><th scope="col" class="number">${t.usageQuantity}</th><th scope="col" class="number">${t.usageAmount}</th></tr></thead>
      <tbody>
        ${usage.metrics.map(
          (m) =>
            html`<tr><td>${m.name}</td><td class="number">${quantity.format(m.quantity)}</td><td class="number">${money(p, m.amount, usage.currency)}</td></tr>`,
        )}
      </tbody>
      <tfoot><tr><th scope="row" colspan="2">${t.usageTotal}</th><td class="number">${money(p, usage.amount, usage.currency)}</td></tr></tfoot>
    </table></div>
  </section>`;
}
