import { html, nothing, type TemplateResult } from 'lit';
import { can, get, post, request } from '../api.js';
import { date, dateTime, money, number, t } from '../i18n.js';
import { languageText, serviceStartText, statusText } from '../labels.js';
import { ConsolePage, type Loaded, problem, problemText, settle, show } from '../page.js';
import { customerName } from './customers-page.js';
import './billing-settings-section.js';
import type { CorrectionKind, InvoiceCorrection, InvoiceWithLines } from './invoice-correction.js';
import './invoice-correction.js';
import './purchase-form.js';
import { loadUsage, type SubscriptionUsage, usageSection } from './usage-section.js';
import {
  auditSection,
  creditNotesSection,
  eventsSection,
  invoicesSection,
  paymentsSection,
  purchasesSection,
  subscriptionsSection,
} from './customer-sections.js';
import {
  ACTION_LABEL,
  ACTIONS_BY_STATUS,
  TARGET_STATUS,
  SERVICE_START_OPTIONS,
  CANCELLATION_OPTIONS,
  refundAmountText,
  type Customer,
  type Overview,
  type Subscription,
  type Invoice,
  type Dispute,
  type Payment,
  type Note,
  type Purchase,
  type CreditNote,
  type AuditEntry,
  type WebhookEvent,
  type InvoicePreview,
  type Action,
  type PendingAction,
  type PendingRefund,
} from './customer-model.js';

/**
 * #/customers/<id>: profile and status with the lifecycle actions (each previewed, then confirmed), subscriptions,
 * invoices (PDF), payments (Refund), notes, the audit trail and the webhook events. What a role cannot do is not shown.
 */
export class CustomerPage extends ConsolePage {
  static override properties = {
    ...ConsolePage.properties,
    customer: { state: true },
    overview: { state: true },
    subscriptions: { state: true },
    usage: { state: true },
    invoices: { state: true },
    payments: { state: true },
    disputes: { state: true },
    notes: { state: true },
    purchases: { state: true },
    creditNotes: { state: true },
    audit: { state: true },
    events: { state: true },
    pending: { state: true },
    refund: { state: true },
    announcement: { state: true },
    portalUrl: { state: true },
    noteError: { state: true },
  };
  declare customer: Loaded<Customer>;
  declare overview: Loaded<Overview>;
  declare subscriptions: Loaded<Subscription[]>;
  declare usage: Loaded<SubscriptionUsage[]>;
  declare invoices: Loaded<Invoice[]>;
  declare payments: Loaded<Payment[]>;
  declare disputes: Loaded<Dispute[]>;
  declare notes: Loaded<Note[]>;
  declare purchases: Loaded<Purchase[]>;
  declare creditNotes: Loaded<CreditNote[]>;
  declare audit: Loaded<{ entries: AuditEntry[] }>;
  declare events: Loaded<{ events: WebhookEvent[] }>;
  declare pending: PendingAction | undefined;
  declare refund: PendingRefund | undefined;
  declare announcement: string;
  declare portalUrl: string;
  declare noteError: string;

  constructor() {
    super();
    this.customer = { state: 'loading' };
    this.announcement = '';
    this.portalUrl = '';
    this.noteError = '';
  }

  private get customerPath(): string {
    return encodeURIComponent(this.routeArg ?? '');
  }

  protected override async load() {
    const id = this.customerPath;
    if (!id) return;
    await Promise.all([
      settle(get<Customer>(`/v1/customers/${id}`)).then((value) => (this.customer = value)),
      settle(get<Overview>(`/v1/customers/${id}/overview`)).then((value) => (this.overview = value)),
      settle(get<Subscription[]>(`/v1/customers/${id}/subscriptions`)).then(async (value) => {
        this.subscriptions = value;
        this.usage = await loadUsage(value);
      }),
      settle(get<Invoice[]>(`/v1/Customers/${id}/Invoices`)).then((value) => (this.invoices = value)),
      settle(get<Payment[]>(`/v1/customers/${id}/payments`)).then((value) => (this.payments = value)),
      settle(get<Dispute[]>(`/v1/customers/${id}/disputes`)).then((value) => (this.disputes = value)),
      settle(get<Note[]>(`/v1/customers/${id}/notes`)).then((value) => (this.notes = value)),
      settle(get<Purchase[]>(`/v1/customers/${id}/purchases`)).then((value) => (this.purchases = value)),
      settle(get<CreditNote[]>(`/v1/customers/${id}/creditNotes`)).then((value) => (this.creditNotes = value)),
      settle(get<{ entries: AuditEntry[] }>(`/customers/${id}/audit?limit=50`)).then((value) => (this.audit = value)),
      settle(get<{ events: WebhookEvent[] }>(`/customers/${id}/webhook-events`)).then((value) => (this.events = value)),
    ]);
  }

