import { html, LitElement, nothing } from 'lit';
import type { CompletedCheckout } from '../../checkout-contract.js';
import { formatMoney } from '../format.js';
import { stepStyles } from '../styles.js';

/** Step 8 done: the subscription is active and the first invoice paid. */
export class DoneStep extends LitElement {
  static override styles = [stepStyles];
  static override properties = { completed: { attribute: false }, currency: { attribute: false } };
  declare completed: CompletedCheckout | undefined;
  declare currency: string;

  override render() {
    const c = this.completed;
    if (!c) return nothing;
    return html`<div role="status">
      <h2>Thank you!</h2>
      <p>Your subscription is active.</p>
      ${c.invoice
        ? html`<p>Invoice <strong data-invoice-number>#${c.invoice.number}</strong>: ${formatMoney(c.invoice.total, this.currency)},
            <span data-invoice-status>${c.invoice.status}</span>.</p>`
        : nothing}
    </div>`;
  }
}
customElements.define('renew-done-step', DoneStep);
