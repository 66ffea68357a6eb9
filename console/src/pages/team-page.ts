import { html, nothing } from 'lit';
import { can, get, post, request, ROLES, type Role } from '../api.js';
import { dateTime, roleName, t } from '../i18n.js';
import { ConsolePage, type Loaded, problemText, settle, show } from '../page.js';

interface TeamOperator {
  id: number | string;
  email: string;
  name: string;
  role: Role;
  totpEnabled: boolean;
  createdAt: string;
  lastSignInAt: string | null;
}
interface TeamInvitation {
  id: number | string;
  email: string;
  role: Role;
  expiresAt: string;
  createdAt: string;
}

/** #/team (owners): operators and open invitations; invite with a role (the link is shown), change a role, remove. */
export class TeamPage extends ConsolePage {
  static override properties = {
    ...ConsolePage.properties,
    data: { state: true },
    invited: { state: true },
    message: { state: true },
    removing: { state: true },
  };
  declare data: Loaded<{ operators: TeamOperator[]; invitations: TeamInvitation[] }>;
  declare invited: { email: string; link: string } | undefined;
  declare message: string;
  declare removing: TeamOperator | undefined;

  constructor() {
    super();
    this.data = { state: 'loading' };
    this.message = '';
  }

  protected override async load() {
    if (!can.manageTeam(this.operator?.role)) return;
    this.data = await settle(get('/operators'));
  }

  private async invite(event: SubmitEvent) {
    event.preventDefault();
    const formElement = event.target as HTMLFormElement;
    const form = new FormData(formElement);
    const email = String(form.get('email') ?? '').trim();
    this.message = '';
    try {
      const answer = await post<{ link: string }>('/invitations', { email, role: String(form.get('role') ?? 'viewer') });
      this.invited = { email, link: answer.link };
      formElement.reset();
      await this.load();
    } catch (error) {
      this.message = problemText(error);
    }
  }

  private async changeRole(operator: TeamOperator, role: string) {
    this.message = '';
    try {
      await request('PATCH', `/operators/${encodeURIComponent(String(operator.id))}`, { body: { role } });
    } catch (error) {
      this.message = problemText(error);
    }
    await this.load();
  }

  private async askRemove(operator: TeamOperator) {
    this.removing = operator;
    await this.updateComplete;
    this.dialog('remove-dialog')?.showModal();
  }

  private async removeOperator() {
    const operator = this.removing;
    this.dialog('remove-dialog')?.close();
    if (!operator) return;
    this.message = '';
    try {
      await request('DELETE', `/operators/${encodeURIComponent(String(operator.id))}`);
    } catch (error) {
      this.message = problemText(error);
    }
    await this.load();
  }

  override render() {
    if (!can.manageTeam(this.operator?.role)) return html`<h1 tabindex="-1">${t('teamTitle')}</h1><p>${t('notAllowed')}</p>`;
    const me = this.operator?.id;
    return html`
      <h1 tabindex="-1">${t('teamTitle')}</h1>
      <section class="card" aria-labelledby="invite-title">
        <h2 id="invite-title">${t('inviteTitle')}</h2>
        <form class="inline-form" @submit=${this.invite}>
          <label>${t('email')}<input name="email" type="email" required autocomplete="off" /></label>
          <label>${t('role')}
            <select aria-label=${t('role')} name="role">${ROLES.map((role) => html`<option value=${role} ?selected=${role === 'viewer'}>${roleName(role)}</option>`)}</select>
          </label>
          <button type="submit">${t('invite')}</button>
        </form>
        ${
          this.invited
            ? html`<div role="status"><p>${t('invitationLink', { email: this.invited.email })}</p><pre class="code" data-invitation-link>${this.invited.link}</pre></div>`
            : nothing
        }
      </section>
      <p class="error" role="alert">${this.message}</p>
      ${show(
        this.data,
        ({ operators, invitations }) => html`
          <div class="table-wrap"><table>
            <caption>${t('operators')}</caption>
            <thead><tr><th scope="col">${t('colName')}</th><th scope="col">${t('colEmail')}</th><th scope="col">${t('colRole')}</th><th scope="col">${t('colTotp')}</th><th scope="col">${t('colLastSignIn')}</th><th scope="col">${t('colActions')}</th></tr></thead>
            <tbody>
              ${operators.map(
                (operator) => html`<tr>
                  <td>${operator.name} ${operator.id === me ? t('you') : ''}</td><td>${operator.email}</td>
                  <td>
                    <select aria-label=${t('changeRole', { name: operator.name || operator.email })} ?disabled=${operator.id === me}
                      @change=${(event: Event) => this.changeRole(operator, (event.target as HTMLSelectElement).value)}>
                      ${ROLES.map((role) => html`<option value=${role} ?selected=${role === operator.role}>${roleName(role)}</option>`)}
                    </select>
                  </td>
                  <td>${operator.totpEnabled ? t('yes') : t('no')}</td><td>${dateTime(operator.lastSignInAt)}</td>
                  <td>${operator.id === me ? nothing : html`<button type="button" class="danger" @click=${() => this.askRemove(operator)}>${t('remove')}</button>`}</td>
                </tr>`,
              )}
            </tbody>
          </table></div>
          <div class="table-wrap"><table>
            <caption>${t('invitations')}</caption>
            <thead><tr><th scope="col">${t('colEmail')}</th><th scope="col">${t('colRole')}</th><th scope="col">${t('colCreated')}</th><th scope="col">${t('colExpires')}</th></tr></thead>
            <tbody>
              ${invitations.length === 0 ? html`<tr><td colspan="4">${t('none')}</td></tr>` : nothing}
              ${invitations.map((invitation) => html`<tr><td>${invitation.email}</td><td>${roleName(invitation.role)}</td><td>${dateTime(invitation.createdAt)}</td><td>${dateTime(invitation.expiresAt)}</td></tr>`)}
            </tbody>
          </table></div>
        `,
      )}
      <dialog id="remove-dialog" aria-labelledby="remove-title" @close=${() => (this.removing = undefined)}>
        <h2 id="remove-title">${this.removing ? t('removeConfirm', { name: this.removing.name || this.removing.email }) : t('remove')}</h2>
        <div class="actions">
          <button type="button" class="danger" @click=${this.removeOperator}>${t('remove')}</button>
          <button type="button" @click=${() => this.dialog('remove-dialog')?.close()}>${t('cancel')}</button>
        </div>
      </dialog>
    `;
  }
}
customElements.define('console-team-page', TeamPage);
