import { html, LitElement, nothing } from 'lit';
import { updateWhenLocaleChanges } from '@lit/localize';
import type { CountryOption, ShopperDetails } from '../../checkout-contract.js';
import { emit } from '../events.js';
import { fieldProblems, focusFirstInvalid, formMessage, formValues, textField } from '../fields.js';
import { currentLocale, t } from '../i18n/localization.js';
import { stepStyles } from '../styles.js';

type Address = ShopperDetails['address'];

/**
 * Step 3: the billing address (it decides the taxes of the summary).
 * @event renew-address-submitted - detail: the address (country ISO 3166-1 alpha-2, state ISO 3166-2)
 * @event renew-back
 */
export class AddressStep extends LitElement {
  static override styles = [stepStyles];
  static override properties = {
    value: { attribute: false },
    countries: { attribute: false },
    errors: { attribute: false },
    message: { attribute: false },
    busy: { attribute: false },
    country: { state: true },
    localErrors: { state: true },
  };
  declare value: Address | undefined;
  declare countries: CountryOption[];
  declare errors: Record<string, string>;
  declare message: string | undefined;
  declare busy: boolean;
  /** The country chosen in the form, which decides the list of states. */
  declare country: string;
  /** The form's own check, keyed as the errors are (`address.line1`), shown before anything is sent. */
  declare localErrors: Record<string, string>;

  constructor() {
    super();
    updateWhenLocaleChanges(this);
    this.countries = [];
    this.errors = {};
    this.busy = false;
    this.country = '';
    this.localErrors = {};
  }

  override willUpdate(changed: Map<string, unknown>) {
    if (changed.has('value') && this.value) this.country = this.value.country;
    if (!this.country) this.country = 'US';
  }

  override render() {
    const v = this.value;
    const states = this.countries.find((c) => c.iso === this.country)?.states ?? [];
    const e = { ...this.errors, ...this.localErrors };
    return html`<form @submit=${this.submit} novalidate>
      <h2>${t('address.heading')}</h2>
      ${textField({ label: t('address.line1'), name: 'line1', value: v?.line1, error: e['address.line1'], autocomplete: 'address-line1', maxlength: 60 })}
      ${textField({ label: t('address.line2'), name: 'line2', value: v?.line2, error: e['address.line2'], autocomplete: 'address-line2', maxlength: 60, required: false })}
      <div class="row">
        ${textField({ label: t('address.city'), name: 'city', value: v?.city, error: e['address.city'], autocomplete: 'address-level2', maxlength: 50 })}
        ${textField({ label: t('address.postalZip'), name: 'postalZip', value: v?.postalZip, error: e['address.postalZip'], autocomplete: 'postal-code', maxlength: 10 })}
      </div>
      <div class="row">
        <!-- Labelled with for=, not wrapped: a wrapping label would read every country's name into the select's. -->
        <div class="field">
          <label for="country">${t('address.country')}</label>
          <select id="country" name="country" autocomplete="country" aria-invalid=${e['address.country'] ? 'true' : 'false'}
            @change=${(ev: Event) => (this.country = (ev.target as HTMLSelectElement).value)}>
            ${this.countries.map((c) => html`<option value=${c.iso} ?selected=${c.iso === this.country}>${countryName(c)}</option>`)}
          </select>
          ${e['address.country'] ? html`<span class="error" role="alert">${e['address.country']}</span>` : nothing}
        </div>
        ${
          states.length > 0
            ? html`<div class="field">
              <label for="state">${t('address.state')}</label>
              <select id="state" name="state" autocomplete="address-level1" aria-invalid=${e['address.state'] ? 'true' : 'false'}>
                <option value="">—</option>
                ${states.map((s) => html`<option value=${s.code} ?selected=${s.code === v?.state}>${s.name}</option>`)}
              </select>
              ${e['address.state'] ? html`<span class="error" role="alert">${e['address.state']}</span>` : nothing}
            </div>`
            : nothing
        }
      </div>
      ${formMessage(this.message)}
      <div class="actions">
        <button type="button" @click=${() => emit(this, 'renew-back', {})}>${t('back')}</button>
        <button type="submit" ?disabled=${this.busy}>${t('address.submit')}</button>
      </div>
    </form>`;
  }

  private submit(event: SubmitEvent) {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const problems = Object.entries(fieldProblems(form)).map(([name, message]) => [`address.${name}`, message]);
    this.localErrors = Object.fromEntries(problems);
    if (problems.length > 0) return focusFirstInvalid(this);
    const { line1 = '', line2 = '', city = '', postalZip = '', country = '', state = '' } = formValues(form);
    const address: Address = { line1, city, postalZip, country, ...(line2 ? { line2 } : {}), ...(state ? { state } : {}) };
    emit(this, 'renew-address-submitted', address);
  }
}
customElements.define('renew-address-step', AddressStep);

/** The country's name in the shopper's language (the billing API's is English). */
function countryName(country: CountryOption): string {
  try {
    return new Intl.DisplayNames([currentLocale()], { type: 'region' }).of(country.iso) ?? country.name;
  } catch {
    return country.name;
  }
}
