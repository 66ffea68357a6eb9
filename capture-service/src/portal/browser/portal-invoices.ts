/** The invoices, each with its PDF, and the credit notes that corrected them (issue 40). */
import { html, nothing } from 'lit';
import { date, money, statusWord } from './portal-format.js';
import type { Portal } from './portal-model.js';
import { say } from './portal-text.js';

export function renderInvoices(p: Portal) {
  const t = p.text;
  const list = p.invoices ?? [];
  return html`
    <h2 tabindex="-1">${t.invoicesTitle}</h2>
    ${
      list.length === 0
        ? html`<p>${t.noInvoices}</p>`
        : html`<div class="table-wrap"><table>
          <thead><tr><th scope="col">${t.invoiceNumber}</th><th scope="col" class="hide-narrow">${t.date}</th><th scope="col">${t.status}</th><th scope="col" class="number">${t.amount}</th><th scope="col"><span class="visually-hidden">${t.download}</span></th></tr></thead>
          <tbody>
            ${list.map(
              (i) => html`<tr>
                <td>${i.invoiceNumber}</td>
                <td class="hide-narrow">${date(p, i.effectiveTimestamp.slice(0, 10))}</td>
                <td>${statusWord(p, i.status)}</td>
                <td class="number">${money(p, i.invoiceAmount, i.currency)}</td>
                <td><a href="/portal/api/invoices/${i.id}/pdf" download aria-label=${say(t.downloadInvoice, i.invoiceNumber)}>${t.download}</a></td>
              </tr>`,
            )}
          </tbody>
        </table></div>`
    }
    ${renderCreditNotes(p)}
  `;
}

function renderCreditNotes(p: Portal) {
  const t = p.text;
  const list = p.creditNotes ?? [];
  if (list.length === 0) return nothing;
  return html`<h3>${t.creditNotesTitle}</h3>
    <div class="table-wrap"><table>
      <thead><tr><th scope="col">${t.creditNoteNumber}</th><th scope="col">${t.creditNoteInvoice}</th><th scope="col" class="hide-narrow">${t.date}</th><th scope="col" class="number">${t.amount}</th><th scope="col"><span class="visually-hidden">${t.download}</span></th></tr></thead>
      <tbody>
        ${list.map(
          (n) => html`<tr data-credit-note=${n.id}>
            <td>${n.number}</td>
            <td>${n.invoiceNumber}</td>
            <td class="hide-narrow">${date(p, n.createdTimestamp.slice(0, 10))}</td>
            <td class="number">${money(p, n.total, n.currency)}</td>
            <td><a href="/portal/api/credit-notes/${n.id}/pdf" download aria-label=${say(t.downloadCreditNote, n.number)}>${t.download}</a></td>
          </tr>`,
        )}
      </tbody>
    </table></div>`;
}
