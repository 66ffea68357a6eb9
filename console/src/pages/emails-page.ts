import { html, nothing } from 'lit';
import { get, query } from '../api.js';
import { dateTime, number, t } from '../i18n.js';
import { emailTypeText, languageText, statusText } from '../labels.js';
import { ConsolePage, type Loaded, settle, show } from '../page.js';

interface OutboxEmail {
  id: number;
  customerId: number | null;
  to: string;
  type: string;
  language: string;
  status: string;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
}
const STATUSES = ['Pending', 'Sent', 'Failed'];
const PAGE_SIZE = 50;

/** #/emails: the e-mail outbox with each message's status (GET /console/api/emails). */
export class EmailsPage extends ConsolePage {
  static override properties = { ...ConsolePage.properties, data: { state: true }, status: { state: true }, offset: { state: true } };
  declare data: Loaded<{ emails: OutboxEmail[]; total: number }>;
  declare status: string;
  declare offset: number;

  constructor() {
    super();
    this.data = { state: 'loading' };
    this.status = '';
    this.offset = 0;
  }

  protected override async load() {
    this.data = await settle(get(`/emails${query({ status: this.status, limit: PAGE_SIZE, offset: this.offset })}`));
  }

  private pageTo(offset: number) {
    this.offset = Math.max(0, offset);
    void this.load();
  }

  override render() {
    return html`
      <h1 tabindex="-1">${t('emailsTitle')}</h1>
      <label>${t('emailStatus')}
        <select aria-label=${t('emailStatus')} @change=${(event: Event) => {
          this.status = (event.target as HTMLSelectElement).value;
          this.offset = 0;
          void this.load();
        }}>
          <option value="">${t('allStatuses')}</option>
          ${STATUSES.map((status) => html`<option value=${status} ?selected=${status === this.status}>${statusText('email', status)}</option>`)}
        </select>
      </label>
      ${show(
        this.data,
        ({ emails, total }) => html`<div class="table-wrap"><table>
            <caption>${t('emailsCaption', { total: number(total) })}</caption>
            <thead><tr>
              <th scope="col">${t('colCreated')}</th><th scope="col">${t('colTo')}</th><th scope="col">${t('colType')}</th><th scope="col">${t('colLanguage')}</th>
              <th scope="col">${t('colStatus')}</th><th scope="col" class="num">${t('colAttempts')}</th><th scope="col">${t('colSent')}</th><th scope="col">${t('colError')}</th>
            </tr></thead>
            <tbody>
              ${emails.length === 0 ? html`<tr><td colspan="8">${t('noResults')}</td></tr>` : nothing}
              ${emails.map(
                (row) => html`<tr>
                  <td>${dateTime(row.createdAt)}</td>
                  <td>${row.customerId ? html`<a href="#/customers/${row.customerId}">${row.to}</a>` : row.to}</td>
                  <td>${emailTypeText(row.type)}</td><td>${languageText(row.language)}</td><td>${statusText('email', row.status)}</td><td class="num">${number(row.attempts)}</td>
                  <td>${dateTime(row.sentAt)}</td><td>${row.lastError ?? ''}</td>
                </tr>`,
              )}
            </tbody>
          </table></div>
          <div class="pager">
            <button type="button" ?disabled=${this.offset === 0} @click=${() => this.pageTo(this.offset - PAGE_SIZE)}>${t('previousPage')}</button>
            <span>${t('pageOf', { page: number(this.offset / PAGE_SIZE + 1), pages: number(Math.max(1, Math.ceil(total / PAGE_SIZE))) })}</span>
            <button type="button" ?disabled=${this.offset + PAGE_SIZE >= total} @click=${() => this.pageTo(this.offset + PAGE_SIZE)}>${t('nextPage')}</button>
          </div>`,
      )}
    `;
  }
}
customElements.define('console-emails-page', EmailsPage);
