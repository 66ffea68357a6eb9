import { html, nothing, type TemplateResult } from 'lit';
import { post } from '../api.js';
import { money, t } from '../i18n.js';
import { ConsolePage, problemText } from '../page.js';
import type { Invoice } from './customer-model.js';

/** A line of a posted invoice, as GET /v1/Invoices/{id} answers it (what a credit note may credit). */
export interface InvoiceLine {
  id: number;
  name: string;
  description: string | null;
  quantity: number;
  taxableAmount: number;
}
/** The invoice with its lines (GET /v1/Invoices/{id}). */
export type InvoiceWithLines = Invoice & { totalPayments: number; charges: InvoiceLine[] };

/** POST /v1/creditNotes/preview's answer: the figures shown before the operator confirms. */
interface CreditNotePreview {
  subtotal: number;
  taxTotal: number;
  total: number;
  appliedToInvoice: number;
  creditedToCustomer: number;
  refunded: number;
}

export type CorrectionKind = 'void' | 'writeOff' | 'creditNote';

/** Which corrections a posted invoice takes: void only if nothing was paid on it, write-off only if it owes something. */
export function correctionsOf(invoice: Invoice & { totalPayments?: number }): CorrectionKind[] {
  if (invoice.status === 'Draft' || invoice.status === 'Void' || invoice.status === 'WrittenOff') return [];
  const owes = invoice.outstandingBalance > 0;
  const unpaid = owes && invoice.outstandingBalance === invoice.invoiceAmount;
  return [...(unpaid ? (['void'] as const) : []), ...(owes ? (['writeOff'] as const) : []), 'creditNote'];
}

/**
 * <console-invoice-correction> (issue 40): the dialog that voids, writes off or credits one posted invoice. Each shows
 * what will happen before the operator confirms: for a void or a write-off the amount that leaves accounts
 * receivable and the balance after; for a credit note the server's own preview (POST /v1/creditNotes/preview: net,
 * tax, what pays the invoice, what becomes the customer's credit or is refunded). One Idempotency-Key per opening,
 * so a double click or a retry corrects once. Fires `corrected` (detail: the words to announce) when done.
 */
export class InvoiceCorrection extends ConsolePage {
  static override properties = {
    ...ConsolePage.properties,
    invoice: { attribute: false },
    kind: { state: true },
    arBalance: { attribute: false },
    preview: { state: true },
    busy: { state: true },
    error: { state: true },
  };
  declare invoice: InvoiceWithLines | undefined;
  declare kind: CorrectionKind;
  declare arBalance: number;
  declare preview: CreditNotePreview | undefined;
  declare busy: boolean;
  declare error: string;
  private key = '';
  private amounts = new Map<number, string>();
  private reason = '';
  private refund = false;

  constructor() {
    super();
    this.kind = 'creditNote';
    this.busy = false;
    this.error = '';
  }

  /** Opens the dialog for `invoice` (with its lines) on `kind`. */
  async open(invoice: InvoiceWithLines, kind: CorrectionKind, arBalance: number) {
    Object.assign(this, { invoice, kind, arBalance, preview: undefined, busy: false, error: '' });
    this.key = crypto.randomUUID();
    this.amounts = new Map();
    this.reason = '';
    this.refund = false;
    await this.updateComplete;
    this.dialog('correction-dialog')?.showModal();
  }

  private creditNoteBody() {
    const lines = [...this.amounts.entries()]
      .filter(([, amount]) => amount.trim() !== '')
      .map(([invoiceLineId, amount]) => ({ invoiceLineId, amount: amount.trim().replace(',', '.') }));
    return { invoiceId: this.invoice?.id, lines, reason: this.reason.trim(), refund: this.refund };
  }

  private async previewCreditNote() {
    this.error = '';
    try {
      this.preview = await post<CreditNotePreview>('/v1/creditNotes/preview', this.creditNoteBody());
    } catch (error) {
      this.preview = undefined;
      this.error = problemText(error);
    }
  }

  private async confirm() {
    const invoice = this.invoice;
    if (!invoice) return;
    this.busy = true;
    this.error = '';
    const headers = { 'idempotency-key': this.key };
    try {
      const reason = this.reason.trim();
      if (this.kind === 'void') await post(`/v1/Invoices/${invoice.id}/void`, reason ? { reason } : {}, { headers });
      else if (this.kind === 'writeOff') await post(`/v1/Invoices/${invoice.id}/writeOff`, { reason }, { headers });
      else await post('/v1/creditNotes', this.creditNoteBody(), { headers });
      this.dialog('correction-dialog')?.close();
      const words = { void: 'invoiceVoided', writeOff: 'invoiceWrittenOff', creditNote: 'creditNoteIssued' } as const;
      this.dispatchEvent(new CustomEvent('corrected', { detail: t(words[this.kind], { number: invoice.invoiceNumber }) }));
    } catch (error) {
      this.busy = false;
      this.error = problemText(error);
    }
  }

