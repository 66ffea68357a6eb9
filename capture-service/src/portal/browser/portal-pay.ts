/** Pay invoices: the balance due, with the default card or a new one. */
import { html, nothing } from 'lit';
import { payThroughBank, renderChallenge } from './portal-bank.js';
import { captureNewCard, renderCardForm } from './portal-card.js';
import { cardLine, money } from './portal-format.js';
import { loadedOverview, type Overview, type Portal } from './portal-model.js';
import { say } from './portal-text.js';

export function renderPay(p: Portal) {
  const t = p.text;
  if (p.challenge) return renderChallenge(p, p.challenge);
  const o = loadedOverview(p);
  if (o.awaitingPayment && p.payWith !== 'new') return renderAwaiting(p, o.awaitingPayment);
  if (o.balance <= 0) return html`<h2 tabindex="-1">${t.payTitle}</h2><p>${t.nothingDue}</p>`;
  const amount = money(p, o.balance, o.customer.currency);
  const choice = (value: 'default' | 'new', label: string) =>
    html`<label class="choice"><input type="radio" name="payWith" .value=${value} .checked=${p.payWith === value} @change=${() => (p.payWith = value)} />${label}</label>`;
  return html`
    <h2 tabindex="-1">${t.payTitle}</h2>
    <p>${say(t.payAmount, amount)}</p>
    ${
      o.defaultCard
        ? html`<fieldset><legend>${t.payWith}</legend>${choice('default', say(t.payDefault, cardLine(p, o.defaultCard)))}${choice('new', t.payNewCard)}</fieldset>`
        : nothing
    }
    ${
      p.payWith === 'new'
        ? renderCardForm(p, say(t.payNow, amount), (event) => void pay(p, event))
        : html`<form @submit=${(event: Event) => void pay(p, event)}><div class="actions"><button class="primary" type="submit" ?disabled=${p.busy}>${say(t.payNow, amount)}</button></div></form>`
    }
  `;
}

export async function pay(p: Portal, event: Event) {
  event.preventDefault();
  if (p.busy) return;
  p.busy = true;
  p.problem = '';
  try {
    let paymentMethodId: number | undefined;
    if (p.payWith === 'new') {
      paymentMethodId = await captureNewCard(p, event.target as HTMLFormElement);
      if (paymentMethodId === undefined) return;
    }
    await payThroughBank(p, '/portal/api/pay', paymentMethodId ? { paymentMethodId } : {});
  } catch (error) {
    p.fail(error);
  } finally {
    p.busy = false;
  }
}

/** A renewal's payment the bank holds for the customer (the AuthenticationRequired e-mail's flow): confirm it, or pay otherwise. */
function renderAwaiting(p: Portal, awaiting: NonNullable<Overview['awaitingPayment']>) {
  const t = p.text;
  const amount = money(p, awaiting.amount, awaiting.currency);
  return html`
    <h2 tabindex="-1">${t.confirmTitle}</h2>
    <p>${say(t.confirmIntro, amount, awaiting.cardLastFour ?? '')}</p>
    <div class="actions">
      <button class="primary" type="button" ?disabled=${p.busy} @click=${() => void confirmAwaiting(p, awaiting.id)}>${say(t.confirmButton, amount)}</button>
      <button type="button" ?disabled=${p.busy} @click=${() => (p.payWith = 'new')}>${t.payOtherCard}</button>
    </div>
  `;
}

async function confirmAwaiting(p: Portal, paymentId: number) {
  if (p.busy) return;
  p.busy = true;
  p.problem = '';
  try {
    await payThroughBank(p, `/portal/api/payments/${paymentId}/authenticate`, {});
  } catch (error) {
    p.fail(error);
  } finally {
    p.busy = false;
  }
}