  // ---- lifecycle actions

  private async openAction(action: Action) {
    this.pending = {
      action,
      option: action === 'unhold' ? (SERVICE_START_OPTIONS[0] ?? '') : action === 'cancel' ? 'None' : '',
      preview: undefined,
      busy: false,
      error: '',
    };
    await this.updateComplete;
    this.dialog('action-dialog')?.showModal();
    void this.previewAction();
  }

  /** The server's own preview where the API has one (activation, unhold); the other moves are described. */
  private async previewAction() {
    const pending = this.pending;
    if (!pending) return;
    const customerId = Number(this.routeArg);
    let call: Promise<{ invoicePreview?: InvoicePreview | null }> | undefined;
    if (pending.action === 'activate') call = post('/v1/customeractivation?preview=true', { customerId });
    if (pending.action === 'unhold') call = post('/v1/customers/unhold', { customerId, serviceStartOption: pending.option, preview: true });
    if (!call) return;
    this.pending = { ...pending, preview: { state: 'loading' } };
    const answer = await settle(call);
    if (this.pending?.action !== pending.action) return;
    this.pending = {
      ...this.pending,
      preview: answer.state === 'ok' ? { state: 'ok', value: answer.value.invoicePreview ?? null } : answer,
    };
  }

  private async confirmAction() {
    const pending = this.pending;
    if (!pending) return;
    const customerId = Number(this.routeArg);
    this.pending = { ...pending, busy: true, error: '' };
    try {
      if (pending.action === 'activate')
        await post('/v1/customeractivation', {
          customerId,
          activateAllSubscriptions: true,
          activateAllDraftPurchases: false,
          temporarilyDisableAutoPost: false,
        });
      else if (pending.action === 'hold') await request('POST', `/v1/customerhold/${this.customerPath}`);
      else if (pending.action === 'unhold') await post('/v1/customers/unhold', { customerId, serviceStartOption: pending.option });
      else if (pending.action === 'cancel') await post('/v1/customercancellation', { customerId, cancellationOption: pending.option });
      else await request('POST', `/v1/customers/uncancel/${this.customerPath}`);
      this.dialog('action-dialog')?.close();
      await this.load();
      const status = this.customer.state === 'ok' ? this.customer.value.status : TARGET_STATUS[pending.action];
      this.announcement = t('statusChanged', { status: statusText('customer', status) });
    } catch (error) {
      if (this.pending) this.pending = { ...this.pending, busy: false, error: problemText(error) };
    }
  }

