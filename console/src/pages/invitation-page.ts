import { html } from 'lit';
import { ApiError, get, type Operator, post } from '../api.js';
import { roleName, t } from '../i18n.js';
import { ConsolePage, type Loaded, problemText, settle, show } from '../page.js';

interface Invitation {
  /** Null for the first owner's link: they choose the e-mail they sign in with. */
  email: string | null;
  role: string;
  firstOwner: boolean;
}

/** #/invitation/<token>: the invited e-mail and role; the operator chooses a name and a password. */
export class InvitationPage extends ConsolePage {
  static override properties = { ...ConsolePage.properties, invitation: { state: true }, message: { state: true }, busy: { state: true } };
  declare invitation: Loaded<Invitation>;
  declare message: string;
  declare busy: boolean;

  constructor() {
    super();
    this.invitation = { state: 'loading' };
    this.message = '';
    this.busy = false;
  }

  protected override async load() {
    if (!this.routeArg) return;
    this.invitation = { state: 'loading' };
    this.invitation = await settle(get<Invitation>(`/invitations/${encodeURIComponent(this.routeArg)}`, { quietUnauthorized: true }));
  }

  private async submit(event: SubmitEvent) {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const password = String(form.get('password') ?? '');
    if (password.length < 12) {
      this.message = t('passwordTooShort');
      return;
    }
    this.busy = true;
    this.message = '';
    const email = String(form.get('email') ?? '').trim();
    try {
      const session = await post<{ operator: Operator; csrfToken: string }>(
        `/invitations/${encodeURIComponent(this.routeArg ?? '')}/accept`,
        {
          name: String(form.get('name') ?? ''),
          password,
          ...(this.invitation.state === 'ok' && !this.invitation.value.email ? { email } : {}),
        },
        { quietUnauthorized: true },
      );
      this.dispatchEvent(new CustomEvent('console-signed-in', { detail: session, bubbles: true, composed: true }));
    } catch (error) {
      this.message = error instanceof ApiError && (error.status === 404 || error.status === 410) ? t('invitationGone') : problemText(error);
    } finally {
      this.busy = false;
    }
  }

  override render() {
    const gone =
      this.invitation.state === 'failed' && this.invitation.error instanceof ApiError && [404, 410].includes(this.invitation.error.status);
    return html`
      <h1 tabindex="-1">${t('invitationTitle')}</h1>
      ${
        gone
          ? html`<p class="error" role="alert">${t('invitationGone')}</p>`
          : show(
              this.invitation,
              (invitation) => html`
                <p>
                  ${invitation.email ? t('invitationFor', { role: roleName(invitation.role), email: invitation.email }) : t('invitationAs', { role: roleName(invitation.role) })}
                </p>
                ${invitation.firstOwner ? html`<p>${t('invitationFirstOwner')}</p>` : ''}
                <form @submit=${this.submit}>
                  ${
                    invitation.email
                      ? html`<input type="email" name="email" autocomplete="username" .value=${invitation.email} hidden readonly />`
                      : html`<label>${t('email')}<input type="email" name="email" autocomplete="username" required maxlength="254" /></label>`
                  }
                  <label>${t('yourName')}<input name="name" autocomplete="name" required maxlength="100" /></label>
                  <label>${t('newPassword')}<input name="password" type="password" autocomplete="new-password" minlength="12" required /></label>
                  <p class="error" role="alert">${this.message}</p>
                  <div class="actions"><button type="submit" ?disabled=${this.busy}>${t('acceptInvitation')}</button></div>
                </form>
              `,
            )
      }
    `;
  }
}
customElements.define('console-invitation-page', InvitationPage);
