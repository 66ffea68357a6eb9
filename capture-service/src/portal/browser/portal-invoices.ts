/** The invoices, each with its PDF. */
import { html } from 'lit';
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
  `;
}
