import { html, nothing } from 'lit';
import { apiUrl } from '../api.js';
import { date, dateTime, money, number, t } from '../i18n.js';
import { declineText, disputeReasonText, methodText, statusText } from '../labels.js';
import { type Loaded, show } from '../page.js';
import { auditChanges } from './audit-changes.js';
import type {
  AuditEntry,
  CreditNote,
  Customer,
  Dispute,
  Invoice,
  Payment,
  Purchase,
  Subscription,
  WebhookEvent,
} from './customer-model.js';
import { type CorrectionKind, correctionsOf } from './invoice-correction.js';

/** The customer page's read-only sections (customer-page.ts holds its state and actions). */

/** The customer's subscriptions: plan, status, monthly recurring revenue, next period. */
export function subscriptionsSection(subscriptions: Loaded<Subscription[]>, customer: Customer) {
  return html`<section aria-labelledby="subscriptions-title">
    <h2 id="subscriptions-title">${t('subscriptions')}</h2>
    ${show(
      subscriptions,
      (rows) => html`<div class="table-wrap"><table>
        <caption class="visually-hidden">${t('subscriptions')}</caption>
        <thead><tr><th scope="col">${t('colId')}</th><th scope="col">${t('colPlan')}</th><th scope="col">${t('colStatus')}</th><th scope="col" class="num">${t('colMrr')}</th><th scope="col">${t('colNextPeriod')}</th></tr></thead>
        <tbody>
          ${rows.length === 0 ? html`<tr><td colspan="5">${t('none')}</td></tr>` : nothing}
          ${rows.map(
            (row) =>
              html`<tr><td>${row.id}</td><td>${row.planName ?? ''}</td><td>${statusText('subscription', row.status)}</td><td class="num">${money(row.monthlyRecurringRevenue, row.currency ?? customer.currency)}</td><td>${date(row.nextPeriodStartDate)}</td></tr>`,
          )}
        </tbody>
      </table></div>`,
    )}
  </section>`;
}

/** A download link for a list as CSV (the console's exports). */
export function exportLink(path: string, label: string) {
  return html`<p><a href=${apiUrl(path)} download>${label}</a></p>`;
}

/**
 * The customer's invoices, each with its PDF; `customerId`: their CSV export; `onCorrect`: the corrections each
 * posted invoice takes (issue 40: void, write off, credit note), for the roles that may make them.
 */
export function invoicesSection(
  invoices: Loaded<Invoice[]>,
  customerId?: number,
  onCorrect?: (invoice: Invoice, kind: CorrectionKind) => void,
) {
  const labels = { void: 'voidAction', writeOff: 'writeOffAction', creditNote: 'creditNoteAction' } as const;
  const columns = onCorrect ? 8 : 7;
  return html`<section aria-labelledby="invoices-title">
    <h2 id="invoices-title">${t('invoices')}</h2>
    ${customerId ? exportLink(`/exports/invoices.csv?customerId=${customerId}`, t('exportInvoicesCsv')) : nothing}
    ${show(
      invoices,
      (rows) => html`<div class="table-wrap"><table>
        <caption class="visually-hidden">${t('invoices')}</caption>
        <thead><tr><th scope="col">${t('colNumber')}</th><th scope="col">${t('colStatus')}</th><th scope="col">${t('colDate')}</th><th scope="col">${t('colDue')}</th><th scope="col" class="num">${t('colAmount')}</th><th scope="col" class="num">${t('colOutstanding')}</th><th scope="col">${t('colPdf')}</th>${onCorrect ? html`<th scope="col">${t('colCorrections')}</th>` : nothing}</tr></thead>
        <tbody>
          ${rows.length === 0 ? html`<tr><td colspan=${columns}>${t('none')}</td></tr>` : nothing}
          ${rows.map(
            (row) => html`<tr data-invoice=${row.id}>
              <td>${row.invoiceNumber}</td><td>${statusText('invoice', row.status)}</td><td>${date(row.effectiveTimestamp)}</td><td>${date(row.dueTimestamp)}</td>
              <td class="num">${money(row.invoiceAmount, row.currency)}</td><td class="num">${money(row.outstandingBalance, row.currency)}</td>
              <td><a href=${apiUrl(`/v1/Invoices/pdf/${row.id}`)} target="_blank" rel="noopener">${t('pdfLink', { number: row.invoiceNumber })}</a></td>
              ${
                onCorrect
                  ? html`<td class="row-actions">${correctionsOf(row).map(
                      (kind) =>
                        html`<button type="button" class="small" data-correction=${kind} @click=${() => onCorrect(row, kind)}>${t(labels[kind])}</button>`,
                    )}</td>`
                  : nothing
              }
            </tr>`,
          )}
        </tbody>
      </table></div>`,
    )}
  </section>`;
}

