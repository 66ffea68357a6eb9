import { html, nothing, type PropertyValues } from 'lit';
import { apiUrl, get, query, request } from '../api.js';
import { dateTime, money, number, t } from '../i18n.js';
import { statusText } from '../labels.js';
import type { MessageKey } from '../messages-en.js';
import { ConsolePage, problem } from '../page.js';

interface Customer {
  id: number;
  firstName: string | null;
  lastName: string | null;
  companyName: string | null;
  primaryEmail: string | null;
  status: string;
  customerAccountStatus: string;
  currency: string;
  monthlyRecurringRevenue: number;
  createdTimestamp: string;
}

const STATUSES = ['Draft', 'Active', 'Hold', 'Suspended', 'Cancelled'];

/** The query language starts with a field name and a colon (`LastName:Wal*`); anything else is searched as plain text. */
export function isQueryLanguage(text: string): boolean {
  return /^\s*[A-Za-z][\w.]*\s*:/.test(text);
}
const PAGE_SIZE = 25;

/**
 * The columns; `sort` is the list field the API sorts on (sortExpression). Only fields with a sort index
 * (migrations 0006, 0026: Id, LastName, CompanyName, CreatedTimestamp) are offered, so a click stays an index walk
 * at a million customers; e-mail and the statuses are filters, not sorts.
 */
const COLUMNS: Array<{ label: MessageKey; sort: string; num?: boolean }> = [
  { label: 'colId', sort: 'Id', num: true },
  { label: 'colName', sort: 'LastName' },
  { label: 'colEmail', sort: '' },
  { label: 'colCompany', sort: 'CompanyName' },
  { label: 'colStatus', sort: '' },
  { label: 'colAccountStatus', sort: '' },
  { label: 'colMrr', sort: '', num: true },
  { label: 'colCreated', sort: 'CreatedTimestamp' },
];

export function customerName(customer: {
  firstName?: string | null;
  lastName?: string | null;
  companyName?: string | null;
  id?: number;
}): string {
  const name = [customer.firstName, customer.lastName].filter(Boolean).join(' ');
  return name || customer.companyName || `#${customer.id ?? ''}`;
}

/**
 * #/customers: GET /v1/customers with the spec's query language (typed by the operator, plus a status filter),
 * sorted by a clicked column (sortExpression, sortOrder), paged (pageNumber, pageSize; X-Count of X-MaxCount).
 * The server pages and sorts, so this stays quick at a million customers.
 */
export class CustomersPage extends ConsolePage {
  static override properties = {
    ...ConsolePage.properties,
    rows: { state: true },
    failure: { state: true },
    count: { state: true },
    maxCount: { state: true },
    busy: { state: true },
  };
  declare rows: Customer[] | undefined;
  declare failure: unknown;
  declare count: number;
  declare maxCount: number;
  declare busy: boolean;
  private text = '';
  private status = '';
  private sortField = 'CreatedTimestamp';
  private sortOrder: 'Ascending' | 'Descending' = 'Descending';
  private pageNumber = 0;
  private arrived: string | undefined;

  constructor() {
    super();
    this.count = 0;
    this.maxCount = 0;
    this.busy = false;
  }

  /** Plain text goes to the console's search (name, e-mail, company, reference, id); `field:` syntax to the API's list. */
  private get plainText(): string | undefined {
    const text = this.text.trim();
    return text && !isQueryLanguage(text) ? text : undefined;
  }

  private queryText(): string {
    const parts = [this.text.trim().replace(/;+$/, ''), this.status ? `Status:${this.status}` : ''].filter(Boolean);
    return parts.join(';');
  }

  protected override async load() {
    // The header's search box lands here with its words (#/customers?q=…).
    if (this.routeArg !== this.arrived) {
      // …and the plain #/customers (the nav link) after it is the whole list again.
      this.text = this.routeArg ?? '';
      this.arrived = this.routeArg;
      this.pageNumber = 0;
    }
    this.busy = true;
    try {
      const plain = this.plainText;
      if (plain) {
        const found = await get<{ customers: Customer[]; total: number }>(
          `/customers/search${query({ q: plain, status: this.status, limit: PAGE_SIZE, offset: this.pageNumber * PAGE_SIZE })}`,
        );
        this.rows = found.customers;
        this.count = found.total;
        this.maxCount = found.total;
        this.failure = undefined;
        return;
      }
      const answer = await request<Customer[]>(
        'GET',
        `/v1/customers${query({
          query: this.queryText(),
          pageSize: PAGE_SIZE,
          pageNumber: this.pageNumber,
          sortExpression: this.sortField,
          sortOrder: this.sortOrder,
        })}`,
      );
      this.rows = answer.body;
      this.count = Number(answer.headers.get('X-Count') ?? answer.body.length);
      this.maxCount = Number(answer.headers.get('X-MaxCount') ?? this.count);
      this.failure = undefined;
    } catch (error) {
      this.failure = error;
      this.rows = undefined;
    } finally {
      this.busy = false;
    }
  }

