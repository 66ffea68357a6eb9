/**
 * Update card: the card is typed in the hosted card fields (`<renew-hosted-card-frame>`), whose frame
 * sends it to POST /api/paymentsv2; this script never sees it. Paying with a new card uses the same form.
 */
import { html, nothing } from 'lit';
import type { HostedCardFrame } from '../../hosted/frame-host/hosted-card-frame.js';
import { ApiFailure, PortalNotice } from './portal-api.js';
import { captchaAnswer, resetCaptcha, showCaptcha, type PortalCaptchaSettings } from './portal-captcha.js';
import { cardLine, money } from './portal-format.js';
import { loadedOverview, loadedSession, type Overview, type Portal, requiredElement } from './portal-model.js';
import { payWithSavedCard, renderChallenge } from './portal-bank.js';
import { say } from './portal-text.js';

export function renderCardForm(p: Portal, submitLabel: string, onSubmit: (event: Event) => void, extra: unknown = nothing) {
  const t = p.text;
  const c = loadedOverview(p).customer;
  return html`
    <p>${t.cardIntro}</p>
    <form @submit=${onSubmit}>
      <label>${t.firstName}<input name="firstName" autocomplete="cc-given-name" required .value=${c.firstName ?? ''} /></label>
      <label>${t.lastName}<input name="lastName" autocomplete="cc-family-name" required .value=${c.lastName ?? ''} /></label>
      <renew-hosted-card-frame .captureUrl=${location.origin} .language=${p.language} .disabled=${p.busy}></renew-hosted-card-frame>
      <div class="captcha" data-captcha hidden><p>${t.captchaWhy}</p><div data-captcha-widget></div><slot name="captcha"></slot></div>
      ${extra}
      <div class="actions"><button class="primary" type="submit" ?disabled=${p.busy}>${submitLabel}</button></div>
    </form>
  `;
}

export function renderCard(p: Portal) {
  const t = p.text;
  const o = loadedOverview(p);
  const card = o.defaultCard;
  if (p.challenge) return renderChallenge(p, p.challenge);
  // What is due, offered to pay with the card being saved, checked by default (as Stripe's portal does).
  const payDue =
    o.amountDue > 0
      ? html`<label class="choice"><input type="checkbox" name="payDue" .checked=${p.payWithNewCard}
          @change=${(event: Event) => (p.payWithNewCard = (event.target as HTMLInputElement).checked)} />${say(t.payDueWithCard, money(p, o.amountDue, o.customer.currency))}</label>`
      : nothing;
  return html`
    <h2 tabindex="-1">${t.cardTitle}</h2>
    ${card ? html`<p>${cardLine(p, card)} ${card.expiringSoon ? html`<span class="flag">${t.expiresSoon}</span>` : nothing}</p>` : nothing}
    ${renderCardForm(p, t.saveCard, (event) => void saveCard(p, event), payDue)}
  `;
}

interface MintedCardToken {
  token: string;
  riskToken: string;
  clientIp: string;
  captchaRequired: boolean;
  captcha: PortalCaptchaSettings;
}

/** A capture token for one attempt; refused (429) for the hour after too many declines, said in the customer's language. */
async function mintCardToken(p: Portal): Promise<MintedCardToken> {
  try {
    return await p.api<MintedCardToken>('POST', '/portal/api/card-capture-token', {});
  } catch (error) {
    throw error instanceof ApiFailure && error.status === 429 ? new Error(p.text.cardAttemptsExhausted) : error;
  }
}

/** The card through the frame: a capture token from the session, then the frame sends the card itself. */
export async function captureNewCard(p: Portal, form: HTMLFormElement): Promise<number | undefined> {
  const frame = requiredElement<HostedCardFrame>(form, 'renew-hosted-card-frame');
  const validity = await frame.validate();
  if (!validity.valid) return undefined;
  const fields = new FormData(form);
  const minted = await mintCardToken(p);
  // After a decline the server asks for the CAPTCHA: shown with why, solved before the card is sent (README "Customer portal").
  const captchaBox = requiredElement<HTMLElement>(form, '[data-captcha]');
  let recaptcha = '';
  if (minted.captchaRequired) {
    await showCaptcha(captchaBox, minted.captcha, p.text.captchaDevLabel);
    recaptcha = captchaAnswer(captchaBox);
    if (!recaptcha) throw new PortalNotice(p.text.captchaNeeded);
  }
  const email = (loadedOverview(p).customer.primaryEmail ?? '').split(/[;,]/)[0]?.trim() ?? '';
  const result = await frame.submit({
    publicApiKey: '',
    customerId: loadedSession(p).customerId,
    captureToken: minted.token,
    recaptcha,
    firstName: String(fields.get('firstName') ?? '').trim(),
    lastName: String(fields.get('lastName') ?? '').trim(),
    riskToken: minted.riskToken,
    clientIp: minted.clientIp,
    email,
    makeDefault: true,
    collectionAmount: null,
  });
  resetCaptcha(captchaBox);
  if (!result.ok) {
    // The next attempt needs the CAPTCHA: shown now, so the customer is not surprised by it.
    if (result.errors.some((e) => e.Code === 'card_declined' || e.Code === 'authentication_failed'))
      await showCaptcha(captchaBox, minted.captcha, p.text.captchaDevLabel);
    if (result.status === 429) throw new PortalNotice(p.text.cardAttemptsExhausted);
    throw new ApiFailure(result.status, result.errors.map((e) => e.Value).join('; '), result.errors);
  }
  return result.value.id;
}

export async function saveCard(p: Portal, event: Event) {
  event.preventDefault();
  if (p.busy) return;
  p.busy = true;
  p.problem = '';
  try {
    const payDue = loadedOverview(p).amountDue > 0 && p.payWithNewCard;
    const id = await captureNewCard(p, event.target as HTMLFormElement);
    if (id === undefined) return;
    if (payDue) return await payWithSavedCard(p, id);
    p.overview = await p.api<Overview>('GET', '/portal/api/overview');
    p.notice = p.text.cardSaved;
  } catch (error) {
    p.fail(error);
  } finally {
    p.busy = false;
  }
}
