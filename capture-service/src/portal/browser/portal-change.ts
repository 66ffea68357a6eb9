/** "Change plan" and "Seats": choose, preview what it costs, confirm; or withdraw a change scheduled for the period end. */
import { html, nothing } from 'lit';
import { date, frequency, lineName, money } from './portal-format.js';
import { type ChangeOptions, type ChangeRequest, type Interval, loadedOverview, type PlanChange, type Portal } from './portal-model.js';
import { renderOverview } from './portal-overview.js';
import { say } from './portal-text.js';

/** "Change plan" (another plan frequency the catalogue allows) or "Seats" (quantities within bounds): choose, preview, confirm. */
export function renderChange(p: Portal, subscriptionId: number, kind: 'change' | 'seats') {
  const t = p.text;
  const o = loadedOverview(p);
  if (o.scope !== 'full') return html`<h2 tabindex="-1">${kind === 'change' ? t.changePlan : t.seats}</h2><p>${t.signInAgain}</p>`;
  const options = p.changeOptions?.find((c) => c.subscriptionId === subscriptionId);
  if (!options || (kind === 'change' ? options.targets : options.quantities).length === 0) return renderOverview(p);
  const price = (planName: string, interval: Interval, count: number, amount: number) =>
    say(t.planOption, planName, frequency(p, interval, count), money(p, amount, options.currency));
  const fields =
    kind === 'change'
      ? html`<fieldset><legend>${t.chooseTarget}</legend>${options.targets.map(
          (target, index) =>
            html`<label class="choice"><input type="radio" name="planFrequencyId" .value=${String(target.planFrequencyId)} ?checked=${index === 0} required />${price(target.planName, target.interval, target.numberOfIntervals, target.amount)}</label>`,
        )}</fieldset>`
      : options.quantities.map(
          (q) =>
            html`<label>${say(t.quantityLabel, q.name, q.minQuantity, q.maxQuantity)}<input type="number" name=${q.productCode} inputmode="numeric" min=${q.minQuantity} max=${q.maxQuantity} step="1" required .value=${String(q.quantity)} /></label>`,
        );
  const preview = p.changePreview?.subscriptionId === subscriptionId ? p.changePreview : undefined;
  return html`
    <h2 tabindex="-1">${say(kind === 'change' ? t.changePlanTitle : t.seatsTitle, options.name)}</h2>
    <p>${say(t.currentPlan, price(options.planName, options.interval, options.numberOfIntervals, options.amount))}</p>
    <form @submit=${(event: Event) => void previewChange(p, event, options, kind)} @input=${() => forgetPreview(p)} @change=${() => forgetPreview(p)}>
      ${fields}
      <div class="actions">
        <button type="submit" ?disabled=${p.busy}>${t.seePreview}</button>
        <a href="#overview">${t.overview}</a>
      </div>
    </form>
    ${preview ? renderChangePreview(p, preview, options.currency) : nothing}
  `;
}

/** A choice changed after a preview: that preview no longer says what confirming would do. */
function forgetPreview(p: Portal) {
  p.changePreview = undefined;
  p.changeRequest = undefined;
}

export async function previewChange(p: Portal, event: Event, options: ChangeOptions, kind: 'change' | 'seats') {
  event.preventDefault();
  if (p.busy) return;
  const fields = new FormData(event.target as HTMLFormElement);
  const request: ChangeRequest =
    kind === 'change'
      ? { planFrequencyId: Number(fields.get('planFrequencyId')) }
      : { quantities: Object.fromEntries(options.quantities.map((q) => [q.productCode, Number(fields.get(q.productCode))])) };
  p.busy = true;
  p.problem = '';
  p.notice = '';
  try {
    p.changePreview = await p.api<PlanChange>('POST', `/portal/api/subscriptions/${options.subscriptionId}/changes/preview`, request);
    p.changeRequest = request;
    p.busy = false;
    // The preview takes the focus, so a screen reader reads what the change costs before the confirmation.
    await p.updateComplete;
    p.renderRoot.querySelector<HTMLElement>('#preview-heading')?.focus();
  } catch (error) {
    p.fail(error);
  } finally {
    p.busy = false;
  }
}

export async function confirmChange(p: Portal, subscriptionId: number) {
  const request = p.changeRequest;
  if (p.busy || !request) return;
  const t = p.text;
  p.busy = true;
  p.problem = '';
  try {
    const made = await p.api<PlanChange>('POST', `/portal/api/subscriptions/${subscriptionId}/changes`, request);
    p.changePreview = undefined;
    p.changeRequest = undefined;
    await p.show('overview');
    p.notice = made.invoice
      ? say(t.changedNow, money(p, made.invoice.total, made.invoice.currency))
      : say(t.changeScheduled, date(p, made.pendingChange?.effectiveDate ?? made.nextRenewal.date));
    await p.focusNotice();
  } catch (error) {
    p.fail(error);
  } finally {
    p.busy = false;
  }
}

export function renderChangePreview(p: Portal, change: PlanChange, currency: string) {
  const t = p.text;
  const invoice = change.invoice;
  const row = (label: string, amount: number, currencyCode: string) =>
    html`<tr><td>${label}</td><td class="hide-narrow"></td><td class="number">${money(p, amount, currencyCode)}</td></tr>`;
  return html`<section class="card" aria-labelledby="preview-heading">
    <h3 id="preview-heading" tabindex="-1">${t.previewTitle}</h3>
    ${
      invoice
        ? html`<div class="table-wrap"><table>
          <thead><tr><th scope="col">${t.item}</th><th scope="col" class="hide-narrow">${t.period}</th><th scope="col" class="number">${t.amount}</th></tr></thead>
          <tbody>
            ${invoice.lines.map(
              (line) =>
                html`<tr><td>${lineName(p, line)}</td><td class="hide-narrow">${say(t.linePeriod, date(p, line.startServiceDate), date(p, line.endServiceDate))}</td><td class="number">${money(p, line.amount, invoice.currency)}</td></tr>`,
            )}
            ${invoice.totalDiscount ? row(t.discount, -Math.abs(invoice.totalDiscount), invoice.currency) : nothing}
            ${invoice.taxes.map((tax) => row(tax.name, tax.amount, invoice.currency))}
          </tbody>
          <tfoot><tr><th scope="row">${t.totalNow}</th><td class="hide-narrow"></td><td class="number"><strong>${money(p, invoice.total, invoice.currency)}</strong></td></tr></tfoot>
        </table></div>`
        : html`<p>${say(t.nothingNow, date(p, change.pendingChange?.effectiveDate ?? change.nextRenewal.date))}</p>`
    }
    <p>${say(t.nextRenewal, money(p, change.nextRenewal.amount, currency), date(p, change.nextRenewal.date))}</p>
    <div class="actions">
      <button class="primary" type="button" ?disabled=${p.busy} @click=${() => void confirmChange(p, change.subscriptionId)}>${t.confirmChange}</button>
    </div>
  </section>`;
}