  private actionDialog(): TemplateResult {
    const pending = this.pending;
    if (!pending)
      return html`<dialog id="action-dialog" aria-labelledby="action-title"><h2 id="action-title">${t('confirm')}</h2></dialog>`;
    const label = t(ACTION_LABEL[pending.action]);
    const from = this.customer.state === 'ok' ? this.customer.value.status : '';
    return html`<dialog id="action-dialog" aria-labelledby="action-title" @close=${() => (this.pending = undefined)}>
      <h2 id="action-title">${t('previewTitle', { action: label })}</h2>
      <p>${t('previewEffect', { from: statusText('customer', from), to: statusText('customer', TARGET_STATUS[pending.action]) })}</p>
      ${pending.action === 'hold' ? html`<p>${t('previewHold')}</p>` : nothing}
      ${pending.action === 'cancel' ? html`<p>${t('previewCancel')}</p>` : nothing}
      ${pending.action === 'uncancel' ? html`<p>${t('previewUncancel')}</p>` : nothing}
      ${
        pending.action === 'unhold'
          ? html`<label>${t('serviceStartOption')}
              <select aria-label=${t('serviceStartOption')} @change=${(event: Event) => {
                this.pending = { ...pending, option: (event.target as HTMLSelectElement).value };
                void this.previewAction();
              }}>
                ${SERVICE_START_OPTIONS.map((option) => html`<option value=${option} ?selected=${option === pending.option}>${serviceStartText(option)}</option>`)}
              </select>
            </label>`
          : nothing
      }
      ${
        pending.action === 'cancel'
          ? html`<label>${t('cancellationOption')}
              <select aria-label=${t('cancellationOption')} @change=${(event: Event) => (this.pending = { ...pending, option: (event.target as HTMLSelectElement).value })}>
                ${CANCELLATION_OPTIONS.map((option) => html`<option value=${option.value} ?selected=${option.value === pending.option}>${t(option.label)}</option>`)}
              </select>
            </label>`
          : nothing
      }
      ${pending.preview ? show(pending.preview, (preview) => this.invoicePreview(preview)) : nothing}
      <p class="error" role="alert">${pending.error}</p>
      <div class="actions">
        <button type="button" class="primary" ?disabled=${pending.busy || pending.preview?.state === 'loading'} @click=${this.confirmAction}>
          ${t('confirmAction', { action: label })}
        </button>
        <button type="button" @click=${() => this.dialog('action-dialog')?.close()}>${t('cancel')}</button>
      </div>
    </dialog>`;
  }

  private invoicePreview(preview: InvoicePreview | null): TemplateResult {
    if (!preview) return html`<p>${t('previewNoInvoice')}</p>`;
    return html`<table>
      <caption>${t('previewInvoice')}</caption>
      <thead><tr><th scope="col">${t('colPlan')}</th><th scope="col" class="num">${t('colAmount')}</th></tr></thead>
      <tbody>
        ${preview.draftCharges.map(
          (charge) =>
            html`<tr><td>${charge.name} (${date(charge.startServiceDate)} – ${date(charge.endServiceDate)})</td><td class="num">${money(charge.amount, preview.currency)}</td></tr>`,
        )}
      </tbody>
      <tfoot><tr><th scope="row">${t('colAmount')}</th><td class="num">${money(preview.total, preview.currency)}</td></tr></tfoot>
    </table>`;
  }

  // ---- invoice corrections (issue 40): void, write-off, credit note, each previewed in its dialog

  private async correctInvoice(invoice: Invoice, kind: CorrectionKind) {
    try {
      const full = await get<InvoiceWithLines>(`/v1/Invoices/${invoice.id}`);
      const arBalance = this.overview?.state === 'ok' ? this.overview.value.arBalance : full.outstandingBalance;
      await this.renderRoot.querySelector<InvoiceCorrection>('console-invoice-correction')?.open(full, kind, arBalance);
    } catch (error) {
      this.announcement = problemText(error);
    }
  }

  private async corrected(event: CustomEvent<string>) {
    await this.load();
    this.announcement = event.detail;
  }

  // ---- refunds

  private async openRefund(payment: Payment) {
    this.refund = { payment, idempotencyKey: crypto.randomUUID(), busy: false, error: '' };
    await this.updateComplete;
    this.dialog('refund-dialog')?.showModal();
  }

  private async submitRefund(event: SubmitEvent) {
    event.preventDefault();
    const refund = this.refund;
    if (!refund) return;
    const form = new FormData(event.target as HTMLFormElement);
    const amount = refundAmountText(String(form.get('amount') ?? ''));
    if (!amount) {
      this.refund = {
        ...refund,
        error: t('refundAmount', {
          currency: refund.payment.currency,
          max: money(refund.payment.refundableAmount, refund.payment.currency),
        }),
      };
      return;
    }
    const reference = String(form.get('reason') ?? '').trim();
    this.refund = { ...refund, busy: true, error: '' };
    try {
      await post(
        '/v1/refunds',
        { originalPaymentId: refund.payment.id, amount, ...(reference ? { reference } : {}) },
        { headers: { 'idempotency-key': refund.idempotencyKey } },
      );
      this.dialog('refund-dialog')?.close();
      this.announcement = t('refundDone', { amount: money(amount, refund.payment.currency) });
      await this.load();
    } catch (error) {
      if (this.refund) this.refund = { ...this.refund, busy: false, error: problemText(error) };
    }
  }

