import { html, nothing } from 'lit';
import { type Operator, post } from '../api.js';
import { roleName, t } from '../i18n.js';
import { ConsolePage, problemText } from '../page.js';
import { qrCodeSvg } from '../qr-code.js';

/** #/account: who is signed in, and the TOTP second factor (set up: a QR code of the otpauth URI, the URI and the secret as text, then a code to confirm; or turn off). */
export class AccountPage extends ConsolePage {
  static override properties = { ...ConsolePage.properties, setup: { state: true }, message: { state: true }, error: { state: true } };
  declare setup: { secret: string; otpauthUri: string } | undefined;
  declare message: string;
  declare error: string;

  constructor() {
    super();
    this.message = '';
    this.error = '';
  }

  private changed(totpEnabled: boolean) {
    if (!this.operator) return;
    const operator: Operator = { ...this.operator, totpEnabled };
    this.dispatchEvent(new CustomEvent('console-operator-changed', { detail: operator, bubbles: true, composed: true }));
  }

  private async start() {
    this.error = '';
    try {
      this.setup = await post('/totp/setup');
    } catch (error) {
      this.error = problemText(error);
    }
  }

  private async confirm(event: SubmitEvent) {
    event.preventDefault();
    const code = String(new FormData(event.target as HTMLFormElement).get('code') ?? '').replace(/\s/g, '');
    this.error = '';
    try {
      await post('/totp/confirm', { code });
      this.setup = undefined;
      this.message = t('totpDone');
      this.changed(true);
    } catch (error) {
      this.error = problemText(error);
    }
  }

  private async disable(event: SubmitEvent) {
    event.preventDefault();
    const code = String(new FormData(event.target as HTMLFormElement).get('code') ?? '').replace(/\s/g, '');
    this.error = '';
    try {
      await post('/totp/disable', { code });
      this.message = t('totpOff');
      this.changed(false);
    } catch (error) {
      this.error = problemText(error);
    }
  }

  override render() {
    const operator = this.operator;
    if (!operator) return nothing;
    return html`
      <h1 tabindex="-1">${t('accountTitle')}</h1>
      <dl class="facts">
        <div><dt>${t('colName')}</dt><dd>${operator.name}</dd></div>
        <div><dt>${t('email')}</dt><dd>${operator.email}</dd></div>
        <div><dt>${t('role')}</dt><dd>${roleName(operator.role)}</dd></div>
      </dl>
      <section aria-labelledby="totp-title">
        <h2 id="totp-title">${t('totpTitle')}</h2>
        <p role="status" class="ok">${this.message}</p>
        <p class="error" role="alert">${this.error}</p>
        <p>${operator.totpEnabled ? t('totpEnabled') : t('totpDisabled')}</p>
        ${
          operator.totpEnabled
            ? html`<form class="inline-form" @submit=${this.disable}>
                <label>${t('totpCode')}<input name="code" inputmode="numeric" autocomplete="one-time-code" required /></label>
                <button type="submit" class="danger">${t('totpDisable')}</button>
              </form>`
            : this.setup
              ? html`<p>${t('totpScan')}</p>
                  <div class="qr" data-totp-qr>${qrCodeSvg(this.setup.otpauthUri, t('totpQrLabel'))}</div>
                  <p>${t('totpUri')}</p>
                  <pre class="code" data-otpauth-uri>${this.setup.otpauthUri}</pre>
                  <p>${t('totpSecret')}: <code>${this.setup.secret}</code></p>
                  <form class="inline-form" @submit=${this.confirm}>
                    <label>${t('totpCode')}<input name="code" inputmode="numeric" autocomplete="one-time-code" required /></label>
                    <button type="submit">${t('totpConfirm')}</button>
                  </form>`
              : html`<button type="button" @click=${this.start}>${t('totpStart')}</button>`
        }
      </section>
    `;
  }
}
customElements.define('console-account-page', AccountPage);
