import { html, LitElement, nothing } from 'lit';
import { cardProblem } from '@renew/billing-service/card-rules';
import type { CardDetails } from '../checkout-client.js';
import { emit } from '../events.js';
import { formMessage, formValues, textField } from '../fields.js';
import { formatMoney } from '../format.js';
import { stepStyles } from '../styles.js';
import '../hosted-card-frame.js';

/**
 * Steps 6-7: the card, checked here with the same rules as the server (Luhn,
 * expiry, CVV length) before it leaves the browser for the capture host.
 * In `google` CAPTCHA mode the reCAPTCHA widget is slotted in from the light DOM.
 * With `cardFields` hosted (the default) the number, expiry and CVV are in the
 * capture host's iframe (<renew-hosted-card-frame>), checked and sent from there.
 * @slot captcha - the reCAPTCHA widget (google mode)
 * @event renew-card-submitted - detail: { card, captchaToken? } (direct mode; captchaToken in dev mode)
 * @event renew-hosted-card-submitted - detail: { frame, cardholder, captchaToken? } (hosted mode)
 * @event renew-activation-retry - the payment went through; complete the order again
 * @event renew-back
 */
export class CardStep extends LitElement {
  static override styles = [stepStyles];
  static override properties = {
    total: { attribute: false },
    currency: { attribute: false },
    name: { attribute: false },
    captchaMode: { attribute: false },
    captchaRound: { attribute: false },
    errors: { attribute: false },
    message: { attribute: false },
    busy: { attribute: false },
    locked: { attribute: false },
    paid: { attribute: false },
    cardFields: { attribute: false },
    captureUrl: { attribute: false },
    localErrors: { state: true },
  };
  declare total: string;
  declare currency: string;
  declare name: { firstName: string; lastName: string } | undefined;
  declare captchaMode: 'dev' | 'google';
  declare captchaRound: number;
  declare errors: Record<string, string>;
  declare message: string | undefined;
  declare busy: boolean;
  declare locked: boolean;
  declare paid: boolean;
  declare cardFields: 'hosted' | 'direct';
  declare captureUrl: string;
  declare localErrors: Record<string, string>;

  constructor() {
    super();
    this.total = '0';
    this.currency = 'USD';
    this.captchaMode = 'dev';
    this.captchaRound = 0;
    this.errors = {};
    this.busy = false;
    this.locked = false;
    this.paid = false;
    this.cardFields = 'hosted';
    this.captureUrl = '';
    this.localErrors = {};
  }

