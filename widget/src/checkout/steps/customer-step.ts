import { html, LitElement } from 'lit';
import { updateWhenLocaleChanges } from '@lit/localize';
import type { ShopperDetails } from '../../checkout-contract.js';
import { emit } from '../events.js';
import { fieldProblems, focusFirstInvalid, formMessage, formValues, textField } from '../fields.js';
import { t } from '../i18n/localization.js';
import { stepStyles } from '../styles.js';

/**
 * Step 2: who is buying.
 * @event renew-customer-submitted - detail: { firstName, lastName, email }
 * @event renew-back
 */
export class CustomerStep extends LitElement {
  static override styles = [stepStyles];
  static override properties = {
    value: { attribute: false },
    errors: { attribute: false },
    message: { attribute: false },
    localErrors: { state: true },
  };
  declare value: Omit<ShopperDetails, 'address'> | undefined;
  declare errors: Record<string, string>;
  declare message: string | undefined;
  /** The form's own check (required, e-mail format, length), shown before anything is sent. */
  declare localErrors: Record<string, string>;

  constructor() {
    super();
    updateWhenLocaleChanges(this);
    this.errors = {};
    this.localErrors = {};
  }

  override render() {
    const v = this.value;
    const e = { ...this.errors, ...this.localErrors };
    return html`<form @submit=${this.submit} novalidate>
      <h2>${t('customer.heading')}</h2>
      <div class="row">
        ${textField({ label: t('customer.firstName'), name: 'firstName', value: v?.firstName, error: e.firstName, autocomplete: 'given-name', maxlength: 50 })}
        ${textField({ label: t('customer.lastName'), name: 'lastName', value: v?.lastName, error: e.lastName, autocomplete: 'family-name', maxlength: 50 })}
      </div>
      ${textField({ label: t('customer.email'), name: 'email', type: 'email', value: v?.email, error: e.email, autocomplete: 'email', maxlength: 255 })}
      ${formMessage(this.message)}
      <div class="actions">
        <button type="button" @click=${() => emit(this, 'renew-back', {})}>${t('back')}</button>
        <button type="submit">${t('continue')}</button>
      </div>
    </form>`;
  }

  private submit(event: SubmitEvent) {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    this.localErrors = fieldProblems(form);
    if (Object.keys(this.localErrors).length > 0) return focusFirstInvalid(this);
    const { firstName = '', lastName = '', email = '' } = formValues(form);
    emit(this, 'renew-customer-submitted', { firstName, lastName, email });
  }
}
customElements.define('renew-customer-step', CustomerStep);
