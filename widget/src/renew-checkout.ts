import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { updateWhenLocaleChanges } from '@lit/localize';
import type { CompletedCheckout } from './checkout-contract.js';
import { CheckoutController, type CheckoutStep } from './checkout/checkout-controller.js';
import { emit } from './checkout/events.js';
import { GoogleRecaptcha } from './checkout/google-recaptcha.js';
import { chooseLocale, t, useLocale, type CheckoutMessages, type MessageId } from './checkout/i18n/localization.js';
import './checkout/steps/plan-step.js';
import './checkout/steps/customer-step.js';
import './checkout/steps/address-step.js';
import './checkout/steps/summary-step.js';

export type { CheckoutMessages, MessageId } from './checkout/i18n/localization.js';

const STEPS: Array<[CheckoutStep, MessageId]> = [
  ['plan', 'step.plan'],
  ['customer', 'step.customer'],
  ['address', 'step.address'],
  ['summary', 'step.summary'],
  ['card', 'step.card'],
  ['done', 'step.done'],
];

/**
 * `<renew-checkout>`: the whole checkout in one element. Load the script, put the
 * element on the page, and mount the checkout proxy on your server.
 *
 * @attr proxy - URL of your checkout proxy (default `/checkout`)
 * @attr plan - offer only this plan code (optional)
 * @attr card-fields - `hosted` (default): card number, expiry and CVV in the capture host's iframe, out of
 *   reach of the page's scripts (PCI DSS SAQ A); `direct`: inputs in the widget, posted from the page (SAQ A-EP)
 * @attr lang - the shopper's language (en, fr, de, es; a region such as fr-CA formats amounts and dates);
 *   else the page's `<html lang>`, else the browser's languages, else English
 * @attr coupons - `off` hides the coupon field
 * @attr terms-url - your terms of service: the shopper must tick "I accept the terms" (linking there) before paying
 * @prop messages - your own words for any string, per language: `{ en: { 'summary.total': 'To pay now' } }`
 * @event renew-checkout-step - detail: { step } on every step change
 * @event renew-checkout-complete - detail: { customerId, status, invoice } once the subscription is active
 *   (both typed in HTMLElementEventMap: see checkout/events.ts)
 * @slot captcha - used by the element itself for reCAPTCHA (google mode); leave empty
 * @csspart panel - the box around the current step
 * @cssprop --renew-accent, --renew-accent-text, --renew-radius, --renew-error, --renew-font - theme
 */
export class RenewCheckout extends LitElement {
  static override styles = css`
    :host { display: block; max-width: 34rem; min-width: 0; font-family: var(--renew-font, inherit); container-type: inline-size; }
    .panel { border: 1px solid #dadce0; border-radius: var(--renew-radius, 6px); padding: 1.25rem; background: #fff; }
    ol { display: flex; flex-wrap: nowrap; gap: 0.75rem; list-style: none; padding: 0; margin: 0 0 1rem; font-size: 0.8rem; color: #5f6368; }
    li[aria-current='step'] { color: var(--renew-accent, #2f5bea); font-weight: 600; }
    .step-count { display: none; margin: 0 0 1rem; font-size: 0.85rem; color: #5f6368; }
    .error { color: var(--renew-error, #b3261e); }
    /* Too narrow for six step names in a row: "Step 3 of 6: Address" instead. */
    @container (max-width: 30rem) {
      ol { display: none; }
      .step-count { display: block; }
      .panel { padding: 0.9rem; }
    }
  `;
  static override properties = {
    proxy: { type: String },
    plan: { type: String },
    lang: { type: String },
    coupons: { type: String },
    termsUrl: { type: String, attribute: 'terms-url' },
    messages: { attribute: false },
    cardFields: { type: String, attribute: 'card-fields' },
  };
  declare proxy: string;
  declare plan: string | undefined;
  declare lang: string;
  declare coupons: string | undefined;
  declare termsUrl: string | undefined;
  declare messages: CheckoutMessages | undefined;
  declare cardFields: string;

  private controller?: CheckoutController;
  private recaptcha?: GoogleRecaptcha;

