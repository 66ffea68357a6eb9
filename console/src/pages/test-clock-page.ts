import { html, nothing, type TemplateResult } from 'lit';
import { can, get, post } from '../api.js';
import { dateTime, number, t } from '../i18n.js';
import type { MessageKey } from '../messages-en.js';
import { ConsolePage, type Loaded, problemText, settle, show } from '../page.js';

interface TestClock {
  now: string;
  advanced: boolean;
}
type Advance = TestClock & Record<string, number | string | boolean>;

/** What an advance did, as the API counts it (README "Test clocks"). */
const SUMMARY: Array<{ field: string; label: MessageKey }> = [
  { field: 'days', label: 'clockDays' },
  { field: 'invoicesPosted', label: 'clockInvoicesPosted' },
  { field: 'customersRenewed', label: 'clockCustomersRenewed' },
  { field: 'paymentsCollected', label: 'clockPaymentsCollected' },
  { field: 'paymentsFailed', label: 'clockPaymentsFailed' },
  { field: 'overdueNotices', label: 'clockOverdueNotices' },
  { field: 'customersSuspended', label: 'clockCustomersSuspended' },
  { field: 'customersReactivated', label: 'clockCustomersReactivated' },
  { field: 'customersCancelled', label: 'clockCustomersCancelled' },
  { field: 'emailsQueued', label: 'clockEmailsQueued' },
  { field: 'webhookEventsQueued', label: 'clockWebhookEventsQueued' },
];

/** `from` moved on by `amount` days, weeks or months, in UTC (the billing calendar's). */
export function advancedBy(from: Date, amount: number, unit: string): Date {
  const to = new Date(from.getTime());
  if (unit === 'months') to.setUTCMonth(to.getUTCMonth() + amount);
  else to.setUTCDate(to.getUTCDate() + amount * (unit === 'weeks' ? 7 : 1));
  return to;
}

/**
 * #/test-clock (shown when the account has a test clock, RENEW_TEST_CLOCKS): the account's time, and for owners and
 * billing, advancing it by a duration or to a date (POST /v1/testclock/advance runs the billing clock for every day
 * passed, then this page shows what it did) and going back to real time (POST /v1/testclock/reset).
 */
export class TestClockPage extends ConsolePage {
  static override properties = {
    ...ConsolePage.properties,
    clock: { state: true },
    result: { state: true },
    busy: { state: true },
    error: { state: true },
  };
  declare clock: Loaded<TestClock>;
  declare result: Advance | undefined;
  declare busy: boolean;
  declare error: string;

  constructor() {
    super();
    this.clock = { state: 'loading' };
    this.busy = false;
    this.error = '';
  }

  protected override async load() {
    this.clock = await settle(get<TestClock>('/v1/testclock'));
  }

  private async advance(event: SubmitEvent) {
    event.preventDefault();
    if (this.clock.state !== 'ok') return;
    const form = new FormData(event.target as HTMLFormElement);
    const date = String(form.get('date') ?? '');
    const to = date
      ? new Date(`${date}T00:00:00Z`)
      : advancedBy(new Date(this.clock.value.now), Number(form.get('amount') ?? 0), String(form.get('unit')));
    await this.run(() => post<Advance>('/v1/testclock/advance', { to: to.toISOString() }));
  }

  private async reset() {
    await this.run(() => post<Advance>('/v1/testclock/reset'));
  }

  private async run(call: () => Promise<Advance>) {
    this.busy = true;
    this.error = '';
    try {
      this.result = await call();
      this.clock = { state: 'ok', value: { now: this.result.now, advanced: this.result.advanced } };
    } catch (error) {
      this.error = problemText(error);
    } finally {
      this.busy = false;
    }
  }

  override render() {
    return html`
      <h1 tabindex="-1">${t('testClockTitle')}</h1>
      <p class="muted">${t('testClockHelp')}</p>
      ${show(
        this.clock,
        (clock) => html`<p data-account-clock=${clock.now}>
          ${t('accountClock', { time: dateTime(clock.now) })} ${clock.advanced ? t('clockAdvanced') : t('clockRealTime')}
        </p>`,
      )}
      <p class="error" role="alert">${this.error}</p>
      ${can.act(this.operator?.role) && this.clock.state === 'ok' ? this.controls() : nothing}
      ${this.result && 'days' in this.result ? this.summary(this.result) : nothing}
    `;
  }

  private controls(): TemplateResult {
    return html`<section aria-labelledby="advance-title">
      <h2 id="advance-title">${t('clockAdvance')}</h2>
      <form class="inline-form" @submit=${this.advance}>
        <label>${t('clockAdvanceBy')}<input name="amount" type="number" min="1" max="1826" step="1" value="1" /></label>
        <label>${t('clockUnit')}
          <select name="unit">
            <option value="days">${t('clockUnitDays')}</option>
            <option value="weeks">${t('clockUnitWeeks')}</option>
            <option value="months" selected>${t('clockUnitMonths')}</option>
          </select>
        </label>
        <label>${t('clockAdvanceTo')}<input name="date" type="date" /></label>
        <button type="submit" class="primary" ?disabled=${this.busy}>${t('clockAdvance')}</button>
      </form>
      <p class="muted">${t('clockAdvanceHelp')}</p>
      <div class="actions"><button type="button" ?disabled=${this.busy} @click=${this.reset}>${t('clockReset')}</button></div>
    </section>`;
  }

  private summary(result: Advance): TemplateResult {
    return html`<section aria-labelledby="clock-summary-title">
      <h2 id="clock-summary-title">${t('clockSummary', { from: dateTime(String(result.from)), to: dateTime(result.now) })}</h2>
      <dl class="facts" data-clock-summary>
        ${SUMMARY.map(({ field, label }) => html`<div><dt>${t(label)}</dt><dd>${number(result[field] as number)}</dd></div>`)}
      </dl>
    </section>`;
  }
}
customElements.define('console-test-clock-page', TestClockPage);
