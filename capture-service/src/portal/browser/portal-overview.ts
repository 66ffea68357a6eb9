/** The overview: balance, card, and each subscription with what the customer may do with it. */
import { html, nothing } from 'lit';
import { cardLine, date, describePending, money, statusWord } from './portal-format.js';
import { loadedOverview, type Portal } from './portal-model.js';
import { uncancel, withdrawChange } from './portal-pending-actions.js';
import { renderUsage } from './portal-usage.js';
import { say } from './portal-text.js';

export function renderOverview(p: Portal) {
  const t = p.text;
  const o = loadedOverview(p);
  const full = o.scope === 'full';
  return html`
    <h2 tabindex="-1">${t.overview}</h2>
    <section aria-labelledby="balance-heading">
      <h3 id="balance-heading">${t.balance}</h3>
      <p>${o.balance > 0 ? say(t.balanceOwed, money(p, o.balance, o.customer.currency)) : t.balanceClear}</p>
      ${o.balance > 0 ? html`<p><a href="#pay">${t.payInvoices}</a></p>` : nothing}
    </section>
    <section aria-labelledby="card-heading">
      <h3 id="card-heading">${t.card}</h3>
      <p>${o.defaultCard ? cardLine(p, o.defaultCard) : t.noCard} ${o.defaultCard?.expiringSoon ? html`<span class="flag">${t.expiresSoon}</span>` : nothing}</p>
      <p><a href="#card">${t.updateCard}</a></p>
    </section>
    <section aria-labelledby="subscriptions-heading">
      <h3 id="subscriptions-heading">${t.subscriptions}</h3>
      ${o.subscriptions.length === 0 ? html`<p>${t.noSubscriptions}</p>` : nothing}
      ${o.subscriptions.map((s) => {
        // Not for a subscription set to be cancelled (the server offers none either): keeping it offers the change again.
        const change = full && !s.cancellation ? p.changeOptions?.find((c) => c.subscriptionId === s.id) : undefined;
        return html`<div class="card">
          <h4>${s.name}</h4>
          <dl>
            <dt>${t.plan}</dt><dd>${s.planName}</dd>
            <dt>${t.status}</dt><dd>${statusWord(p, s.status)}</dd>
            <dt>${t.nextCharge}</dt>
            <dd>${s.cancellation?.effectiveDate ? say(t.endsOn, date(p, s.cancellation.effectiveDate)) : s.nextChargeDate && s.nextChargeAmount !== null ? say(t.nextChargeOn, money(p, s.nextChargeAmount, s.currency), date(p, s.nextChargeDate)) : t.none}</dd>
          </dl>
          ${renderUsage(p, s.id)}
          ${change?.pendingChange ? html`<p id="pending-${s.id}">${say(t.scheduledChange, date(p, change.pendingChange.effectiveDate), describePending(p, change, change.pendingChange))}</p>` : nothing}
          ${
            full
              ? html`<div class="actions">
                ${change && change.targets.length > 0 ? html`<a href="#change-${s.id}" aria-label=${`${t.changePlan}: ${s.name}`}>${t.changePlan}</a>` : nothing}
                ${change && change.quantities.length > 0 ? html`<a href="#seats-${s.id}" aria-label=${`${t.seats}: ${s.name}`}>${t.seats}</a>` : nothing}
                ${
                  change?.pendingChange
                    ? html`<button type="button" ?disabled=${p.busy} aria-describedby="pending-${s.id}" @click=${() => void withdrawChange(p, s.id)}>${t.withdraw}</button>`
                    : nothing
                }
                ${
                  s.cancellation
                    ? html`<button type="button" ?disabled=${p.busy} @click=${() => uncancel(p, s)}>${t.uncancel}</button>`
                    : o.cancelMode !== 'none' && (s.status === 'Active' || s.status === 'Suspended')
                      ? html`<a href="#cancel-${s.id}">${t.cancel}</a>`
                      : nothing
                }
              </div>`
              : nothing
          }
        </div>`;
      })}
    </section>
  `;
}