  private refundDialog(): TemplateResult {
    const refund = this.refund;
    if (!refund) return html`<dialog id="refund-dialog" aria-labelledby="refund-title"><h2 id="refund-title">${t('refund')}</h2></dialog>`;
    const { payment } = refund;
    return html`<dialog id="refund-dialog" aria-labelledby="refund-title" @close=${() => (this.refund = undefined)}>
      <h2 id="refund-title">${t('refundTitle', { id: payment.id })}</h2>
      <form @submit=${this.submitRefund}>
        <label>${t('refundAmount', { currency: payment.currency, max: money(payment.refundableAmount, payment.currency) })}
          <input name="amount" inputmode="decimal" autocomplete="off" required .value=${String(payment.refundableAmount)} />
        </label>
        <label>${t('refundReason')}<input name="reason" maxlength="500" autocomplete="off" /></label>
        <p class="error" role="alert">${refund.error}</p>
        <div class="actions">
          <button type="submit" ?disabled=${refund.busy}>${t('refundConfirm')}</button>
          <button type="button" @click=${() => this.dialog('refund-dialog')?.close()}>${t('cancel')}</button>
        </div>
      </form>
    </dialog>`;
  }

  // ---- notes and portal link

  private async addNote(event: SubmitEvent) {
    event.preventDefault();
    const formElement = event.target as HTMLFormElement;
    const note = String(new FormData(formElement).get('note') ?? '').trim();
    if (!note) return;
    this.noteError = '';
    try {
      await post('/v1/customernotes', { customerId: Number(this.routeArg), note });
      formElement.reset();
      this.announcement = t('noteAdded');
      this.notes = await settle(get<Note[]>(`/v1/customers/${this.customerPath}/notes`));
    } catch (error) {
      this.noteError = problemText(error);
    }
  }

  private async portalLink() {
    try {
      const session = await post<{ url: string }>('/v1/portalSessions', { customerId: Number(this.routeArg), locale: this.lang || 'en' });
      this.portalUrl = session.url;
    } catch (error) {
      this.announcement = problemText(error);
    }
  }

  // ---- rendering

