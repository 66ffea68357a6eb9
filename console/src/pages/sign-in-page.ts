import { html, nothing } from 'lit';
import { ApiError, type Operator, post } from '../api.js';
import { t } from '../i18n.js';
import { ConsolePage, problemText } from '../page.js';

/** #/sign-in: e-mail and password; the code field appears when the server asks for the second factor. */
export class SignInPage extends ConsolePage {
  static override properties = { ...ConsolePage.properties, needsCode: { state: true }, message: { state: true }, busy: { state: true } };
  declare needsCode: boolean;
  declare message: string;
  declare busy: boolean;

  constructor() {
    super();
    this.needsCode = false;
    this.message = '';
    this.busy = false;
  }

  private async submit(event: SubmitEvent) {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const body: Record<string, string> = { email: String(form.get('email') ?? ''), password: String(form.get('password') ?? '') };
    if (this.needsCode) body.totpCode = String(form.get('totpCode') ?? '');
    this.busy = true;
    this.message = '';
    try {
      const session = await post<{ operator: Operator; csrfToken: string }>('/sign-in', body, { quietUnauthorized: true });
      this.dispatchEvent(new CustomEvent('console-signed-in', { detail: session, bubbles: true, composed: true }));
    } catch (error) {
      const code = error instanceof ApiError ? error.code : undefined;
      if (code === 'console_totp_required') {
        this.needsCode = true;
        this.message = t('signInTotpRequired');
        await this.updateComplete;
        this.renderRoot.querySelector<HTMLInputElement>('input[name=totpCode]')?.focus();
      } else if (code === 'console_totp_invalid') this.message = t('signInTotpInvalid');
      else if (code === 'console_sign_in_throttled') this.message = t('signInThrottled');
      else if (code === 'console_credentials_invalid' || (error instanceof ApiError && error.status === 401))
        this.message = t('signInInvalid');
      else this.message = problemText(error);
    } finally {
      this.busy = false;
    }
  }

  override render() {
    return html`
      <h1 tabindex="-1">${t('signInTitle')}</h1>
      <form @submit=${this.submit}>
        <label>${t('email')}<input name="email" type="email" autocomplete="username" required /></label>
        <label>${t('password')}<input name="password" type="password" autocomplete="current-password" required /></label>
        ${
          this.needsCode
            ? html`<label>${t('totpCode')}
                <input name="totpCode" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,8}" required aria-describedby="totp-hint" />
                <span id="totp-hint" class="muted">${t('totpHint')}</span>
              </label>`
            : nothing
        }
        <p class="error" role="alert">${this.message}</p>
        <div class="actions"><button type="submit" ?disabled=${this.busy}>${t('signInButton')}</button></div>
      </form>
    `;
  }
}
customElements.define('console-sign-in-page', SignInPage);
