import { css, html, LitElement, nothing } from 'lit';
import { updateWhenLocaleChanges } from '@lit/localize';
import type { OrderSummary, PlanOption } from '../../checkout-contract.js';
import { emit } from '../events.js';
import { formMessage } from '../fields.js';
import { formatMoney, periodLabel, t } from '../i18n/localization.js';
import { renewalTerms } from '../renewal-terms.js';
import { stepStyles } from '../styles.js';

/**
 * Steps 4-5 shown: the first invoice as the billing service previews it (discounts and tax
 * included), the seats and the coupon the shopper may change, and the renewal terms.
 * @event renew-order-changed - detail: { quantities? , couponCode? }: preview the order again
 * @event renew-summary-confirmed
 * @event renew-back
 */
export class SummaryStep extends LitElement {
  static override styles = [
    stepStyles,
    css`
      table { width: 100%; border-collapse: collapse; }
      td { padding: 0.3rem 0; overflow-wrap: anywhere; }
      td:last-child { text-align: right; white-space: nowrap; padding-left: 0.5rem; }
      tr.total td { border-top: 1px solid #c4c7cc; font-weight: 600; padding-top: 0.5rem; }
      .stepper { display: flex; gap: 0.5rem; align-items: center; }
      .stepper input { width: 5rem; text-align: center; }
      .stepper button { min-width: 44px; padding: 0; }
      .coupon { display: flex; gap: 0.5rem; align-items: end; flex-wrap: wrap; }
      .coupon label { flex: 1 1 10rem; }
    `,
  ];
  static override properties = {
    summary: { attribute: false },
    plan: { attribute: false },
    coupons: { attribute: false },
    termsUrl: { attribute: false },
    errors: { attribute: false },
    message: { attribute: false },
    busy: { attribute: false },
    termsError: { state: true },
  };
  declare summary: OrderSummary | undefined;
  declare plan: PlanOption | undefined;
  /** Show the coupon field (the merchant's `coupons` attribute is not "off"). */
  declare coupons: boolean;
  declare termsUrl: string | undefined;
  declare errors: Record<string, string>;
  declare message: string | undefined;
  declare busy: boolean;
  declare termsError: boolean;

  constructor() {
    super();
    updateWhenLocaleChanges(this);
    this.coupons = true;
    this.errors = {};
    this.busy = false;
    this.termsError = false;
  }

  override render() {
    const s = this.summary;
    if (!s) return nothing;
    const money = (amount: string) => formatMoney(amount, s.currency);
    return html`<form @submit=${this.confirm} novalidate aria-busy=${this.busy ? 'true' : 'false'}>
      <h2>${t('summary.heading')}</h2>
      ${this.plan ? html`<p class="muted">${t('summary.billed', this.plan.planName, periodLabel(this.plan))}</p>` : nothing}
      ${s.quantities.map((q) => this.quantityField(q))}
      <table part="summary">
        ${s.lines.map((line) => html`<tr><td>${line.kind === 'SetupFee' ? t('summary.setupFee', line.name) : line.name}${line.quantity !== 1 ? ` × ${line.quantity}` : ''}</td><td>${money(line.amount)}</td></tr>`)}
        ${/[1-9]/.test(s.totalDiscount) ? html`<tr><td>${t('summary.discounts')}${s.coupon ? ` (${s.coupon.code})` : ''}</td><td>−${money(s.totalDiscount)}</td></tr>` : nothing}
        ${s.taxes.map((tax) => html`<tr><td>${tax.name}</td><td>${money(tax.amount)}</td></tr>`)}
        <tr class="total"><td>${t('summary.total')}</td><td data-total>${money(s.total)}</td></tr>
      </table>
      ${this.coupons ? this.couponField(s) : nothing}
      ${renewalTerms(s)}
      ${this.termsUrl ? this.termsField(this.termsUrl) : nothing}
      ${this.busy ? html`<p class="muted" role="status">${t('summary.updating')}</p>` : nothing}
      ${formMessage(this.message)}
      <div class="actions">
        <button type="button" @click=${() => emit(this, 'renew-back', {})}>${t('back')}</button>
        <button type="submit" ?disabled=${this.busy}>${t('summary.submit')}</button>
      </div>
    </form>`;
  }

