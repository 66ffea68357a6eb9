import { css, html, LitElement, nothing } from 'lit';
import type { CompletedCheckout } from './checkout-contract.js';
import { CheckoutController, type CheckoutStep } from './checkout/checkout-controller.js';
import { emit } from './checkout/events.js';
import { GoogleRecaptcha } from './checkout/google-recaptcha.js';
import './checkout/steps/plan-step.js';
import './checkout/steps/customer-step.js';
import './checkout/steps/address-step.js';
import './checkout/steps/summary-step.js';
import './checkout/steps/card-step.js';
import './checkout/steps/done-step.js';

/**
 * `<renew-checkout>`: the whole checkout in one element. Load the script, put the
 * element on the page, and mount the checkout proxy on your server.
 *
 * @attr proxy - URL of your checkout proxy (default `/checkout`)
 * @attr plan - offer only this plan code (optional)
 * @attr card-fields - `hosted` (default): card number, expiry and CVV in the capture host's iframe, out of
 *   reach of the page's scripts (PCI DSS SAQ A); `direct`: inputs in the widget, posted from the page (SAQ A-EP)
 * @event renew-checkout-step - detail: { step } on every step change
 * @event renew-checkout-complete - detail: { customerId, status, invoice } once the subscription is active
 *   (both typed in HTMLElementEventMap: see checkout/events.ts)
 * @slot captcha - used by the element itself for reCAPTCHA (google mode); leave empty
 * @csspart panel - the box around the current step
 * @cssprop --renew-accent, --renew-accent-text, --renew-radius, --renew-error - theme
 */
export class RenewCheckout extends LitElement {
  static override styles = css`
    :host { display: block; max-width: 34rem; font-family: var(--renew-font, inherit); }
    .panel { border: 1px solid #dadce0; border-radius: var(--renew-radius, 6px); padding: 1.25rem; background: #fff; }
    ol { display: flex; gap: 0.75rem; list-style: none; padding: 0; margin: 0 0 1rem; font-size: 0.8rem; color: #5f6368; }
    li[aria-current='step'] { color: var(--renew-accent, #2f5bea); font-weight: 600; }
    .error { color: var(--renew-error, #b3261e); }
  `;
  static override properties = { proxy: { type: String }, plan: { type: String }, cardFields: { type: String, attribute: 'card-fields' } };
  declare proxy: string;
  declare plan: string | undefined;
  declare cardFields: string;

  private controller?: CheckoutController;
  private recaptcha?: GoogleRecaptcha;

  constructor() {
    super();
    this.proxy = '/checkout';
    this.cardFields = 'hosted';
  }

  override connectedCallback() {
    // Created here, not in the constructor: the `proxy` attribute is known only now.
    this.controller ??= new CheckoutController(this, this.proxy, {
      onStep: (step) => emit(this, 'renew-checkout-step', { step }),
      onComplete: (completed: CompletedCheckout) => emit(this, 'renew-checkout-complete', completed),
    });
    super.connectedCallback();
  }

  override render() {
    const c = this.controller!;
    const s = c.state;
    const labels: Array<[CheckoutStep, string]> = [['plan', 'Plan'], ['customer', 'Details'], ['address', 'Address'], ['summary', 'Review'], ['card', 'Payment'], ['done', 'Done']];
    return html`<div class="panel" part="panel"
        @renew-back=${() => c.back()}
        @renew-plan-chosen=${(e: HTMLElementEventMap['renew-plan-chosen']) => c.choosePlan(e.detail.planFrequencyId)}
        @renew-customer-submitted=${(e: HTMLElementEventMap['renew-customer-submitted']) => c.submitCustomer(e.detail)}
        @renew-address-submitted=${(e: HTMLElementEventMap['renew-address-submitted']) => c.submitAddress(e.detail)}
        @renew-summary-confirmed=${() => c.confirmSummary()}
        @renew-card-submitted=${(e: HTMLElementEventMap['renew-card-submitted']) => this.submitCard(e.detail)}
        @renew-hosted-card-submitted=${(e: HTMLElementEventMap['renew-hosted-card-submitted']) => this.submitCard(e.detail)}
        @renew-activation-retry=${() => c.activate()}>
      ${s.step === 'loading' || s.step === 'unavailable'
        ? nothing
        : html`<ol aria-label="Checkout steps">${labels.map(([step, label]) => html`<li aria-current=${step === s.step ? 'step' : 'false'}>${label}</li>`)}</ol>`}
      ${this.renderStep()}
    </div>`;
  }

  private renderStep() {
    const c = this.controller!;
    const s = c.state;
    switch (s.step) {
      case 'loading':
        return html`<p aria-busy="true">Loading…</p>`;
      case 'unavailable':
        return html`<p class="error" role="alert">${s.message}</p>`;
      case 'plan':
        return html`<renew-plan-step .plans=${this.plan ? s.plans.filter((p) => p.planCode === this.plan) : s.plans} .selected=${s.plan?.planFrequencyId} .error=${s.fieldErrors.plan}></renew-plan-step>`;
      case 'customer':
        return html`<renew-customer-step .value=${s.customer} .errors=${s.fieldErrors} .message=${s.message}></renew-customer-step>`;
      case 'address':
        return html`<renew-address-step .value=${s.address} .countries=${s.countries} .errors=${s.fieldErrors} .message=${s.message} .busy=${s.busy}></renew-address-step>`;
      case 'summary':
        return html`<renew-summary-step .summary=${s.summary} .plan=${s.plan}></renew-summary-step>`;
      case 'card':
        return html`<renew-card-step
          .total=${s.summary?.total ?? '0'}
          .currency=${s.summary?.currency ?? s.config?.currency ?? 'USD'}
          .name=${s.customer}
          .captchaMode=${s.config?.captcha.mode ?? 'dev'}
          .captchaRound=${s.captchaRound}
          .errors=${s.fieldErrors}
          .message=${s.message}
          .busy=${s.busy}
          .locked=${c.cardLocked}
          .paid=${s.paid}
          .cardFields=${this.cardFields === 'direct' ? 'direct' : 'hosted'}
          .captureUrl=${s.config?.captureUrl ?? ''}
        ><slot name="captcha" slot="captcha"></slot></renew-card-step>`;
      case 'done':
        return html`<renew-done-step .completed=${s.completed} .currency=${s.summary?.currency ?? 'USD'}></renew-done-step>`;
    }
  }

  override updated() {
    const s = this.controller!.state;
    if (s.step === 'card' && s.config?.captcha.mode === 'google' && s.config.captcha.siteKey && !this.recaptcha) {
      const container = document.createElement('div');
      container.slot = 'captcha';
      this.append(container);
      this.recaptcha = new GoogleRecaptcha(container, s.config.captcha.siteKey, s.config.captcha.scriptUrl ?? undefined);
      this.recaptcha.show().catch(() => undefined);
    }
  }

  private async submitCard(detail: HTMLElementEventMap['renew-card-submitted' | 'renew-hosted-card-submitted']['detail']) {
    const token = detail.captchaToken ?? this.recaptcha?.token() ?? '';
    // An unsolved reCAPTCHA: ask for it here rather than spend an attempt on the capture host.
    if (!token) return this.controller!.captchaMissing();
    await ('card' in detail ? this.controller!.submitCard(detail.card, token) : this.controller!.submitCardThroughFrame(detail.frame, detail.cardholder, token));
    this.recaptcha?.reset();
  }
}

customElements.define('renew-checkout', RenewCheckout);

declare global {
  interface HTMLElementTagNameMap {
    'renew-checkout': RenewCheckout;
  }
}