  protected override updated(changed: PropertyValues<this>) {
    // New words from the header's search box, or none (the nav link): the base class's rule would miss the first.
    if (changed.has('routeArg') && this.routeArg !== this.arrived) void this.load();
  }

  private search(event: SubmitEvent) {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    this.text = String(form.get('query') ?? '');
    this.status = String(form.get('status') ?? '');
    this.pageNumber = 0;
    void this.load();
  }

  /** The list as CSV with the filters on screen (GET /console/api/exports/customers.csv). */
  private exportUrl(): string {
    const plain = this.plainText;
    return apiUrl(`/exports/customers.csv${plain ? query({ q: plain, status: this.status }) : query({ query: this.queryText() })}`);
  }

  private sortBy(field: string) {
    if (this.sortField === field) this.sortOrder = this.sortOrder === 'Ascending' ? 'Descending' : 'Ascending';
    else {
      this.sortField = field;
      this.sortOrder = 'Ascending';
    }
    this.pageNumber = 0;
    void this.load();
  }

  private goTo(page: number) {
    this.pageNumber = page;
    void this.load();
  }

  override render() {
    const pages = Math.max(1, Math.ceil(this.count / PAGE_SIZE));
    return html`
      <h1 tabindex="-1">${t('customersTitle')}</h1>
      <form class="inline-form" role="search" @submit=${this.search}>
        <label>${t('searchLabel')}
          <input name="query" type="search" size="36" placeholder=${t('searchPlaceholder')} .value=${this.text} aria-describedby="query-help" />
        </label>
        <label>${t('statusFilter')}
          <select aria-label=${t('statusFilter')} name="status">
            <option value="">${t('allStatuses')}</option>
            ${STATUSES.map((status) => html`<option value=${status} ?selected=${status === this.status}>${statusText('customer', status)}</option>`)}
          </select>
        </label>
        <button type="submit" ?disabled=${this.busy}>${t('search')}</button>
      </form>
      <p id="query-help" class="muted">${t('searchPlainHelp')} ${t('searchHelp')} <code>LastName:Wal*; Status:Active,Hold</code></p>
      <p><a href=${this.exportUrl()} download>${t('exportCsv')}</a></p>
      ${this.failure ? problem(this.failure) : nothing}
      ${this.rows ? this.table(this.rows) : this.failure ? nothing : html`<p class="muted" role="status">${t('loading')}</p>`}
      ${
        this.rows
          ? html`<div class="pager">
              <button type="button" ?disabled=${this.pageNumber === 0 || this.busy} @click=${() => this.goTo(this.pageNumber - 1)}>${t('previousPage')}</button>
              <span>${t('pageOf', { page: number(this.pageNumber + 1), pages: number(pages) })}</span>
              <button type="button" ?disabled=${this.pageNumber + 1 >= pages || this.busy} @click=${() => this.goTo(this.pageNumber + 1)}>${t('nextPage')}</button>
            </div>`
          : nothing
      }
    `;
  }

  private table(rows: Customer[]) {
    return html`<div class="table-wrap">
      <table aria-busy=${this.busy ? 'true' : 'false'}>
        <caption>${t('customersCaption', { count: number(this.count), total: number(this.maxCount) })}</caption>
        <thead>
          <tr>
            ${COLUMNS.map((column) => {
              // The plain-text search ranks its matches itself: no column sort then.
              const sortable = this.plainText ? '' : column.sort;
              const sorted = sortable && sortable === this.sortField;
              const ariaSort = sorted ? (this.sortOrder === 'Ascending' ? 'ascending' : 'descending') : nothing;
              return html`<th scope="col" class=${column.num ? 'num' : ''} aria-sort=${ariaSort}>
                ${
                  sortable
                    ? html`<button type="button" class="sort" @click=${() => this.sortBy(sortable)}>
                        ${t(column.label)}<span aria-hidden="true">${sorted ? (this.sortOrder === 'Ascending' ? ' ▲' : ' ▼') : ''}</span>
                      </button>`
                    : t(column.label)
                }
              </th>`;
            })}
          </tr>
        </thead>
        <tbody>
          ${
            rows.length === 0
              ? html`<tr><td colspan=${COLUMNS.length}>${t('noResults')}</td></tr>`
              : rows.map(
                  (customer) => html`<tr>
                    <td class="num">${customer.id}</td>
                    <td><a href="#/customers/${customer.id}">${customerName(customer)}</a></td>
                    <td>${customer.primaryEmail ?? ''}</td>
                    <td>${customer.companyName ?? ''}</td>
                    <td>${statusText('customer', customer.status)}</td>
                    <td>${statusText('account', customer.customerAccountStatus)}</td>
                    <td class="num">${money(customer.monthlyRecurringRevenue, customer.currency)}</td>
                    <td>${dateTime(customer.createdTimestamp)}</td>
                  </tr>`,
                )
          }
        </tbody>
      </table>
    </div>`;
  }
}
customElements.define('console-customers-page', CustomersPage);
