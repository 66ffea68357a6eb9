import { html, nothing } from 'lit';
import { can, get, post, query } from '../api.js';
import { dateTime, money, number, t } from '../i18n.js';
import { statusText } from '../labels.js';
import { ConsolePage, type Loaded, problemText, settle, show } from '../page.js';

interface BulkRecord {
  index: number;
  status: string;
  customerId: number | null;
  amount: number | null;
  reference: string | null;
  errors: Array<{ Key: string; Value: string }>;
  paymentId: number | null;
  processedTimestamp: string | null;
}
interface BulkJob {
  id: number;
  type: string;
  status: string;
  createdTimestamp: string;
  completedTimestamp: string | null;
  totalRecords: number;
  successfulRecords: number;
  failedRecords: number;
  totalProcessedRecords: number;
  processedRecords: number;
  failedProcessedRecords: number;
  fileName: string | null;
  reference: string | null;
  records?: BulkRecord[];
}

/** A row of GET /console/api/bulk-jobs: a job and its records counted by status. */
interface BulkJobSummary {
  id: number;
  status: string;
  reference: string | null;
  createdAt: string;
  completedAt: string | null;
  counts: Record<'Invalid' | 'Pending' | 'Processing' | 'Succeeded' | 'Failed' | 'Cancelled', number>;
}
const JOB_STATUSES = ['Validated', 'Processing', 'Completed', 'Cancelled'];
const PAGE_SIZE = 50;

/**
 * #/bulk: the account's bulk payment jobs, newest first, with their records counted by status (GET /console/api/bulk-jobs);
 * opening one reads it with its records through the API (GET /v1/BulkApi/{id}?view=full). Billing and owners process or
 * cancel a Validated job.
 */
export class BulkPage extends ConsolePage {
  static override properties = {
    ...ConsolePage.properties,
    jobs: { state: true },
    job: { state: true },
    status: { state: true },
    offset: { state: true },
    message: { state: true },
  };
  declare jobs: Loaded<{ jobs: BulkJobSummary[]; total: number }>;
  declare job: Loaded<BulkJob> | undefined;
  declare status: string;
  declare offset: number;
  declare message: string;

  constructor() {
    super();
    this.jobs = { state: 'loading' };
    this.status = '';
    this.offset = 0;
    this.message = '';
  }

  protected override async load() {
    this.jobs = await settle(get(`/bulk-jobs${query({ status: this.status, limit: PAGE_SIZE, offset: this.offset })}`));
  }

  private pageTo(offset: number) {
    this.offset = Math.max(0, offset);
    void this.load();
  }

  private async open(id: number) {
    this.message = '';
    this.job = { state: 'loading' };
    this.job = await settle(get<BulkJob>(`/v1/BulkApi/${id}?view=full`));
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLElement>('#job-title')?.focus();
  }

  private async act(job: BulkJob, action: 'process' | 'cancel') {
    try {
      if (action === 'process') await post('/v1/BulkApi/Process', { id: job.id });
      else await post(`/v1/BulkApi/Cancel/${job.id}`);
      await Promise.all([this.open(job.id), this.load()]);
    } catch (error) {
      this.message = problemText(error);
    }
  }

