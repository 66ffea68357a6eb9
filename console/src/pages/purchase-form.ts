import { html, nothing } from 'lit';
import { post } from '../api.js';
import { money, t } from '../i18n.js';
import { ConsolePage, problemText } from '../page.js';

/**
 * <console-purchase-form> (issue 40): sells a one-time charge to the customer (POST /v1/purchases, an ad hoc name and
 * price per unit in the customer's currency). A Draft customer's purchase waits for the activation; an Active
 * customer's goes on the next renewal's invoice, or on an invoice of its own at once ("Invoice now"). The total is
 * shown before it is sent; one Idempotency-Key per form filled in. Fires `purchased` (detail: the words to announce).
 */
export class PurchaseForm extends ConsolePage {
  static override properties = {
    ...ConsolePage.properties,
    customerId: { attribute: false },
    currency: { attribute: false },
    active: { attribute: false },
    total: { state: true },
    busy: { state: true },
    error: { state: true },
  };
  declare customerId: number;
  declare currency: string;
  declare active: boolean;
  declare total: string;
  declare busy: boolean;
  declare error: string;
  private key = crypto.randomUUID();

  constructor() {
    super();
    this.total = '';
    this.busy = false;
    this.error = '';
  }

  /** The total as the server will compute it (quantity × price), shown while the form is filled in. */
  private recompute(form: HTMLFormElement) {
    const data = new FormData(form);
    const amount = Number(String(data.get('amount') ?? '').replace(',', '.'));
    const quantity = Number(String(data.get('quantity') ?? '').replace(',', '.'));
    this.total =
      Number.isFinite(amount) && Number.isFinite(quantity) && amount >= 0 && quantity > 0 ? money(amount * quantity, this.currency) : '';
  }

  private async submit(event: SubmitEvent) {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const data = new FormData(form);
    const text = (field: string) => String(data.get(field) ?? '').trim();
    this.busy = true;
    this.error = '';
    try {
      await post(
        '/v1/purchases',
        {
          customerId: this.customerId,
          name: text('name'),
          amount: text('amount').replace(',', '.'),
          quantity: text('quantity').replace(',', '.'),
          ...(text('description') ? { description: text('description') } : {}),
          invoiceNow: this.active && data.get('invoiceNow') === 'on',
        },
        { headers: { 'idempotency-key': this.key } },
      );
      const name = text('name');
      form.reset();
      this.key = crypto.randomUUID();
      this.total = '';
      this.dispatchEvent(new CustomEvent('purchased', { detail: t('purchaseAdded', { name }) }));
    } catch (error) {
      this.error = problemText(error);
    } finally {
      this.busy = false;
    }
  }

  override render() {
    return html`<form aria-labelledby="purchase-form-title" @submit=${this.submit} @input=${(event: Event) => this.recompute(event.currentTarget as HTMLFormElement)}>
      <h3 id="purchase-form-title">${t('purchaseAdd')}</h3>
      <label>${t('purchaseName')}<input name="name" maxlength="255" autocomplete="off" required /></label>
      <label>${t('purchaseAmount', { currency: this.currency })}<input name="amount" inputmode="decimal" autocomplete="off" required /></label>
      <label>${t('colQuantity')}<input name="quantity" inputmode="decimal" autocomplete="off" required value="1" /></label>
      <label>${t('purchaseDescription')}<input name="description" maxlength="2000" autocomplete="off" /></label>
      ${this.active ? html`<label><input type="checkbox" name="invoiceNow" /> ${t('purchaseInvoiceNow')}</label>` : nothing}
      ${this.total ? html`<p data-preview="purchase">${t('purchaseTotal', { total: this.total })}</p>` : nothing}
      <p class="error" role="alert">${this.error}</p>
      <div class="actions"><button type="submit" ?disabled=${this.busy}>${t('purchaseSubmit')}</button></div>
    </form>`;
  }
}
customElements.define('console-purchase-form', PurchaseForm);
