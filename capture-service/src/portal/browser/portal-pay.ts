/** Pay invoices: the balance due, with the default card or a new one. */
import { html, nothing } from 'lit';
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

/**
 * Pays through `path`; when the bank asks the customer to confirm (3-D Secure, 202), its page in the dialog,
 * then the same request with the challenge answered. One key per request: a retried one (a lost answer) never pays twice.
 */
async function payThroughBank(p: Portal, path: string, body: Record<string, unknown>) {
  const send = (extra: Record<string, unknown> = {}) =>
    p.api<PaymentOrChallenge>('POST', path, { ...body, ...extra }, { 'idempotency-key': crypto.randomUUID() });
  let payment = await send();
  if (payment.status === 'RequiresAction') {
    const answered = await runBankChallenge(p, payment.challengeUrl);
    if (answered) payment = await send({ authenticatedBy: payment.authenticationId });
    if (!answered || payment.status === 'RequiresAction') {
      p.problem = p.text.bankFailed;
      return;
    }
  }
  const currency = loadedOverview(p).customer.currency;
  p.overview = await p.api<Overview>('GET', '/portal/api/overview');
  p.payWith = 'default';
  p.notice = say(p.text.paid, money(p, payment.amount, currency));
}

type PaymentOrChallenge =
  | { status: 'Succeeded' | 'Failed'; amount: number; currency?: string }
  | { status: 'RequiresAction'; authenticationId: string; challengeUrl: string };

/** The bank's page in a dialog of the pay view: named by its heading, focused, Cancel or Escape to abandon. */
function renderChallenge(p: Portal, challenge: NonNullable<Portal['challenge']>) {
  const t = p.text;
  return html`<section role="dialog" aria-modal="true" aria-labelledby="bank-title" aria-describedby="bank-intro"
      @keydown=${(event: KeyboardEvent) => event.key === 'Escape' && challenge.cancel()}>
    <h2 id="bank-title" tabindex="-1">${t.bankTitle}</h2>
    <p id="bank-intro">${t.bankIntro}</p>
    <iframe id="bank-challenge" class="bank-challenge" title=${t.bankFrame} src=${challenge.url}></iframe>
    <div class="actions"><button type="button" @click=${() => challenge.cancel()}>${t.bankCancel}</button></div>
  </section>`;
}

/** Shows the bank's challenge until its page answers (true) or the customer cancels (false). */
function runBankChallenge(p: Portal, url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const finish = (answered: boolean) => {
      window.removeEventListener('message', onMessage);
      p.challenge = undefined;
      resolve(answered);
    };
    // Only the bank's page in this dialog, served from this host (the sandbox issuer, or a processor's return page).
    const onMessage = (event: MessageEvent) => {
      const frame = p.renderRoot.querySelector<HTMLIFrameElement>('#bank-challenge');
      if (!frame || event.source !== frame.contentWindow || event.origin !== location.origin) return;
      if ((event.data as { type?: unknown } | null)?.type === 'renew-3ds') finish(true);
    };
    window.addEventListener('message', onMessage);
    p.challenge = { url, cancel: () => finish(false) };
    void p.updateComplete.then(() => p.renderRoot.querySelector<HTMLElement>('#bank-title')?.focus());
  });
}
