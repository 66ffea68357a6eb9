import { html, nothing } from 'lit';
import { can, get, post, query } from '../api.js';
import { dateTime, number, t } from '../i18n.js';
import { statusText } from '../labels.js';
import { ConsolePage, type Loaded, problemText, settle, show } from '../page.js';
import './webhook-endpoints-section.js';

interface Delivery {
  id: number;
  eventId: string;
  eventType: string;
  endpointId: number;
  endpointUrl: string;
  status: string;
  attempts: number;
  lastResponseStatus: number | null;
  lastResponseBody: string | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
}
const DELIVERY_STATUSES = ['Pending', 'Succeeded', 'Failed'];
const PAGE_SIZE = 50;

/** #/webhooks: the endpoints (owners: create, edit, send a test event; webhook-endpoints-section.ts) and every delivery with its status, attempts and last response; owners resend. */
export class WebhooksPage extends ConsolePage {
  static override properties = {
    ...ConsolePage.properties,
    deliveries: { state: true },
    status: { state: true },
    offset: { state: true },
    announcement: { state: true },
  };
  declare deliveries: Loaded<{ deliveries: Delivery[]; total: number }>;
  declare status: string;
  declare offset: number;
  declare announcement: string;

  constructor() {
    super();
    this.deliveries = { state: 'loading' };
    this.status = '';
    this.offset = 0;
    this.announcement = '';
  }

  override connectedCallback() {
    super.connectedCallback();
    this.addEventListener('console-webhook-test-sent', () => void this.loadDeliveries());
  }

  protected override async load() {
    await this.loadDeliveries();
  }

  private async loadDeliveries() {
    this.deliveries = await settle(get(`/webhook-deliveries${query({ status: this.status, limit: PAGE_SIZE, offset: this.offset })}`));
  }

  private async resend(delivery: Delivery) {
    try {
      await post(`/webhook-deliveries/${delivery.id}/resend`);
      this.announcement = t('resent', { id: delivery.id });
      await this.loadDeliveries();
    } catch (error) {
      this.announcement = problemText(error);
    }
  }

  private pageTo(offset: number) {
    this.offset = Math.max(0, offset);
    void this.loadDeliveries();
  }

  override render() {
    const resend = can.resend(this.operator?.role);
    return html`
      <h1 tabindex="-1">${t('webhooksTitle')}</h1>
      <p role="status" class="ok">${this.announcement}</p>
      ${
        can.webhookEndpoints(this.operator?.role)
          ? html`<console-webhook-endpoints .operator=${this.operator} .lang=${this.lang}></console-webhook-endpoints>`
          : nothing
      }
      <h2>${t('deliveries')}</h2>
      <label>${t('deliveryStatus')}
        <select aria-label=${t('deliveryStatus')} @change=${(event: Event) => {
          this.status = (event.target as HTMLSelectElement).value;
          this.offset = 0;
          void this.loadDeliveries();
        }}>
          <option value="">${t('allStatuses')}</option>
          ${DELIVERY_STATUSES.map((status) => html`<option value=${status} ?selected=${status === this.status}>${statusText('delivery', status)}</option>`)}
        </select>
      </label>
      ${show(
        this.deliveries,
        ({ deliveries, total }) => html`<div class="table-wrap"><table>
            <caption class="visually-hidden">${t('deliveries')}</caption>
            <thead><tr>
              <th scope="col">${t('colLastAttempt')}</th><th scope="col">${t('colType')}</th><th scope="col">${t('colUrl')}</th><th scope="col">${t('colStatus')}</th>
              <th scope="col" class="num">${t('colAttempts')}</th><th scope="col">${t('colResponse')}</th><th scope="col">${t('colNextAttempt')}</th>${resend ? html`<th scope="col">${t('colActions')}</th>` : nothing}
            </tr></thead>
            <tbody>
              ${deliveries.length === 0 ? html`<tr><td colspan=${resend ? 8 : 7}>${t('noResults')}</td></tr>` : nothing}
              ${deliveries.map(
                (row) => html`<tr>
                  <td>${dateTime(row.lastAttemptAt)}</td><td>${row.eventType}<br /><span class="muted">${row.eventId}</span></td><td>${row.endpointUrl}</td><td>${statusText('delivery', row.status)}</td>
                  <td class="num">${number(row.attempts)}</td>
                  <td>${row.lastResponseStatus ?? ''} ${row.lastResponseBody ? html`<br /><code>${row.lastResponseBody.slice(0, 200)}</code>` : nothing}</td>
                  <td>${dateTime(row.nextAttemptAt)}</td>
                  ${resend ? html`<td><button type="button" @click=${() => this.resend(row)}>${t('resend')}</button></td>` : nothing}
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
customElements.define('console-webhooks-page', WebhooksPage);