/** The customer's credit notes (issue 40): number, the invoice it corrects, when, its total, its PDF. */
export function creditNotesSection(creditNotes: Loaded<CreditNote[]>) {
  return html`<section aria-labelledby="credit-notes-title">
    <h2 id="credit-notes-title">${t('creditNotes')}</h2>
    ${show(creditNotes, (rows) =>
      rows.length === 0
        ? html`<p class="muted">${t('none')}</p>`
        : html`<div class="table-wrap"><table>
            <caption class="visually-hidden">${t('creditNotes')}</caption>
            <thead><tr><th scope="col">${t('colNumber')}</th><th scope="col">${t('colInvoice')}</th><th scope="col">${t('colDate')}</th><th scope="col">${t('correctionReason')}</th><th scope="col" class="num">${t('colAmount')}</th><th scope="col">${t('colPdf')}</th></tr></thead>
            <tbody>
              ${rows.map(
                (row) => html`<tr data-credit-note=${row.id}>
                  <td>${row.number}</td><td>${row.invoiceNumber}</td><td>${date(row.createdTimestamp)}</td><td>${row.reason}</td>
                  <td class="num">${money(row.total, row.currency)}</td>
                  <td><a href=${apiUrl(`/v1/creditNotes/pdf/${row.id}`)} target="_blank" rel="noopener">${t('pdfLink', { number: row.number })}</a></td>
                </tr>`,
              )}
            </tbody>
          </table></div>`,
    )}
  </section>`;
}

/** The customer's one-time purchases (issue 40): what, how many, how much, and the invoice that bills it once billed. */
export function purchasesSection(purchases: Loaded<Purchase[]>, invoices: Loaded<Invoice[]>) {
  const numberOf = (id: number | null) =>
    id === null || invoices.state !== 'ok' ? '' : (invoices.value.find((i) => i.id === id)?.invoiceNumber ?? id);
  return html`<section aria-labelledby="purchases-title">
    <h2 id="purchases-title">${t('purchases')}</h2>
    ${show(
      purchases,
      (rows) => html`<div class="table-wrap"><table>
        <caption class="visually-hidden">${t('purchases')}</caption>
        <thead><tr><th scope="col">${t('colName')}</th><th scope="col">${t('colStatus')}</th><th scope="col">${t('colDate')}</th><th scope="col" class="num">${t('colQuantity')}</th><th scope="col" class="num">${t('colAmount')}</th><th scope="col">${t('colInvoice')}</th></tr></thead>
        <tbody>
          ${rows.length === 0 ? html`<tr><td colspan="6">${t('none')}</td></tr>` : nothing}
          ${rows.map(
            (row) => html`<tr data-purchase=${row.id}>
              <td>${row.name}</td><td>${statusText('purchase', row.status)}</td><td>${date(row.createdTimestamp)}</td>
              <td class="num">${number(row.quantity)}</td><td class="num">${money(row.amount, row.currency)}</td><td>${numberOf(row.invoiceId)}</td>
            </tr>`,
          )}
        </tbody>
      </table></div>`,
    )}
  </section>`;
}

/** A payment's dispute in a word: its status, reason, the evidence's due date while open, the fee. */
function disputeCell(dispute: Dispute | undefined) {
  if (!dispute) return '';
  const open = dispute.status === 'NeedsResponse' || dispute.status === 'UnderReview';
  return html`<span data-dispute=${dispute.id}>${t('disputeSummary', { status: statusText('dispute', dispute.status), reason: disputeReasonText(dispute.reason) })}${
    open && dispute.evidenceDueTimestamp ? html`<br />${t('disputeEvidenceDue', { date: date(dispute.evidenceDueTimestamp) })}` : nothing
  }${dispute.fee === null ? nothing : html`<br />${t('disputeFee', { fee: money(dispute.fee, dispute.currency) })}`}</span>`;
}

/**
 * The customer's payments, each with its dispute if the processor opened one (`disputes`: the customer's, loaded
 * beside them); `onRefund` when the operator's role may refund (a Refund button on each refundable one).
 */
