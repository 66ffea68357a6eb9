import { html, LitElement, nothing } from 'lit';
import { updateWhenLocaleChanges } from '@lit/localize';
import type { CompletedCheckout } from '../../checkout-contract.js';
import { emit } from '../events.js';
import { formMessage } from '../fields.js';
import { formatMoney, t, type MessageId } from '../i18n/localization.js';
import { stepStyles } from '../styles.js';

/** Step 8 done: the subscription is active and the first invoice paid; the shopper may download it as a PDF. */
export class DoneStep extends LitElement {
  static override styles = [stepStyles];
  static override properties = {
    completed: { attribute: false },
    currency: { attribute: false },
    message: { attribute: false },
    busy: { attribute: false },
  };
  declare completed: CompletedCheckout | undefined;
  declare currency: string;
  /** Why the invoice could not be downloaded. */
  declare message: string | undefined;
  declare busy: boolean;

  constructor() {
    super();
    updateWhenLocaleChanges(this);
    this.currency = 'USD';
    this.busy = false;
  }

  override render() {
    const c = this.completed;
    if (!c) return nothing;
    return html`<div role="status">
      <h2>${t('done.heading')}</h2>
      <p>${t('done.active')}</p>
      ${
        c.invoice
          ? html`<p data-invoice-number=${c.invoice.number} data-invoice-status=${c.invoice.status}>${t('done.invoice', `#${c.invoice.number}`, formatMoney(c.invoice.total, this.currency), this.statusText(c.invoice.status))}</p>
            <button type="button" ?disabled=${this.busy} @click=${() => emit(this, 'renew-invoice-download', {})}>${t('done.downloadInvoice')}</button>`
          : nothing
      }
      ${formMessage(this.message)}
    </div>`;
  }

  /** The invoice's status in the shopper's words (the API's own word when there is no translation for it). */
  private statusText(status: string): string {
    const id = `invoice.${status}`;
    return ['invoice.Paid', 'invoice.Posted', 'invoice.PartiallyPaid'].includes(id) ? t(id as MessageId) : status;
  }
}
customElements.define('renew-done-step', DoneStep);