  constructor() {
    super();
    updateWhenLocaleChanges(this);
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

  protected override firstUpdated() {
    // The payment steps are a chunk of their own, fetched while the shopper fills in the first ones.
    void import('./checkout/steps/payment-steps.js');
  }

  protected override willUpdate(changed: PropertyValues<this>) {
    if (changed.has('lang') || changed.has('messages') || !this.hasUpdated) {
      const chosen = chooseLocale(this.lang || null, document.documentElement.lang, navigator.languages ?? []);
      // Loading a language re-renders every step (updateWhenLocaleChanges); the merchant's words apply at once.
      void useLocale(chosen, this.messages).then(() => {
        for (const el of this.renderRoot.querySelectorAll('*')) (el as Partial<LitElement>).requestUpdate?.();
      });
    }
  }

  override render() {
    // Lit renders only once connected, and connectedCallback creates the controller
    const c = this.controller;
    if (!c) return nothing;
    const s = c.state;
    const current = STEPS.findIndex(([step]) => step === s.step);
    const currentStep = STEPS[current];
    return html`<div class="panel" part="panel"
        @renew-back=${() => c.back()}
        @renew-plan-chosen=${(e: HTMLElementEventMap['renew-plan-chosen']) => c.choosePlan(e.detail.planFrequencyId)}
        @renew-customer-submitted=${(e: HTMLElementEventMap['renew-customer-submitted']) => c.submitCustomer(e.detail)}
        @renew-address-submitted=${(e: HTMLElementEventMap['renew-address-submitted']) => c.submitAddress(e.detail)}
        @renew-order-changed=${(e: HTMLElementEventMap['renew-order-changed']) => c.changeOrder(e.detail)}
        @renew-summary-confirmed=${() => c.confirmSummary()}
        @renew-card-submitted=${(e: HTMLElementEventMap['renew-card-submitted']) => this.submitCard(e.detail)}
        @renew-hosted-card-submitted=${(e: HTMLElementEventMap['renew-hosted-card-submitted']) => this.submitCard(e.detail)}
        @renew-challenge-answered=${(e: HTMLElementEventMap['renew-challenge-answered']) => c.answerChallenge(e.detail.answered)}
        @renew-activation-retry=${() => c.activate()}
        @renew-invoice-download=${() => c.downloadInvoicePdf()}>
      ${
        !currentStep
          ? nothing
          : html`<ol aria-label=${t('steps.label')}>${STEPS.map(([step, label]) => html`<li aria-current=${step === s.step ? 'step' : 'false'}>${t(label)}</li>`)}</ol>
            <p class="step-count">${t('steps.count', current + 1, STEPS.length, t(currentStep[1]))}</p>`
      }
      ${this.renderStep(c)}
    </div>`;
  }

  private renderStep(c: CheckoutController) {
    const s = c.state;
    switch (s.step) {
      case 'loading':
        return html`<p aria-busy="true">${t('loading')}</p>`;
      case 'unavailable':
        return html`<p class="error" role="alert">${s.message}</p>`;
      case 'plan':
        return html`<renew-plan-step exportparts="plan" .plans=${this.plan ? s.plans.filter((p) => p.planCode === this.plan) : s.plans} .selected=${s.plan?.planFrequencyId} .error=${s.fieldErrors.plan}></renew-plan-step>`;
      case 'customer':
        return html`<renew-customer-step .value=${s.customer} .errors=${s.fieldErrors} .message=${s.message}></renew-customer-step>`;
      case 'address':
        return html`<renew-address-step .value=${s.address} .countries=${s.countries} .errors=${s.fieldErrors} .message=${s.message} .busy=${s.busy}></renew-address-step>`;
      case 'summary':
        return html`<renew-summary-step exportparts="summary, renewal" .summary=${s.summary} .plan=${s.plan} .coupons=${this.coupons !== 'off'} .termsUrl=${this.termsUrl}
          .errors=${s.fieldErrors} .message=${s.message} .busy=${s.busy}></renew-summary-step>`;
      case 'card':
        return html`<renew-card-step
          exportparts="renewal"
          .summary=${s.summary}
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
          .challengeUrl=${s.challengeUrl}
        ><slot name="captcha" slot="captcha"></slot></renew-card-step>`;
      case 'done':
        return html`<renew-done-step .completed=${s.completed} .currency=${s.summary?.currency ?? 'USD'} .message=${s.message} .busy=${s.busy}></renew-done-step>`;
    }
  }

  override updated() {
    const s = this.controller?.state;
    if (s?.step === 'card' && s.config?.captcha.mode === 'google' && s.config.captcha.siteKey && !this.recaptcha) {
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
    const c = this.controller;
    if (!c) return;
    if (!token) return c.captchaMissing();
    await ('card' in detail ? c.submitCard(detail.card, token) : c.submitCardThroughFrame(detail.frame, detail.cardholder, token));
    this.recaptcha?.reset();
  }
}

customElements.define('renew-checkout', RenewCheckout);

declare global {
  interface HTMLElementTagNameMap {
    'renew-checkout': RenewCheckout;
  }
}