  override render() {
    return html`
      <h1 tabindex="-1">${t('bulkTitle')}</h1>
      <p class="muted">${t('bulkHelp')}</p>
      <label>${t('jobStatus')}
        <select aria-label=${t('jobStatus')} @change=${(event: Event) => {
          this.status = (event.target as HTMLSelectElement).value;
          this.offset = 0;
          void this.load();
        }}>
          <option value="">${t('allStatuses')}</option>
          ${JOB_STATUSES.map((status) => html`<option value=${status} ?selected=${status === this.status}>${statusText('bulkJob', status)}</option>`)}
        </select>
      </label>
      ${show(
        this.jobs,
        ({ jobs, total }) => html`<div class="table-wrap"><table>
            <caption>${t('bulkJobsCaption', { total: number(total) })}</caption>
            <thead><tr>
              <th scope="col">${t('colId')}</th><th scope="col">${t('colStatus')}</th><th scope="col">${t('reference')}</th>
              <th scope="col">${t('colCreated')}</th><th scope="col">${t('colCompleted')}</th>
              <th scope="col" class="num">${t('colRecords')}</th><th scope="col" class="num">${t('colRecordsInvalid')}</th>
              <th scope="col" class="num">${t('colRecordsWaiting')}</th><th scope="col" class="num">${t('colRecordsPaid')}</th>
              <th scope="col" class="num">${t('colRecordsDeclined')}</th><th scope="col" class="num">${t('colRecordsCancelled')}</th>
            </tr></thead>
            <tbody>
              ${jobs.length === 0 ? html`<tr><td colspan="11">${t('noResults')}</td></tr>` : nothing}
              ${jobs.map((row) => {
                const c = row.counts;
                const records = c.Invalid + c.Pending + c.Processing + c.Succeeded + c.Failed + c.Cancelled;
                return html`<tr>
                  <td><button type="button" aria-label=${t('openBulkJob', { id: row.id })} @click=${() => this.open(row.id)}>${row.id}</button></td>
                  <td>${statusText('bulkJob', row.status)}</td><td>${row.reference ?? ''}</td>
                  <td>${dateTime(row.createdAt)}</td><td>${row.completedAt ? dateTime(row.completedAt) : ''}</td>
                  <td class="num">${number(records)}</td><td class="num">${number(c.Invalid)}</td>
                  <td class="num">${number(c.Pending + c.Processing)}</td><td class="num">${number(c.Succeeded)}</td>
                  <td class="num">${number(c.Failed)}</td><td class="num">${number(c.Cancelled)}</td>
                </tr>`;
              })}
            </tbody>
          </table></div>
          <div class="pager">
            <button type="button" ?disabled=${this.offset === 0} @click=${() => this.pageTo(this.offset - PAGE_SIZE)}>${t('previousPage')}</button>
            <span>${t('pageOf', { page: number(this.offset / PAGE_SIZE + 1), pages: number(Math.max(1, Math.ceil(total / PAGE_SIZE))) })}</span>
            <button type="button" ?disabled=${this.offset + PAGE_SIZE >= total} @click=${() => this.pageTo(this.offset + PAGE_SIZE)}>${t('nextPage')}</button>
          </div>`,
      )}
      <p class="error" role="alert">${this.message}</p>
      ${this.job ? show(this.job, (job) => this.jobDetail(job)) : nothing}
    `;
  }

  private jobDetail(job: BulkJob) {
    const canAct = can.act(this.operator?.role);
    return html`<section class="card" aria-labelledby="job-title">
      <h2 id="job-title" tabindex="-1">${t('bulkJob', { id: job.id })}</h2>
      <dl class="facts">
        <div><dt>${t('colStatus')}</dt><dd>${statusText('bulkJob', job.status)}</dd></div>
        <div><dt>${t('colCreated')}</dt><dd>${dateTime(job.createdTimestamp)}</dd></div>
        <div><dt>${t('reference')}</dt><dd>${job.reference ?? job.fileName ?? ''}</dd></div>
        <div><dt>${t('colRecords')}</dt><dd>${number(job.totalRecords)}</dd></div>
        <div><dt>${t('colSucceeded')}</dt><dd>${number(job.successfulRecords)}</dd></div>
        <div><dt>${t('colFailed')}</dt><dd>${number(job.failedRecords)}</dd></div>
        <div><dt>${t('colProcessed')}</dt><dd>${number(job.processedRecords)} / ${number(job.totalProcessedRecords)}</dd></div>
      </dl>
      ${
        canAct && job.status === 'Validated'
          ? html`<div class="actions">
              <button type="button" class="primary" @click=${() => this.act(job, 'process')}>${t('processJob')}</button>
              <button type="button" class="danger" @click=${() => this.act(job, 'cancel')}>${t('cancelJob')}</button>
            </div>`
          : nothing
      }
      <div class="table-wrap"><table>
        <caption>${t('bulkRecords', { id: job.id })}</caption>
        <thead><tr><th scope="col">#</th><th scope="col">${t('colStatus')}</th><th scope="col">${t('colCustomer')}</th><th scope="col" class="num">${t('colAmount')}</th><th scope="col">${t('reference')}</th><th scope="col">${t('colPayment')}</th><th scope="col">${t('colError')}</th></tr></thead>
        <tbody>
          ${(job.records ?? []).map(
            (record) => html`<tr>
              <td>${record.index}</td><td>${statusText('bulkRecord', record.status)}</td>
              <td>${record.customerId ? html`<a href="#/customers/${record.customerId}">${record.customerId}</a>` : ''}</td>
              <td class="num">${record.amount === null ? '' : money(record.amount, null)}</td><td>${record.reference ?? ''}</td><td>${record.paymentId ?? ''}</td>
              <td>${record.errors.map((error) => `${error.Key}: ${error.Value}`).join('; ')}</td>
            </tr>`,
          )}
        </tbody>
      </table></div>
    </section>`;
  }
}
customElements.define('console-bulk-page', BulkPage);