  private closing(invoice: InvoiceWithLines): TemplateResult {
    const leaving = invoice.outstandingBalance;
    const after = Math.round((this.arBalance - leaving) * 1e6) / 1e6;
    return html`<p data-preview="closing">
      ${t('correctionLeavesAr', { amount: money(leaving, invoice.currency), from: money(this.arBalance, invoice.currency), to: money(after, invoice.currency) })}
    </p>`;
  }

  private creditNoteForm(invoice: InvoiceWithLines): TemplateResult {
    const preview = this.preview;
    return html`<table>
        <caption>${t('creditNoteLines', { currency: invoice.currency })}</caption>
        <thead><tr><th scope="col">${t('colName')}</th><th scope="col" class="num">${t('colAmount')}</th><th scope="col">${t('creditNoteAmount')}</th></tr></thead>
        <tbody>
          ${invoice.charges
            .filter((line) => line.taxableAmount > 0)
            .map(
              (line) => html`<tr>
                <td>${line.name}</td><td class="num">${money(line.taxableAmount, invoice.currency)}</td>
                <td><input inputmode="decimal" autocomplete="off" aria-label=${t('creditNoteAmountOf', { line: line.name })}
                  @input=${(event: Event) => {
                    this.amounts.set(line.id, (event.target as HTMLInputElement).value);
                    this.preview = undefined;
                  }} /></td>
              </tr>`,
            )}
        </tbody>
      </table>
      <label><input type="checkbox" @change=${(event: Event) => {
        this.refund = (event.target as HTMLInputElement).checked;
        this.preview = undefined;
      }} /> ${t('creditNoteRefund')}</label>
      <div class="actions"><button type="button" @click=${this.previewCreditNote}>${t('creditNotePreview')}</button></div>
      ${
        preview
          ? html`<dl class="facts" data-preview="credit-note">
              <div><dt>${t('creditNoteNet')}</dt><dd>${money(preview.subtotal, invoice.currency)}</dd></div>
              <div><dt>${t('creditNoteTax')}</dt><dd>${money(preview.taxTotal, invoice.currency)}</dd></div>
              <div><dt>${t('creditNoteTotal')}</dt><dd>${money(preview.total, invoice.currency)}</dd></div>
              <div><dt>${t('creditNoteApplied')}</dt><dd>${money(preview.appliedToInvoice, invoice.currency)}</dd></div>
              <div><dt>${t('creditNoteCredited')}</dt><dd>${money(preview.creditedToCustomer, invoice.currency)}</dd></div>
              <div><dt>${t('creditNoteRefunded')}</dt><dd>${money(preview.refunded, invoice.currency)}</dd></div>
            </dl>`
          : nothing
      }`;
  }

  override render() {
    const invoice = this.invoice;
    if (!invoice)
      return html`<dialog id="correction-dialog" aria-labelledby="correction-title"><h2 id="correction-title">${t('confirm')}</h2></dialog>`;
    const titles = { void: 'voidInvoice', writeOff: 'writeOffInvoice', creditNote: 'creditNoteInvoice' } as const;
    const needsPreview = this.kind === 'creditNote' && !this.preview;
    return html`<dialog id="correction-dialog" aria-labelledby="correction-title" @close=${() => (this.invoice = undefined)}>
      <h2 id="correction-title">${t(titles[this.kind], { number: invoice.invoiceNumber })}</h2>
      ${this.kind === 'creditNote' ? this.creditNoteForm(invoice) : this.closing(invoice)}
      <label>${this.kind === 'void' ? t('correctionReasonOptional') : t('correctionReason')}
        <input name="reason" maxlength="500" autocomplete="off" @input=${(event: Event) => {
          this.reason = (event.target as HTMLInputElement).value;
          if (this.kind === 'creditNote') this.preview = undefined;
        }} />
      </label>
      <p class="error" role="alert">${this.error}</p>
      <div class="actions">
        <button type="button" class="danger" ?disabled=${this.busy || needsPreview} @click=${this.confirm}>${t(titles[this.kind], { number: invoice.invoiceNumber })}</button>
        <button type="button" @click=${() => this.dialog('correction-dialog')?.close()}>${t('cancel')}</button>
      </div>
    </dialog>`;
  }
}
customElements.define('console-invoice-correction', InvoiceCorrection);
