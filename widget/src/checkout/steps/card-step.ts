import { html, LitElement, nothing } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import { updateWhenLocaleChanges } from '@lit/localize';
import { cardProblem } from '@renew/billing-service/card-rules';
import type { OrderSummary } from '../../checkout-contract.js';
import { cardLayout, cardNumberComplete, digitsOf, formatExpiry, groupCardNumber, parseExpiry } from '../card-input.js';
import type { CardDetails } from '../checkout-client.js';
import { emit } from '../events.js';
import { fieldProblems, focusFirstInvalid, formMessage, formValues, textField } from '../fields.js';
import { currentLocale, formatMoney, t } from '../i18n/localization.js';
import { renewalTerms } from '../renewal-terms.js';
import { stepStyles } from '../styles.js';
import '@renew/capture-service/hosted-card-frame';

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
    summary: { attribute: false },
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
    challengeUrl: { attribute: false },
    localErrors: { state: true },
    brand: { state: true },
  };
  declare summary: OrderSummary | undefined;
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
  /** Direct mode: the bank's 3-D Secure page, shown in a dialog in place of the form while set. */
  declare challengeUrl: string | undefined;
  declare localErrors: Record<string, string>;
  /** The brand of the number typed so far ('' while unknown). */
  declare brand: string;

  constructor() {
    super();
    updateWhenLocaleChanges(this);
    this.captchaMode = 'dev';
    this.captchaRound = 0;
    this.errors = {};
    this.busy = false;
    this.locked = false;
    this.paid = false;
    this.cardFields = 'hosted';
    this.captureUrl = '';
    this.localErrors = {};
    this.brand = '';
  }

  override render() {
    if (this.paid) {
      return html`<div>
        <h2>${t('card.paid')}</h2>
        ${formMessage(this.message)}
        <div class="actions"><span></span><button type="button" ?disabled=${this.busy} @click=${() => emit(this, 'renew-activation-retry', {})}>${t('card.complete')}</button></div>
      </div>`;
    }
    if (this.challengeUrl) return this.renderChallenge(this.challengeUrl);
    const e = { ...this.errors, ...this.localErrors };
    const disabled = this.busy || this.locked;
    const total = this.summary ? formatMoney(this.summary.total, this.summary.currency) : '';
    return html`<form @submit=${this.submit} novalidate>
      <h2>${t('card.heading')}</h2>
      <div class="row">
        ${textField({ label: t('card.firstName'), name: 'firstName', value: this.name?.firstName, error: e.firstName, autocomplete: 'cc-given-name', maxlength: 50 })}
        ${textField({ label: t('card.lastName'), name: 'lastName', value: this.name?.lastName, error: e.lastName, autocomplete: 'cc-family-name', maxlength: 50 })}
      </div>
      ${
        this.cardFields === 'hosted'
          ? html`<renew-hosted-card-frame .captureUrl=${this.captureUrl} .disabled=${disabled} .language=${currentLocale()}></renew-hosted-card-frame>`
          : html`${textField({ label: t('card.number'), name: 'cardNumber', error: e.cardNumber, autocomplete: 'cc-number', inputmode: 'numeric', maxlength: 23, placeholder: '1234 1234 1234 1234', onInput: this.numberTyped })}
      <p class="muted brand" aria-live="polite">${this.brand ? t('card.brand', this.brand) : nothing}</p>
      <div class="row">
        ${textField({ label: t('card.expiry'), name: 'expiry', error: e.expiry, autocomplete: 'cc-exp', inputmode: 'numeric', maxlength: 7, placeholder: t('card.expiryPlaceholder'), onInput: this.expiryTyped })}
        ${textField({ label: t('card.cvv'), name: 'cvv', error: e.cvv, autocomplete: 'cc-csc', inputmode: 'numeric', maxlength: 4 })}
      </div>`
      }
      ${
        this.captchaMode === 'dev'
          ? html`<label class="inline"><input type="checkbox" name="captcha" aria-invalid=${e.captcha ? 'true' : 'false'}
              aria-describedby=${ifDefined(e.captcha ? 'captcha-error' : undefined)} /> ${t('card.captcha')} <span class="muted">${t('card.captchaDev')}</span></label>`
          : html`<slot name="captcha"></slot>`
      }
      ${e.frame ? html`<span class="error" role="alert">${e.frame}</span>` : nothing}
      ${e.captcha ? html`<span class="error" id="captcha-error" role="alert">${e.captcha}</span>` : nothing}
      ${this.summary ? renewalTerms(this.summary) : nothing}
      ${formMessage(this.message)}
      <div class="actions">
        <button type="button" ?disabled=${this.busy} @click=${() => emit(this, 'renew-back', {})}>${t('back')}</button>
        <button type="submit" ?disabled=${disabled}>${this.busy ? t('card.processing') : t('card.pay', total)}</button>
      </div>
    </form>`;
  }

  /** The bank's page in a dialog named by its heading (focused), Cancel or Escape to abandon; its answer comes as a message from the capture host. */
  private renderChallenge(url: string) {
    const cancel = () => emit(this, 'renew-challenge-answered', { answered: false });
    return html`<section role="dialog" aria-modal="true" aria-labelledby="challenge-title" aria-describedby="challenge-intro"
        @keydown=${(event: KeyboardEvent) => event.key === 'Escape' && cancel()}>
      <h2 id="challenge-title" tabindex="-1">${t('card.challengeTitle')}</h2>
      <p id="challenge-intro">${t('card.challengeIntro')}</p>
      <iframe id="challenge-frame" class="challenge" title=${t('card.challengeFrame')} src=${url}></iframe>
      <div class="actions"><button type="button" @click=${cancel}>${t('card.challengeCancel')}</button><span></span></div>
    </section>`;
  }

  /** The bank's page (or the processor's return page on the capture host) tells its answer: only that frame, from that host. */
  private readonly onMessage = (event: MessageEvent) => {
    const frame = this.renderRoot.querySelector<HTMLIFrameElement>('#challenge-frame');
    if (!frame || event.source !== frame.contentWindow || event.origin !== new URL(this.captureUrl).origin) return;
    if ((event.data as { type?: unknown } | null)?.type === 'renew-3ds') emit(this, 'renew-challenge-answered', { answered: true });
  };

  override connectedCallback() {
    super.connectedCallback();
    window.addEventListener('message', this.onMessage);
  }

  override disconnectedCallback() {
    window.removeEventListener('message', this.onMessage);
    super.disconnectedCallback();
  }

  private readonly numberTyped = (event: InputEvent) => {
    const input = event.target as HTMLInputElement;
    input.value = groupCardNumber(input.value);
    this.brand = cardLayout(input.value).label;
    // A complete number that passes the checksum: on to the expiry (a mistyped one stays for correction).
    const numberProblem =
      cardProblem({ cardNumber: digitsOf(input.value), expirationMonth: NaN, expirationYear: NaN, cvv: '' })?.field === 'cardNumber';
    if (cardNumberComplete(input.value) && !numberProblem) this.field('expiry')?.focus();
  };

  private readonly expiryTyped = (event: InputEvent) => {
    const input = event.target as HTMLInputElement;
    input.value = formatExpiry(input.value, event.inputType?.startsWith('delete'));
    if (digitsOf(input.value).length === 4) this.field('cvv')?.focus();
  };

  private field(name: string) {
    return this.renderRoot.querySelector<HTMLInputElement>(`input[name="${name}"]`);
  }

  private async submit(event: SubmitEvent) {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const v = formValues(form);
    // Empty or too long fields in the checkout's words (the form is novalidate); the card's own rules speak for its fields.
    const localErrors = fieldProblems(form);
    if (this.cardFields === 'hosted') return this.submitHosted(v, localErrors);
    const expiry = parseExpiry(v.expiry ?? '');
    const card: CardDetails = {
      firstName: v.firstName ?? '',
      lastName: v.lastName ?? '',
      cardNumber: digitsOf(v.cardNumber ?? ''),
      expirationMonth: expiry?.month ?? NaN,
      expirationYear: expiry?.year ?? NaN,
      cvv: v.cvv ?? '',
    };
    const problem = cardProblem(card);
    if (problem?.field === 'cardNumber') localErrors.cardNumber = t('card.invalidNumber');
    else if (problem?.field === 'cvv') localErrors.cvv = t('card.invalidCvv', cardLayout(card.cardNumber).cvvLength);
    else if (problem) localErrors.expiry = t(problem.code === 'card_expired' ? 'card.expired' : 'card.invalidExpiry');
    const devToken = this.captchaMode === 'dev' && v.captcha === 'on' ? `dev-${crypto.randomUUID()}` : undefined;
    if (this.captchaMode === 'dev' && !devToken) localErrors.captcha = t('card.captchaRequired');
    this.localErrors = localErrors;
    // The first field to fix gets the focus; its message is announced (role=alert).
    if (Object.keys(localErrors).length > 0) return focusFirstInvalid(this);
    emit(this, 'renew-card-submitted', { card, ...(devToken ? { captchaToken: devToken } : {}) });
  }

  /** Hosted: the names and the CAPTCHA are checked here, the card in the frame (which shows its own errors); nothing is sent unless both pass. */
  private async submitHosted(v: Record<string, string>, localErrors: Record<string, string>) {
    const frame = this.renderRoot.querySelector('renew-hosted-card-frame');
    if (!frame) return;
    const cardholder = { firstName: v.firstName ?? '', lastName: v.lastName ?? '' };
    const devToken = this.captchaMode === 'dev' && v.captcha === 'on' ? `dev-${crypto.randomUUID()}` : undefined;
    if (this.captchaMode === 'dev' && !devToken) localErrors.captcha = t('card.captchaRequired');
    const validity = await frame.validate();
    if (!validity.valid && validity.message) localErrors.frame = validity.message;
    this.localErrors = localErrors;
    if (Object.keys(localErrors).some((field) => field !== 'frame')) return focusFirstInvalid(this);
    if (!validity.valid) return;
    emit(this, 'renew-hosted-card-submitted', { frame, cardholder, ...(devToken ? { captchaToken: devToken } : {}) });
  }

  override updated(changed: Map<string, unknown>) {
    if (changed.has('challengeUrl') && this.challengeUrl) {
      // The page hears the challenge opened, as with the hosted card fields; the keyboard starts at the dialog's heading.
      emit(this, 'renew-checkout-authentication', { state: 'challenge' });
      this.renderRoot.querySelector<HTMLElement>('#challenge-title')?.focus();
    }
    // A new round after each attempt: the dev CAPTCHA is ticked again, like reCAPTCHA's reset.
    if (changed.has('captchaRound')) {
      const box = this.renderRoot.querySelector<HTMLInputElement>('input[name="captcha"]');
      if (box) box.checked = false;
    }
  }
}
customElements.define('renew-card-step', CardStep);
