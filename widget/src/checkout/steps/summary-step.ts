import { html, LitElement, nothing } from 'lit';
import type { OrderSummary, PlanOption } from '../../checkout-contract.js';
import { emit } from '../events.js';
import { formatMoney, periodLabel } from '../format.js';
import { stepStyles } from '../styles.js';
import { css } from 'lit';

/**
 * Steps 4-5 shown: the first invoice as the billing service previews it (discounts and tax included).
 * @event renew-summary-confirmed
 * @event renew-back
 */
export class SummaryStep extends LitElement {
  static override styles = [
    stepStyles,
    css`
      table { width: 100%; border-collapse: collapse; }
      td { padding: 0.3rem 0; }
      td:last-child { text-align: right; }
      tr.total td { border-top: 1px solid #c4c7cc; font-weight: 600; padding-top: 0.5rem; }
    `,
  ];
  static override properties = { summary: { attribute: false }, plan: { attribute: false } };
  declare summary: OrderSummary | undefined;
  declare plan: PlanOption | undefined;

  override render() {
    const s = this.summary;
    if (!s) return nothing;
    const money = (amount: string) => formatMoney(amount, s.currency);
    return html`<form @submit=${this.confirm}>
      <h2>Your order</h2>
      ${this.plan ? html`<p class="muted">${this.plan.planName}, billed ${periodLabel(this.plan)}</p>` : nothing}
      <table part="summary">
        ${s.lines.map((line) => html`<tr><td>${line.name}${line.quantity !== 1 ? ` × ${line.quantity}` : ''}</td><td>${money(line.amount)}</td></tr>`)}
        ${/[1-9]/.test(s.totalDiscount) ? html`<tr><td>Discounts</td><td>−${money(s.totalDiscount)}</td></tr>` : nothing}
        ${s.taxes.map((tax) => html`<tr><td>${tax.name}</td><td>${money(tax.amount)}</td></tr>`)}
        <tr class="total"><td>Total due today</td><td data-total>${money(s.total)}</td></tr>
      </table>
      <div class="actions">
        <button type="button" @click=${() => emit(this, 'renew-back', {})}>Back</button>
        <button type="submit">Continue to payment</button>
      </div>
    </form>`;
  }

  private confirm(event: SubmitEvent) {
    event.preventDefault();
    emit(this, 'renew-summary-confirmed', {});
  }
}
customElements.define('renew-summary-step', SummaryStep);