  private quantityField(q: OrderSummary['quantities'][number]) {
    const key = `quantities.${q.code}`;
    const error = this.errors[key];
    const change = (quantity: number) => {
      if (Number.isInteger(quantity) && quantity !== q.quantity) emit(this, 'renew-order-changed', { quantities: { [q.code]: quantity } });
    };
    return html`<div class="stepper">
      <button type="button" aria-label=${t('seats.decrease')} ?disabled=${this.busy || q.quantity <= q.minQuantity} @click=${() => change(q.quantity - 1)}>−</button>
      <label>
        ${t('seats.label', q.name, q.minQuantity, q.maxQuantity)}
        <input type="number" name=${key} inputmode="numeric" min=${q.minQuantity} max=${q.maxQuantity} step="1" .value=${String(q.quantity)}
          aria-invalid=${error ? 'true' : 'false'} aria-describedby=${error ? `${q.code}-error` : nothing}
          @change=${(e: Event) => change(Number((e.target as HTMLInputElement).value))} />
      </label>
      <button type="button" aria-label=${t('seats.increase')} ?disabled=${this.busy || q.quantity >= q.maxQuantity} @click=${() => change(q.quantity + 1)}>+</button>
    </div>
    ${error ? html`<span class="error" id=${`${q.code}-error`} role="alert">${error}</span>` : nothing}`;
  }

  private couponField(s: OrderSummary) {
    const error = this.errors.couponCode;
    if (s.coupon) {
      return html`<p class="coupon" role="status">${t('coupon.applied', s.coupon.name ? `${s.coupon.code} (${s.coupon.name})` : s.coupon.code)}
        <button type="button" ?disabled=${this.busy} @click=${() => emit(this, 'renew-order-changed', { couponCode: '' })}>${t('coupon.remove')}</button></p>`;
    }
    const apply = () => {
      const code = this.renderRoot.querySelector<HTMLInputElement>('input[name="couponCode"]')?.value.trim() ?? '';
      if (code) emit(this, 'renew-order-changed', { couponCode: code });
    };
    return html`<div class="coupon">
      <label>
        ${t('coupon.label')}
        <input name="couponCode" autocomplete="off" maxlength="255" aria-invalid=${error ? 'true' : 'false'} aria-describedby=${error ? 'couponCode-error' : nothing}
          @keydown=${(e: KeyboardEvent) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              apply();
            }
          }} />
      </label>
      <button type="button" ?disabled=${this.busy} @click=${apply}>${t('coupon.apply')}</button>
    </div>
    ${error ? html`<span class="error" id="couponCode-error" role="alert">${error}</span>` : nothing}`;
  }

  private termsField(termsUrl: string) {
    // The link sits where the translation puts {0}.
    const [before = '', after = ''] = t('terms.accept', '\u0000').split('\u0000');
    return html`<label class="inline">
        <input type="checkbox" name="terms" required aria-invalid=${this.termsError ? 'true' : 'false'} aria-describedby=${this.termsError ? 'terms-error' : nothing}
          @change=${() => (this.termsError = false)} />
        <span>${before}<a href=${termsUrl} target="_blank" rel="noopener">${t('terms.link')}</a>${after}</span>
      </label>
      ${this.termsError ? html`<span class="error" id="terms-error" role="alert">${t('terms.required')}</span>` : nothing}`;
  }

  private confirm(event: SubmitEvent) {
    event.preventDefault();
    const terms = this.renderRoot.querySelector<HTMLInputElement>('input[name="terms"]');
    if (terms && !terms.checked) {
      this.termsError = true;
      terms.focus();
      return;
    }
    emit(this, 'renew-summary-confirmed', {});
  }
}
customElements.define('renew-summary-step', SummaryStep);
