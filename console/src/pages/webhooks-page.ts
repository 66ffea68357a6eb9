import { html, nothing } from 'lit';
import { can, get, post, query } from '../api.js';
import { dateTime, number, t } from '../i18n.js';
import { statusText } from '../labels.js';
import { ConsolePage, type Loaded, problemText, settle, show } from '../page.js';

interface Endpoint {
  id: number;
  url: string;
  description: string | null;
  status: string;
  eventTypes: string[];
  failingSinceTimestamp?: string | null;
}
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

/** #/webhooks: the endpoints (GET /v1/webhookEndpoints, owners) and every delivery with its status, attempts and last response; owners resend. */
export class WebhooksPage extends ConsolePage {
  static override properties = {
    ...ConsolePage.properties,
    endpoints: { state: true },
    deliveries: { state: true },
    status: { state: true },
    offset: { state: true },
    announcement: { state: true },
  };
  declare endpoints: Loaded<Endpoint[]> | undefined;
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

  protected override async load() {
    const role = this.operator?.role;
    await Promise.all([
      can.webhookEndpoints(role) ? settle(get<Endpoint[]>('/v1/webhookEndpoints')).then((value) => (this.endpoints = value)) : undefined,
      this.loadDeliveries(),
    ]);
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
        this.endpoints
          ? html`<h2>${t('endpoints')}</h2>
              ${show(
                this.endpoints,
                (rows) => html`<div class="table-wrap"><table>
                <caption class="visually-hidden">${t('endpoints')}</caption>
                <thead><tr><th scope="col">${t('colId')}</th><th scope="col">${t('colUrl')}</th><th scope="col">${t('colStatus')}</th><th scope="col">${t('colEvents')}</th></tr></thead>
                <tbody>
                  ${rows.length === 0 ? html`<tr><td colspan="4">${t('none')}</td></tr>` : nothing}
                  ${rows.map((row) => html`<tr><td>${row.id}</td><td>${row.url}${row.description ? html`<br /><span class="muted">${row.description}</span>` : nothing}</td><td>${statusText('endpoint', row.status)}</td><td>${row.eventTypes.join(', ')}</td></tr>`)}
                </tbody>
              </table></div>`,
              )}`
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
