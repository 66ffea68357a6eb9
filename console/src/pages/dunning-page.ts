import { html, nothing } from 'lit';
import { get } from '../api.js';
import { date, money, number, t } from '../i18n.js';
import { statusText } from '../labels.js';
import { ConsolePage, type Loaded, settle, show } from '../page.js';

interface DunningCustomer {
  id: number;
  name: string | null;
  email: string | null;
  status: string;
  accountStatus: string;
  balance: string | number;
  currency: string;
  poorStandingSince: string | null;
  daysToSuspension: number | null;
}

/** #/dunning: customers in Collection or PoorStanding, with the days left before suspension. */
export class DunningPage extends ConsolePage {
  static override properties = { ...ConsolePage.properties, data: { state: true } };
  declare data: Loaded<{ customers: DunningCustomer[] }>;

  constructor() {
    super();
    this.data = { state: 'loading' };
  }

  protected override async load() {
    this.data = await settle(get('/dunning'));
  }

  override render() {
    return html`
      <h1 tabindex="-1">${t('dunningTitle')}</h1>
      ${show(
        this.data,
        ({ customers }) => html`<div class="table-wrap"><table>
          <caption>${t('dunningCaption')}</caption>
          <thead><tr>
            <th scope="col">${t('colCustomer')}</th><th scope="col">${t('colEmail')}</th><th scope="col">${t('colStatus')}</th><th scope="col">${t('colAccountStatus')}</th>
            <th scope="col" class="num">${t('colBalance')}</th><th scope="col">${t('colPoorSince')}</th><th scope="col" class="num">${t('colDaysToSuspension')}</th>
          </tr></thead>
          <tbody>
            ${customers.length === 0 ? html`<tr><td colspan="7">${t('noResults')}</td></tr>` : nothing}
            ${customers.map(
              (row) => html`<tr>
                <td><a href="#/customers/${row.id}">${row.name || `#${row.id}`}</a></td><td>${row.email ?? ''}</td><td>${statusText('customer', row.status)}</td><td>${statusText('account', row.accountStatus)}</td>
                <td class="num">${money(row.balance, row.currency)}</td><td>${date(row.poorStandingSince)}</td>
                <td class="num">${row.daysToSuspension === null ? '' : number(row.daysToSuspension)}</td>
              </tr>`,
            )}
          </tbody>
        </table></div>`,
      )}
    `;
  }
}
customElements.define('console-dunning-page', DunningPage);