export function paymentsSection(
  payments: Loaded<Payment[]>,
  disputes: Loaded<Dispute[]> | undefined,
  onRefund: ((payment: Payment) => void) | undefined,
  customerId?: number,
) {
  const refunds = onRefund !== undefined;
  const disputeOf = (paymentId: number) => (disputes?.state === 'ok' ? disputes.value.find((d) => d.paymentId === paymentId) : undefined);
  return html`<section aria-labelledby="payments-title">
    <h2 id="payments-title">${t('payments')}</h2>
    ${customerId ? exportLink(`/exports/payments.csv?customerId=${customerId}`, t('exportPaymentsCsv')) : nothing}
    ${show(
      payments,
      (rows) => html`<div class="table-wrap"><table>
        <caption class="visually-hidden">${t('payments')}</caption>
        <thead><tr>
          <th scope="col">${t('colId')}</th><th scope="col">${t('colDate')}</th><th scope="col" class="num">${t('colAmount')}</th><th scope="col">${t('colMethod')}</th>
          <th scope="col">${t('colStatus')}</th><th scope="col">${t('colDecline')}</th><th scope="col" class="num">${t('colRefunded')}</th><th scope="col">${t('colDispute')}</th>${refunds ? html`<th scope="col">${t('colActions')}</th>` : nothing}
        </tr></thead>
        <tbody>
          ${rows.length === 0 ? html`<tr><td colspan=${refunds ? 9 : 8}>${t('none')}</td></tr>` : nothing}
          ${rows.map(
            (row) => html`<tr data-payment=${row.id}>
              <td>${row.id}</td><td>${dateTime(row.effectiveTimestamp)}</td><td class="num">${money(row.amount, row.currency)}</td><td>${methodText(row.paymentMethod)}</td>
              <td>${statusText('payment', row.status)}</td><td>${declineText(row.declineCode)}</td><td class="num">${money(row.refundedAmount, row.currency)}</td>
              <td>${disputeCell(disputeOf(row.id))}</td>
              ${
                refunds
                  ? html`<td>${row.status === 'Succeeded' && Number(row.refundableAmount) > 0 ? html`<button type="button" @click=${() => onRefund?.(row)}>${t('refund')}</button>` : nothing}</td>`
                  : nothing
              }
            </tr>`,
          )}
        </tbody>
      </table></div>`,
    )}
  </section>`;
}

/** Who changed what on this customer, newest first, each change as a readable line (audit-changes.ts). */
export function auditSection(audit: Loaded<{ entries: AuditEntry[] }>, currency?: string) {
  return html`<section aria-labelledby="audit-title">
    <h2 id="audit-title">${t('audit')}</h2>
    ${show(
      audit,
      ({ entries }) => html`<div class="table-wrap"><table>
        <caption class="visually-hidden">${t('audit')}</caption>
        <thead><tr><th scope="col">${t('colWhen')}</th><th scope="col">${t('colActor')}</th><th scope="col">${t('colSource')}</th><th scope="col">${t('colEntity')}</th><th scope="col">${t('colAction')}</th><th scope="col">${t('colChanges')}</th></tr></thead>
        <tbody>
          ${entries.length === 0 ? html`<tr><td colspan="6">${t('none')}</td></tr>` : nothing}
          ${entries.map(
            (
              entry,
            ) => html`<tr><td>${dateTime(entry.at)}</td><td>${entry.actor}</td><td>${entry.source}</td><td>${entry.entityType} ${entry.entityId}</td><td>${entry.action}</td>
              <td>${auditChanges(entry.changes, entry.action, currency)}</td></tr>`,
          )}
        </tbody>
      </table></div>`,
    )}
  </section>`;
}

/** The webhook events about this customer and their deliveries. */
export function eventsSection(events: Loaded<{ events: WebhookEvent[] }>) {
  return html`<section aria-labelledby="events-title">
    <h2 id="events-title">${t('webhookEvents')}</h2>
    ${show(
      events,
      ({ events }) => html`<div class="table-wrap"><table>
        <caption class="visually-hidden">${t('webhookEvents')}</caption>
        <thead><tr><th scope="col">${t('colWhen')}</th><th scope="col">${t('colType')}</th><th scope="col">${t('colDeliveries')}</th></tr></thead>
        <tbody>
          ${events.length === 0 ? html`<tr><td colspan="3">${t('none')}</td></tr>` : nothing}
          ${events.map(
            (event) => html`<tr><td>${dateTime(event.createdAt)}</td><td>${event.type}</td>
              <td>${event.deliveries.map((delivery) => html`<div>#${delivery.endpointId}: ${statusText('delivery', delivery.status)} (${number(delivery.attempts)}${delivery.lastResponseStatus ? `, HTTP ${delivery.lastResponseStatus}` : ''})</div>`)}</td></tr>`,
          )}
        </tbody>
      </table></div>`,
    )}
  </section>`;
}