  override render() {
    const role = this.operator?.role;
    if (this.customer.state === 'failed')
      return html`<h1 tabindex="-1">${t('customerTitle', { id: this.routeArg ?? '' })}</h1>${problem(this.customer.error)}`;
    if (this.customer.state === 'loading')
      return html`<h1 tabindex="-1">${t('customerTitle', { id: this.routeArg ?? '' })}</h1><p role="status">${t('loading')}</p>`;
    const customer = this.customer.value;
    const actions = can.act(role) ? (ACTIONS_BY_STATUS[customer.status] ?? []) : [];
    return html`
      <h1 tabindex="-1">${customerName(customer)} <span class="muted">#${customer.id}</span></h1>
      <p class="ok" role="status" aria-live="polite">${this.announcement}</p>
      <section class="card" aria-labelledby="profile-title">
        <h2 id="profile-title">${t('profile')}</h2>
        <dl class="facts">
          <div><dt>${t('status')}</dt><dd data-field="status">${statusText('customer', customer.status)}</dd></div>
          <div><dt>${t('accountStatus')}</dt><dd data-field="account-status">${statusText('account', customer.customerAccountStatus)}</dd></div>
          <div><dt>${t('email')}</dt><dd>${customer.primaryEmail ?? ''}</dd></div>
          <div><dt>${t('phone')}</dt><dd>${customer.primaryPhone ?? ''}</dd></div>
          <div><dt>${t('colCompany')}</dt><dd>${customer.companyName ?? ''}</dd></div>
          <div><dt>${t('reference')}</dt><dd>${customer.reference ?? ''}</dd></div>
          <div><dt>${t('currency')}</dt><dd>${customer.currency}</dd></div>
          <div><dt>${t('customerLanguage')}</dt><dd>${languageText(customer.language)}</dd></div>
          <div><dt>${t('colCreated')}</dt><dd>${dateTime(customer.createdTimestamp)}</dd></div>
          ${
            this.overview?.state === 'ok'
              ? html`
                  <div><dt>${t('balance')}</dt><dd>${money(this.overview.value.arBalance, customer.currency)}</dd></div>
                  <div><dt>${t('unallocated')}</dt><dd>${money(this.overview.value.unallocatedPayments, customer.currency)}</dd></div>
                  <div><dt>${t('colMrr')}</dt><dd>${money(this.overview.value.monthlyRecurringRevenue, customer.currency)}</dd></div>
                  <div><dt>${t('lifetimeValue')}</dt><dd>${money(this.overview.value.lifetimeValue, customer.currency)}</dd></div>
                  <div><dt>${t('nextBilling')}</dt><dd>${date(this.overview.value.nextBillingDate)}</dd></div>
                  ${this.overview.value.daysUntilSuspension !== null ? html`<div><dt>${t('daysUntilSuspension')}</dt><dd>${number(this.overview.value.daysUntilSuspension)}</dd></div>` : nothing}
                `
              : nothing
          }
        </dl>
        ${
          actions.length || can.portalLink(role)
            ? html`<div class="actions">
                ${actions.map((action) => html`<button type="button" class=${action === 'cancel' ? 'danger' : ''} @click=${() => this.openAction(action)}>${t(ACTION_LABEL[action])}</button>`)}
                ${can.portalLink(role) ? html`<button type="button" @click=${this.portalLink}>${t('portalLink')}</button>` : nothing}
              </div>`
            : nothing
        }
        ${this.portalUrl ? html`<p>${t('portalLinkCreated')}</p><pre class="code">${this.portalUrl}</pre>` : nothing}
      </section>
      <console-billing-settings .customerId=${customer.id} .operator=${this.operator} .lang=${this.lang}></console-billing-settings>
      ${subscriptionsSection(this.subscriptions, customer)} ${usageSection(this.usage, this.subscriptions)}
      ${invoicesSection(this.invoices, customer.id, can.correctInvoices(role) ? (invoice, kind) => this.correctInvoice(invoice, kind) : undefined)}
      ${creditNotesSection(this.creditNotes)} ${purchasesSection(this.purchases, this.invoices)}
      ${
        can.act(role) && (customer.status === 'Draft' || customer.status === 'Active')
          ? html`<console-purchase-form .customerId=${customer.id} .currency=${customer.currency} .active=${customer.status === 'Active'}
              .operator=${this.operator} .lang=${this.lang} @purchased=${this.corrected}></console-purchase-form>`
          : nothing
      }
      ${paymentsSection(this.payments, this.disputes, can.refund(this.operator?.role) ? (payment) => this.openRefund(payment) : undefined, customer.id)} ${this.notesSection()}
      ${auditSection(this.audit, customer.currency)} ${eventsSection(this.events)} ${this.actionDialog()} ${this.refundDialog()}
      <console-invoice-correction .operator=${this.operator} .lang=${this.lang} @corrected=${this.corrected}></console-invoice-correction>
    `;
  }

  private notesSection() {
    return html`<section aria-labelledby="notes-title">
      <h2 id="notes-title">${t('notes')}</h2>
      ${show(this.notes, (rows) =>
        rows.length === 0
          ? html`<p class="muted">${t('none')}</p>`
          : html`<ul>${rows.map((row) => html`<li><span class="muted">${dateTime(row.createdTimestamp)} · ${row.userWhoCreatedNote ?? ''}</span><br />${row.note}</li>`)}</ul>`,
      )}
      ${
        can.note(this.operator?.role)
          ? html`<form @submit=${this.addNote}>
              <label>${t('noteText')}<textarea name="note" maxlength="2000" required></textarea></label>
              <p class="error" role="alert">${this.noteError}</p>
              <div class="actions"><button type="submit">${t('addNote')}</button></div>
            </form>`
          : nothing
      }
    </section>`;
  }
}
customElements.define('console-customer-page', CustomerPage);
