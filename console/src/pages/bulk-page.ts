import { html, nothing } from 'lit';
import { can, get, post } from '../api.js';
import { dateTime, money, number, t } from '../i18n.js';
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

const RECENT_KEY = 'renew-console-bulk-jobs';

function recentJobIds(): number[] {
  try {
    const ids = JSON.parse(localStorage.getItem(RECENT_KEY) ?? '[]') as unknown;
    return Array.isArray(ids) ? ids.filter((id): id is number => Number.isInteger(id)).slice(0, 20) : [];
  } catch {
    return [];
  }
}

/**
 * #/bulk: bulk payment jobs through the API (the spec has no list of jobs: GET /v1/BulkApi/{id}?view=full reads one
 * with its records; the jobs opened here are remembered in this browser). Billing and owners process or cancel a job.
 */
export class BulkPage extends ConsolePage {
  static override properties = { ...ConsolePage.properties, job: { state: true }, recent: { state: true }, message: { state: true } };
  declare job: Loaded<BulkJob> | undefined;
  declare recent: Loaded<BulkJob>[];
  declare message: string;

  constructor() {
    super();
    this.recent = [];
    this.message = '';
  }

  protected override async load() {
    this.recent = await Promise.all(recentJobIds().map((id) => settle(get<BulkJob>(`/v1/BulkApi/${id}`))));
  }

  private async open(id: number) {
    this.job = { state: 'loading' };
    this.job = await settle(get<BulkJob>(`/v1/BulkApi/${id}?view=full`));
    if (this.job.state === 'ok') {
      localStorage.setItem(RECENT_KEY, JSON.stringify([id, ...recentJobIds().filter((other) => other !== id)].slice(0, 20)));
      void this.load();
    }
  }

  private submit(event: SubmitEvent) {
    event.preventDefault();
    const id = Number(new FormData(event.target as HTMLFormElement).get('jobId'));
    if (Number.isInteger(id) && id > 0) void this.open(id);
  }

  private async act(job: BulkJob, action: 'process' | 'cancel') {
    try {
      if (action === 'process') await post('/v1/BulkApi/Process', { id: job.id });
      else await post(`/v1/BulkApi/Cancel/${job.id}`);
      await this.open(job.id);
    } catch (error) {
      this.message = problemText(error);
    }
  }

  override render() {
    return html`
      <h1 tabindex="-1">${t('bulkTitle')}</h1>
      <p class="muted">${t('bulkHelp')}</p>
      <form class="inline-form" @submit=${this.submit}>
        <label>${t('bulkJobId')}<input name="jobId" inputmode="numeric" pattern="[0-9]+" required /></label>
        <button type="submit">${t('openJob')}</button>
      </form>
      <p class="error" role="alert">${this.message}</p>
      ${this.job ? show(this.job, (job) => this.jobDetail(job)) : nothing}
      ${
        this.recent.length
          ? html`<h2>${t('recentJobs')}</h2>
              <div class="table-wrap"><table>
                <caption class="visually-hidden">${t('recentJobs')}</caption>
                <thead><tr><th scope="col">${t('colId')}</th><th scope="col">${t('colStatus')}</th><th scope="col">${t('colCreated')}</th><th scope="col" class="num">${t('colRecords')}</th><th scope="col" class="num">${t('colProcessed')}</th></tr></thead>
                <tbody>
                  ${this.recent.map((entry) =>
                    entry.state === 'ok'
                      ? html`<tr><td><button type="button" @click=${() => this.open(entry.value.id)}>${entry.value.id}</button></td><td>${entry.value.status}</td><td>${dateTime(entry.value.createdTimestamp)}</td><td class="num">${number(entry.value.totalRecords)}</td><td class="num">${number(entry.value.processedRecords)}</td></tr>`
                      : nothing,
                  )}
                </tbody>
              </table></div>`
          : nothing
      }
    `;
  }

  private jobDetail(job: BulkJob) {
    const canAct = can.act(this.operator?.role);
    return html`<section class="card" aria-labelledby="job-title">
      <h2 id="job-title">${t('bulkJob', { id: job.id })}</h2>
      <dl class="facts">
        <div><dt>${t('colStatus')}</dt><dd>${job.status}</dd></div>
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
              <td>${record.index}</td><td>${record.status}</td>
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
