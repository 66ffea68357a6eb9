import { html, LitElement, nothing } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import { updateWhenLocaleChanges } from '@lit/localize';
import type { PlanOption } from '../../checkout-contract.js';
import { emit } from '../events.js';
import { formatCount, formatMoney, formatUnitPrice, periodLabel, t } from '../i18n/localization.js';
import { stepStyles } from '../styles.js';

/**
 * Step 1: choose a plan frequency.
 * @event renew-plan-chosen - detail: { planFrequencyId }
 */
export class PlanStep extends LitElement {
  static override styles = [stepStyles];
  static override properties = {
    plans: { attribute: false },
    selected: { attribute: false },
    error: { attribute: false },
    unchosen: { state: true },
  };
  declare plans: PlanOption[];
  declare selected: number | undefined;
  declare error: string | undefined;
  /** Sent without a plan: the checkout's own message, not the browser's. */
  declare unchosen: boolean;

  constructor() {
    super();
    updateWhenLocaleChanges(this);
    this.plans = [];
    this.unchosen = false;
  }

  override render() {
    const error = this.unchosen ? t('plan.required') : this.error;
    return html`<form @submit=${this.submit} novalidate>
      <h2>${t('plan.heading')}</h2>
      <div class="choices" role="radiogroup" aria-label=${t('plan.group')} aria-required="true"
        aria-invalid=${error ? 'true' : 'false'} aria-describedby=${ifDefined(error ? 'plan-error' : undefined)}
        @change=${() => (this.unchosen = false)}>
        ${this.plans.map(
          (plan) => html`<label class="choice" part="plan">
            <input type="radio" name="plan" value=${plan.planFrequencyId} ?checked=${plan.planFrequencyId === this.selected} required />
            <span>
              <strong>${plan.planName}</strong> · ${formatMoney(plan.recurringPrice, plan.currency)} ${periodLabel(plan)}
              ${/[1-9]/.test(plan.setupFee) ? html`<span class="muted">${t('plan.setupFee', formatMoney(plan.setupFee, plan.currency))}</span>` : nothing}
              ${plan.usage.map((u) => html`<br /><span class="muted">${usageText(u, plan.currency)}</span>`)}
              ${plan.description ? html`<br /><span class="muted">${plan.description}</span>` : nothing}
            </span>
          </label>`,
        )}
      </div>
      ${error ? html`<p class="error" id="plan-error" role="alert">${error}</p>` : nothing}
      <div class="actions"><span></span><button type="submit">${t('continue')}</button></div>
    </form>`;
  }

  private submit(event: SubmitEvent) {
    event.preventDefault();
    const chosen = new FormData(event.target as HTMLFormElement).get('plan');
    this.unchosen = !chosen;
    if (chosen) emit(this, 'renew-plan-chosen', { planFrequencyId: Number(chosen) });
    else void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLInputElement>('input[name="plan"]')?.focus());
  }
}
customElements.define('renew-plan-step', PlanStep);

/** A usage charge in the shopper's words: "+ API calls: 1,000 free, then $0.002 each" (issue 41). */
function usageText(u: PlanOption['usage'][number], currency: string): string {
  const price = formatUnitPrice(u.unitAmount, currency);
  if (u.per > 1) return t('plan.usageBlock', u.name, price, formatCount(u.per));
  if (u.from) return t('plan.usageFrom', u.name, price);
  if (u.free > 0) return t('plan.usageFree', u.name, formatCount(u.free), price);
  return t('plan.usage', u.name, price);
}
