import { html, nothing } from 'lit';
import { apiUrl, get, query } from '../api.js';
import { dateTime, money, number, t } from '../i18n.js';
import { declineText, methodText, statusText } from '../labels.js';
import { ConsolePage, type Loaded, settle, show } from '../page.js';

interface ConsolePayment {
  id: number;
  customerId: number;
  customerName: string | null;
  amount: string | number;
  currency: string;
  status: string;
  declineCode: string | null;
  declineMessage: string | null;
  createdAt: string;
  /** Its date on the account's clock (the customer page shows the same); createdAt is when it was recorded. */
  effectiveAt: string;
  method: string;
}
const PAGE_SIZE = 50;

/** #/payments: GET /console/api/payments, failures first (with decline codes), newest first, dated on the account's clock; CSV export. */
export class PaymentsPage extends ConsolePage {
  static override properties = { ...ConsolePage.properties, data: { state: true }, outcome: { state: true }, offset: { state: true } };
  declare data: Loaded<{ payments: ConsolePayment[]; total: number }>;
  declare outcome: 'failed' | 'all';
  declare offset: number;

  constructor() {
    super();
    this.data = { state: 'loading' };
    this.outcome = 'all';
    this.offset = 0;
  }

  protected override async load() {
    this.data = { state: 'loading' };
    this.data = await settle(get(`/payments${query({ outcome: this.outcome, limit: PAGE_SIZE, offset: this.offset })}`));
  }

  private choose(outcome: 'failed' | 'all') {
    this.outcome = outcome;
    this.offset = 0;
    void this.load();
  }

  private page(offset: number) {
    this.offset = Math.max(0, offset);
    void this.load();
  }

  override render() {
    return html`
      <h1 tabindex="-1">${t('paymentsTitle')}</h1>
      <div class="actions" role="group" aria-label=${t('paymentsTitle')}>
        <button type="button" aria-pressed=${this.outcome === 'all'} @click=${() => this.choose('all')}>${t('showAll')}</button>
        <button type="button" aria-pressed=${this.outcome === 'failed'} @click=${() => this.choose('failed')}>${t('showFailedOnly')}</button>
      </div>
      <p><a href=${apiUrl(`/exports/payments.csv${query({ outcome: this.outcome })}`)} download>${t('exportCsv')}</a></p>
      ${show(
        this.data,
        ({ payments, total }) => html`<div class="table-wrap"><table>
            <caption>${t('paymentsCaption', { total: number(total) })}</caption>
            <thead><tr>
              <th scope="col">${t('colDate')}</th><th scope="col">${t('colCustomer')}</th><th scope="col" class="num">${t('colAmount')}</th><th scope="col">${t('colMethod')}</th>
              <th scope="col">${t('colStatus')}</th><th scope="col">${t('colDecline')}</th>
            </tr></thead>
            <tbody>
              ${payments.length === 0 ? html`<tr><td colspan="6">${t('noResults')}</td></tr>` : nothing}
              ${payments.map(
                (row) => html`<tr>
                  <td>${dateTime(row.effectiveAt)}</td><td><a href="#/customers/${row.customerId}">${row.customerName || `#${row.customerId}`}</a></td>
                  <td class="num">${money(row.amount, row.currency)}</td><td>${methodText(row.method)}</td>
                  <td>${row.status === 'Failed' ? html`<strong class="error">${statusText('payment', row.status)}</strong>` : statusText('payment', row.status)}</td>
                  <td>${declineText(row.declineCode, row.declineMessage)}${row.declineCode ? html`<br /><code class="muted">${row.declineCode}</code>` : nothing}</td>
                </tr>`,
              )}
            </tbody>
          </table></div>
          <div class="pager">
            <button type="button" ?disabled=${this.offset === 0} @click=${() => this.page(this.offset - PAGE_SIZE)}>${t('previousPage')}</button>
            <span>${t('pageOf', { page: number(this.offset / PAGE_SIZE + 1), pages: number(Math.max(1, Math.ceil(total / PAGE_SIZE))) })}</span>
            <button type="button" ?disabled=${this.offset + PAGE_SIZE >= total} @click=${() => this.page(this.offset + PAGE_SIZE)}>${t('nextPage')}</button>
          </div>`,
      )}
    `;
  }
}
customElements.define('console-payments-page', PaymentsPage);
