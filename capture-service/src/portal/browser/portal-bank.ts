/**
 * Paying through the customer's bank: the pay request, the bank's 3-D Secure page in the portal's dialog when it
 * asks, then the request again with the challenge answered. Used by the pay view and by the card form's "pay now".
 */
import { html } from 'lit';
import { ApiFailure } from './portal-api.js';
import { money } from './portal-format.js';
import { loadedOverview, type Overview, type Portal } from './portal-model.js';
import { say } from './portal-text.js';

/**
 * The card form's second step when "pay now" is checked: what is due, paid with the card just saved, through the pay
 * view's own request (its bank's challenge in the dialog). The card stays saved whatever the payment's outcome.
 */
export async function payWithSavedCard(p: Portal, paymentMethodId: number) {
  try {
    await payThroughBank(p, '/portal/api/pay', { paymentMethodId }, p.text.cardSaved);
  } catch (error) {
    p.overview = await p.api<Overview>('GET', '/portal/api/overview');
    p.notice = p.text.cardSaved;
    throw error;
  }
}

/**
 * Pays through `path`; when the bank asks the customer to confirm (3-D Secure, 202), its page in the dialog,
 * then the same request with the challenge answered. One key per request, kept when it is retried after a lost
 * answer (the server answers the payment made under it): never paid twice.
 */
export async function payThroughBank(p: Portal, path: string, body: Record<string, unknown>, before = '') {
  const send = async (extra: Record<string, unknown> = {}) => {
    const key = crypto.randomUUID();
    const request = () => p.api<PaymentOrChallenge>('POST', path, { ...body, ...extra }, { 'idempotency-key': key });
    // Once more under the same key when the answer was lost on the way (no HTTP status): a payment made is the answer.
    return request().catch((error: unknown) => {
      if (error instanceof ApiFailure) throw error;
      return request();
    });
  };
  let payment = await send();
  if (payment.status === 'RequiresAction') {
    const answered = await runBankChallenge(p, payment.challengeUrl);
    if (answered) payment = await send({ authenticatedBy: payment.authenticationId });
    if (!answered || payment.status === 'RequiresAction') {
      p.overview = await p.api<Overview>('GET', '/portal/api/overview');
      p.notice = before;
      p.problem = p.text.bankFailed;
      return;
    }
  }
  const currency = loadedOverview(p).customer.currency;
  p.overview = await p.api<Overview>('GET', '/portal/api/overview');
  p.payWith = 'default';
  p.notice = [before, say(p.text.paid, money(p, payment.amount, currency))].filter(Boolean).join(' ');
}

type PaymentOrChallenge =
  | { status: 'Succeeded' | 'Failed'; amount: number; currency?: string }
  | { status: 'RequiresAction'; authenticationId: string; challengeUrl: string };

/** The bank's page in a dialog of the pay view: named by its heading, focused, Cancel or Escape to abandon. */
export function renderChallenge(p: Portal, challenge: NonNullable<Portal['challenge']>) {
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
