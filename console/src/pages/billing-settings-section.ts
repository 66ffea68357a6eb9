import { html, nothing, type TemplateResult } from 'lit';
import { can, get, request } from '../api.js';
import { number, t } from '../i18n.js';
import type { MessageKey } from '../messages-en.js';
import { ConsolePage, type Loaded, problemText, settle, show } from '../page.js';

/** The billing setting as GET /v1/customerbillingsetting/{id} answers it (the fields this section shows; PUT sends back all). */
interface BillingSetting {
  id: number;
  autoCollect: boolean | null;
  term: string;
  autoPostDraftInvoice: boolean | null;
  showZeroDollarCharges: boolean | null;
  customerGracePeriod: number;
  gracePeriodExtension: number;
  customerAutoCancel: number;
  defaultCancelOption: string | null;
  standingPoNumber: string | null;
  taxExempt: boolean;
  taxExemptCode: string | null;
  customerServiceStartOption: string | null;
  hasPaymentMethod: boolean;
  [field: string]: unknown;
}

const TERMS = ['Net0', 'Net5', 'Net7', 'Net10', 'Net15', 'Net21', 'Net30', 'Net45', 'Net60', 'Net75', 'Net90', 'MFI1'];
const CANCEL_OPTIONS = ['None', 'Unearned', 'Full'];
/** What a suspended customer is charged on returning to Active after a successful collection. */
const SERVICE_START_OPTIONS = [
  'NoChargesForMissedPeriods',
  'ChargeForLastMissedPeriods',
  'ChargeForAllMissedPeriods',
  'ChargeForCurrentFullPeriod',
];
/** Read-only fields of the answer that the PUT does not take back (invoiceDay: deprecated, refused while Active). */
const READ_ONLY = ['invoiceDay', 'hasPaymentMethod', 'uri'];
/** Tri-state switches: the account's default (null), on, off. */
const SWITCHES: Array<{ field: 'autoCollect' | 'autoPostDraftInvoice' | 'showZeroDollarCharges'; label: MessageKey }> = [
  { field: 'autoCollect', label: 'auditFieldAutoCollect' },
  { field: 'autoPostDraftInvoice', label: 'settingAutoPost' },
  { field: 'showZeroDollarCharges', label: 'settingZeroCharges' },
];
const NUMBERS: Array<{ field: 'customerGracePeriod' | 'gracePeriodExtension' | 'customerAutoCancel'; label: MessageKey }> = [
  { field: 'customerGracePeriod', label: 'settingGracePeriod' },
  { field: 'gracePeriodExtension', label: 'settingGraceExtension' },
  { field: 'customerAutoCancel', label: 'settingAutoCancel' },
];

const switchText = (value: boolean | null) => (value === null ? t('settingDefault') : value ? t('auditOn') : t('auditOff'));
const switchValue = (text: string) => (text === 'on' ? true : text === 'off' ? false : null);
const switchOption = (value: boolean | null) => (value === null ? 'default' : value ? 'on' : 'off');

/**
 * <console-billing-settings> on the customer page: the customer's billing settings (auto-collect, terms, draft
 * posting, grace period, auto-cancel, PO number, tax exemption) and, for owners and billing, an edit dialog that
 * sends the whole setting back (PUT /v1/customerBillingSetting: read, modify, send back, as the spec asks).
 */
export class BillingSettingsSection extends ConsolePage {
  static override properties = {
    ...ConsolePage.properties,
    customerId: { type: Number },
    setting: { state: true },
    editing: { state: true },
    error: { state: true },
    saved: { state: true },
  };
  declare customerId: number;
  declare setting: Loaded<BillingSetting>;
  declare editing: boolean;
  declare error: string;
  declare saved: string;

  constructor() {
    super();
    this.setting = { state: 'loading' };
    this.editing = false;
    this.error = '';
    this.saved = '';
  }

  protected override async load() {
    if (!this.customerId) return;
    this.setting = await settle(get<BillingSetting>(`/v1/customerBillingSetting/${this.customerId}`));
  }

  private async open() {
    this.error = '';
    this.editing = true;
    await this.updateComplete;
    this.dialog('settings-dialog')?.showModal();
  }

  private async save(event: SubmitEvent) {
    event.preventDefault();
    if (this.setting.state !== 'ok') return;
    const form = new FormData(event.target as HTMLFormElement);
    const body: Record<string, unknown> = { ...this.setting.value };
    for (const field of READ_ONLY) delete body[field];
    for (const { field } of SWITCHES) body[field] = switchValue(String(form.get(field)));
    for (const { field } of NUMBERS) body[field] = Number(form.get(field));
    body.term = String(form.get('term'));
    const cancel = String(form.get('defaultCancelOption'));
    body.defaultCancelOption = cancel === 'default' ? null : cancel;
    const serviceStart = String(form.get('customerServiceStartOption'));
    body.customerServiceStartOption = serviceStart === 'default' ? null : serviceStart;
    body.standingPoNumber = String(form.get('standingPoNumber') ?? '').trim() || null;
    body.taxExempt = form.get('taxExempt') === 'on';
    body.taxExemptCode = String(form.get('taxExemptCode') ?? '').trim() || null;
    this.error = '';
    try {
      const answer = await request<BillingSetting>('PUT', '/v1/customerBillingSetting', { body });
      this.setting = { state: 'ok', value: answer.body };
      this.saved = t('settingsSaved');
      this.dialog('settings-dialog')?.close();
    } catch (error) {
      this.error = problemText(error);
    }
  }