  override render() {
    if (this.paid) {
      return html`<div>
        <h2>Payment received</h2>
        ${formMessage(this.message)}
        <div class="actions"><span></span><button type="button" ?disabled=${this.busy} @click=${() => emit(this, 'renew-activation-retry', {})}>Complete my order</button></div>
      </div>`;
    }
    const e = { ...this.errors, ...this.localErrors };
    const disabled = this.busy || this.locked;
    return html`<form @submit=${this.submit} novalidate>
      <h2>Payment</h2>
      <div class="row">
        ${textField({ label: 'First name on card', name: 'firstName', value: this.name?.firstName, error: e.firstName, autocomplete: 'cc-given-name', maxlength: 50 })}
        ${textField({ label: 'Last name on card', name: 'lastName', value: this.name?.lastName, error: e.lastName, autocomplete: 'cc-family-name', maxlength: 50 })}
      </div>
      ${this.cardFields === 'hosted'
        ? html`<renew-hosted-card-frame .captureUrl=${this.captureUrl} .disabled=${disabled}></renew-hosted-card-frame>`
        : html`${textField({ label: 'Card number', name: 'cardNumber', error: e.cardNumber, autocomplete: 'cc-number', inputmode: 'numeric', maxlength: 23 })}
      <div class="row">
        ${textField({ label: 'Expiry month (MM)', name: 'expirationMonth', error: e.expirationMonth, autocomplete: 'cc-exp-month', inputmode: 'numeric', maxlength: 2 })}
        ${textField({ label: 'Expiry year (YY)', name: 'expirationYear', error: e.expirationYear, autocomplete: 'cc-exp-year', inputmode: 'numeric', maxlength: 2 })}
        ${textField({ label: 'Security code (CVV)', name: 'cvv', error: e.cvv, autocomplete: 'cc-csc', inputmode: 'numeric', maxlength: 4 })}
      </div>`}
      ${this.captchaMode === 'dev'
        ? html`<label class="inline"><input type="checkbox" name="captcha" /> I'm not a robot <span class="muted">(development CAPTCHA)</span></label>`
        : html`<slot name="captcha"></slot>`}
      ${e.frame ? html`<span class="error" role="alert">${e.frame}</span>` : nothing}
      ${e.captcha ? html`<span class="error" role="alert">${e.captcha}</span>` : nothing}
      ${formMessage(this.message)}
      <div class="actions">
        <button type="button" ?disabled=${this.busy} @click=${() => emit(this, 'renew-back', {})}>Back</button>
        <button type="submit" ?disabled=${disabled}>${this.busy ? 'Processing…' : `Pay ${formatMoney(this.total, this.currency)}`}</button>
      </div>
    </form>`;
  }

  private async submit(event: SubmitEvent) {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const v = formValues(form);
    if (this.cardFields === 'hosted') return this.submitHosted(v);
    const card: CardDetails = {
      firstName: v.firstName ?? '',
      lastName: v.lastName ?? '',
      cardNumber: v.cardNumber ?? '',
      expirationMonth: Number(v.expirationMonth),
      expirationYear: Number(v.expirationYear),
      cvv: v.cvv ?? '',
    };
    const localErrors: Record<string, string> = {};
    if (!card.firstName) localErrors.firstName = 'required';
    if (!card.lastName) localErrors.lastName = 'required';
    const problem = cardProblem({ ...card, expirationMonth: v.expirationMonth ? card.expirationMonth : NaN, expirationYear: v.expirationYear ? card.expirationYear : NaN });
    if (problem) localErrors[problem.field] = problem.message;
    const devToken = this.captchaMode === 'dev' && v.captcha === 'on' ? `dev-${crypto.randomUUID()}` : undefined;
    if (this.captchaMode === 'dev' && !devToken) localErrors.captcha = "please confirm you're not a robot";
    this.localErrors = localErrors;
    if (Object.keys(localErrors).length > 0) return;
    emit(this, 'renew-card-submitted', { card, ...(devToken ? { captchaToken: devToken } : {}) });
  }

  /** Hosted: the names and the CAPTCHA are checked here, the card in the frame (which shows its own errors); nothing is sent unless both pass. */
  private async submitHosted(v: Record<string, string>) {
    const frame = this.renderRoot.querySelector('renew-hosted-card-frame');
    if (!frame) return;
    const cardholder = { firstName: v.firstName ?? '', lastName: v.lastName ?? '' };
    const localErrors: Record<string, string> = {};
    if (!cardholder.firstName) localErrors.firstName = 'required';
    if (!cardholder.lastName) localErrors.lastName = 'required';
    const devToken = this.captchaMode === 'dev' && v.captcha === 'on' ? `dev-${crypto.randomUUID()}` : undefined;
    if (this.captchaMode === 'dev' && !devToken) localErrors.captcha = "please confirm you're not a robot";
    const validity = await frame.validate();
    if (!validity.valid && validity.message) localErrors.frame = validity.message;
    this.localErrors = localErrors;
    if (Object.keys(localErrors).length > 0 || !validity.valid) return;
    emit(this, 'renew-hosted-card-submitted', { frame, cardholder, ...(devToken ? { captchaToken: devToken } : {}) });
  }

  override updated(changed: Map<string, unknown>) {
    // A new round after each attempt: the dev CAPTCHA is ticked again, like reCAPTCHA's reset.
    if (changed.has('captchaRound')) {
      const box = this.renderRoot.querySelector<HTMLInputElement>('input[name="captcha"]');
      if (box) box.checked = false;
    }
  }
}
customElements.define('renew-card-step', CardStep);