  override render() {
    return html`<section class="card" aria-labelledby="billing-settings-title">
      <h2 id="billing-settings-title">${t('billingSettings')}</h2>
      <p class="ok" role="status">${this.saved}</p>
      ${show(this.setting, (setting) => this.facts(setting))}
      ${this.editing && this.setting.state === 'ok' ? this.editDialog(this.setting.value) : nothing}
    </section>`;
  }

  private facts(setting: BillingSetting): TemplateResult {
    return html`<dl class="facts" data-billing-settings>
        ${SWITCHES.map(({ field, label }) => html`<div><dt>${t(label)}</dt><dd data-setting=${field}>${switchText(setting[field])}</dd></div>`)}
        <div><dt>${t('auditFieldTerm')}</dt><dd data-setting="term">${setting.term}</dd></div>
        ${NUMBERS.map(({ field, label }) => html`<div><dt>${t(label)}</dt><dd>${number(setting[field])}</dd></div>`)}
        <div><dt>${t('settingCancelOption')}</dt><dd>${setting.defaultCancelOption ?? t('settingDefault')}</dd></div>
        <div><dt>${t('settingServiceStart')}</dt><dd>${setting.customerServiceStartOption ?? t('settingDefault')}</dd></div>
        <div><dt>${t('settingPoNumber')}</dt><dd>${setting.standingPoNumber ?? ''}</dd></div>
        <div><dt>${t('settingTaxExempt')}</dt><dd>${setting.taxExempt ? `${t('auditOn')} (${setting.taxExemptCode ?? ''})` : t('auditOff')}</dd></div>
      </dl>
      ${can.act(this.operator?.role) ? html`<div class="actions"><button type="button" @click=${this.open}>${t('editBillingSettings')}</button></div>` : nothing}`;
  }

  private editDialog(setting: BillingSetting): TemplateResult {
    return html`<dialog id="settings-dialog" aria-labelledby="settings-title" @close=${() => (this.editing = false)}>
      <h2 id="settings-title">${t('editBillingSettings')}</h2>
      <form @submit=${this.save}>
        ${SWITCHES.map(
          ({ field, label }) => html`<label>${t(label)}
            <select name=${field}>
              ${(['default', 'on', 'off'] as const).map(
                (option) =>
                  html`<option value=${option} ?selected=${switchOption(setting[field]) === option}>${option === 'default' ? t('settingDefault') : option === 'on' ? t('auditOn') : t('auditOff')}</option>`,
              )}
            </select>
          </label>`,
        )}
        ${setting.hasPaymentMethod ? nothing : html`<p class="muted">${t('settingNoCard')}</p>`}
        <label>${t('auditFieldTerm')}
          <select name="term">${TERMS.map((term) => html`<option value=${term} ?selected=${term === setting.term}>${term}</option>`)}</select>
        </label>
        ${NUMBERS.map(
          ({ field, label }) =>
            html`<label>${t(label)}<input name=${field} type="number" min="0" max="3650" step="1" required .value=${String(setting[field])} /></label>`,
        )}
        <label>${t('settingCancelOption')}
          <select name="defaultCancelOption">
            <option value="default" ?selected=${setting.defaultCancelOption === null}>${t('settingDefault')}</option>
            ${CANCEL_OPTIONS.map((option) => html`<option value=${option} ?selected=${option === setting.defaultCancelOption}>${option}</option>`)}
          </select>
        </label>
        <label>${t('settingServiceStart')}
          <select name="customerServiceStartOption">
            <option value="default" ?selected=${!setting.customerServiceStartOption}>${t('settingDefault')}</option>
            ${SERVICE_START_OPTIONS.map((option) => html`<option value=${option} ?selected=${option === setting.customerServiceStartOption}>${option}</option>`)}
          </select>
        </label>
        <label>${t('settingPoNumber')}<input name="standingPoNumber" maxlength="255" autocomplete="off" .value=${setting.standingPoNumber ?? ''} /></label>
        <label><input name="taxExempt" type="checkbox" .checked=${setting.taxExempt} /> ${t('settingTaxExempt')}</label>
        <label>${t('settingTaxExemptCode')}<input name="taxExemptCode" maxlength="255" autocomplete="off" .value=${setting.taxExemptCode ?? ''} /></label>
        <p class="error" role="alert">${this.error}</p>
        <div class="actions">
          <button type="submit" class="primary">${t('save')}</button>
          <button type="button" @click=${() => this.dialog('settings-dialog')?.close()}>${t('cancel')}</button>
        </div>
      </form>
    </dialog>`;
  }
}
customElements.define('console-billing-settings', BillingSettingsSection);
