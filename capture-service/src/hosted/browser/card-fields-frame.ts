/**
 * The script of the hosted card fields (GET /hosted/card-fields), bundled by the
 * capture host (card-fields-script.ts). It runs in the capture host's origin,
 * inside an iframe of the shop's page: it checks the card with the server's own
 * rules, answers the widget's commands (card-frame-protocol.ts), and sends the
 * card to POST /api/paymentsv2 on its own origin. The card number, expiry and
 * CVV never leave this document except in that request.
 */
import { cardProblem, cvvLength, normalizeCardNumber } from '@renew/billing-service/card-rules';
import { parseCardFieldsStyle, STYLE_PROPERTY, type CardFieldsStyle } from '../card-fields-style.js';
import { cardFieldsLanguage, cardFieldsText, type CardFieldsText } from '../card-fields-text.js';
import type { CardFieldsPageConfig } from '../card-fields-page.js';
import { runChallenge } from './challenge.js';
import {
  CHANNEL_ID,
  fromPeer,
  readCommand,
  wrap,
  type CardFrameErrorItem,
  type CardFrameField,
  type CardFrameFieldErrors,
  type CardFrameResult,
  type CardFrameSubmission,
} from '../card-frame-protocol.js';

const CAPTURE_PATH = '/api/paymentsv2';
const FIELDS: CardFrameField[] = ['cardNumber', 'expiry', 'cvv'];
/** The capture host's error keys -> the field of this page that shows them (an expired card by its code, `card_expired`). */
const FIELD_OF_KEY: Record<string, { field: CardFrameField; error: keyof CardFieldsText['errors'] }> = {
  cardNumber: { field: 'cardNumber', error: 'cardNumber' },
  expirationMonth: { field: 'expiry', error: 'expiryMonth' },
  expirationYear: { field: 'expiry', error: 'expiryFormat' },
  cvv: { field: 'cvv', error: 'cvv' },
};

/** An element of the page card-fields-page.ts renders: missing only if that page and this script disagree. */
function element(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the card fields page has no #${id}`);
  return found;
}

const root = element('card-fields');
const config = JSON.parse(root.dataset.config ?? '{}') as CardFieldsPageConfig;
const channel = new URLSearchParams(location.hash.slice(1)).get('channel') ?? '';
const parent = window.parent;
const input = (field: CardFrameField) => document.getElementById(field) as HTMLInputElement;
const errorLine = (field: CardFrameField) => element(`${field}-error`);

let text = cardFieldsText(config.lang);
/** Fields the shopper has left once: their errors show from then on (not while first typing). */
const touched = new Set<CardFrameField>();
let sending = false;

applyStyle(config.style);

// Outside an iframe of a shop's page, or without a proper channel, the fields stay inert.
if (parent !== window && CHANNEL_ID.test(channel)) {
  window.addEventListener('message', (event) => void onMessage(event));
  for (const field of FIELDS) {
    input(field).addEventListener('blur', () => {
      if (input(field).value) touched.add(field);
      showErrors(check().errors, touched);
    });
    input(field).addEventListener('input', () => onInput(field));
  }
  post({ type: 'ready', height: contentHeight() });
  // The iframe's height follows the content (errors appear, the width changes at 320 px).
  let lastHeight = -1;
  new ResizeObserver(() => {
    const height = contentHeight();
    if (height !== lastHeight) {
      lastHeight = height;
      post({ type: 'resize', height });
    }
  }).observe(document.documentElement);
}

function post(result: CardFrameResult) {
  // Only to the shop's exact origin: if another site framed this page, the browser drops the message.
  parent.postMessage(wrap(channel, result), config.parentOrigin);
}

function contentHeight(): number {
  return Math.ceil(document.documentElement.getBoundingClientRect().height);
}

async function onMessage(event: MessageEvent) {
  const message = fromPeer(event, { origin: config.parentOrigin, window: parent, channel });
  const command = message && readCommand(message);
  if (!command) return;
  switch (command.type) {
    case 'configure':
      if (command.lang) relabel(command.lang);
      if (command.style) applyStyle(parseCardFieldsStyle(command.style).style);
      if (command.disabled !== undefined) for (const field of FIELDS) input(field).disabled = command.disabled;
      return post({ type: 'configured', replyTo: command.id });
    case 'validate': {
      const { errors } = check();
      showErrors(errors, FIELDS);
      focusFirstError(errors);
      return post({ type: 'validity', replyTo: command.id, valid: Object.keys(errors).length === 0, errors });
    }
    case 'submit':
      return submit(command.id, command.submission);
  }
}

/** The card as typed, in the capture host's terms. */
function card() {
  const expiry = /^\s*(\d{1,2})\s*\/?\s*(\d{2})\s*$/.exec(input('expiry').value);
  return {
    cardNumber: normalizeCardNumber(input('cardNumber').value),
    expirationMonth: expiry ? Number(expiry[1]) : NaN,
    expirationYear: expiry ? Number(expiry[2]) : NaN,
    expiryWellFormed: expiry !== null,
    cvv: input('cvv').value.trim(),
  };
}

/** Every field's problem, with the shared card rules (the server's own). */
function check(): { errors: CardFrameFieldErrors } {
  const c = card();
  const errors: CardFrameFieldErrors = {};
  const numberProblem = cardProblem({ ...c, expirationMonth: 1, expirationYear: 99, cvv: '0'.repeat(cvvLength(c.cardNumber)) });
  if (numberProblem) errors.cardNumber = text.errors.cardNumber;
  if (!c.expiryWellFormed) errors.expiry = text.errors.expiryFormat;
  else {
    const expiryProblem = cardProblem({ ...c, cardNumber: '4242424242424242', cvv: '000' });
    if (expiryProblem) errors.expiry = expiryProblem.code === 'card_expired' ? text.errors.expired : text.errors.expiryMonth;
  }
  const digits = cvvLength(c.cardNumber);
  if (!new RegExp(`^\\d{${digits}}$`).test(c.cvv)) errors.cvv = text.errors.cvv.replace('{digits}', String(digits));
  return { errors };
}

/** The shopper is taken to the first field to correct (the widget asked on a Pay click). */
function focusFirstError(errors: CardFrameFieldErrors) {
  const first = FIELDS.find((field) => errors[field]);
  if (first) input(first).focus();
}

function showErrors(errors: CardFrameFieldErrors, fields: Iterable<CardFrameField>) {
  const shown = new Set(fields);
  for (const field of FIELDS) {
    const message = shown.has(field) ? (errors[field] ?? '') : '';
    if (errorLine(field).textContent !== message) errorLine(field).textContent = message;
    input(field).setAttribute('aria-invalid', message ? 'true' : 'false');
  }
}

async function submit(id: string, submission: CardFrameSubmission) {
  const { errors } = check();
  showErrors(errors, FIELDS);
  if (Object.keys(errors).length > 0) {
    // Caught here: nothing is sent.
    focusFirstError(errors);
    return post({ type: 'validity', replyTo: id, valid: false, errors });
  }
  if (sending)
    return post({
      type: 'refused',
      replyTo: id,
      status: 409,
      errors: [{ Key: 'Api Error', Value: 'the card is already being sent', Code: 'state_conflict' }],
      declined: false,
      declineCode: null,
    });
  sending = true;
  try {
    const { collectionAmount, ...rest } = submission;
    const c = card();
    const body = {
      ...rest,
      cardNumber: c.cardNumber,
      expirationMonth: c.expirationMonth,
      expirationYear: c.expirationYear,
      cvv: c.cvv,
      ...(collectionAmount ? { paymentCollectOptions: { collectionAmount } } : {}),
    };
    let response: Response;
    try {
      response = await fetch(CAPTURE_PATH, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch {
      return post(unreachable(id));
    }
    let data = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    // The card's bank asks the shopper to authenticate: the challenge here, then the capture is completed; a bank
    // that asks for the first payment's own challenge too answers 202 again (at most a few rounds).
    for (
      let round = 0;
      round < 3 && response.status === 202 && typeof data?.id === 'string' && typeof data.challengeUrl === 'string';
      round++
    ) {
      const completed = await authenticate(id, data.id, data.challengeUrl);
      if (!completed) return;
      response = completed;
      data = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    }
    if (response.ok && data && typeof data.id === 'number') {
      const paymentId = Number(response.headers.get('renew-payment-id'));
      return post({
        type: 'captured',
        replyTo: id,
        cardId: data.id,
        maskedCardNumber: String(data.maskedCardNumber),
        brand: String(data.cardType),
        paymentId: paymentId > 0 ? paymentId : null,
      });
    }
    const entries: CardFrameErrorItem[] = Array.isArray(data?.Errors)
      ? (data.Errors as CardFrameErrorItem[])
      : [{ Key: 'Api Error', Value: `request failed (${response.status})`, Code: 'internal_error' }];
    showServerErrors(entries);
    const declineCode = entries.find((e) => e.Key === 'declineCode')?.Value ?? null;
    // On the code only: the English Value may be reworded at any time.
    const declined = declineCode !== null || entries.some((e) => e.Code === 'card_declined' || e.Code === 'authentication_failed');
    post({ type: 'refused', replyTo: id, status: response.status, errors: entries, declined, declineCode });
  } finally {
    sending = false;
  }
}

/** The capture host could not be reached: nothing was received. */
function unreachable(replyTo: string): CardFrameResult {
  return {
    type: 'refused',
    replyTo,
    status: 0,
    errors: [{ Key: 'Api Error', Value: 'network error: check your connection and try again', Code: 'network_error' }],
    declined: false,
    declineCode: null,
  };
}

/**
 * The bank's challenge (3-D Secure), then the completion of the capture: its response, or undefined once a
 * refusal was posted (the shopper cancelled, or the host could not be reached).
 */
async function authenticate(replyTo: string, captureId: string, challengeUrl: string): Promise<Response | undefined> {
  post({ type: 'authenticating', replyTo });
  if ((await runChallenge(challengeUrl)) === 'cancelled') {
    post({
      type: 'refused',
      replyTo,
      status: 400,
      errors: [{ Key: 'Api Error', Value: 'the authentication with the bank was cancelled', Code: 'authentication_failed' }],
      declined: true,
      declineCode: 'authentication_failed',
    });
    return undefined;
  }
  try {
    return await fetch(`${CAPTURE_PATH}/authentications/${encodeURIComponent(captureId)}`, {
      method: 'POST',
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    post(unreachable(replyTo));
    return undefined;
  }
}

/** A card field the capture host refused is shown at the field, in the frame's language. */
function showServerErrors(entries: CardFrameErrorItem[]) {
  const errors: CardFrameFieldErrors = {};
  for (const { Key, Code } of entries) {
    const target = FIELD_OF_KEY[Key];
    if (!target) continue;
    const error = Code === 'card_expired' ? 'expired' : target.error;
    errors[target.field] = text.errors[error].replace('{digits}', String(cvvLength(card().cardNumber)));
  }
  if (Object.keys(errors).length > 0) showErrors(errors, FIELDS);
}

/** Groups the number in fours (American Express 4-6-5) and the expiry as MM / YY while typing at the end. */
function onInput(field: CardFrameField) {
  const element = input(field);
  const atEnd = element.selectionStart === element.value.length;
  if (field === 'cardNumber' && atEnd) {
    const digits = element.value.replace(/\D/g, '').slice(0, 19);
    const groups = cvvLength(digits) === 4 ? [4, 6, 5] : [4, 4, 4, 4, 3];
    const parts: string[] = [];
    let at = 0;
    for (const size of groups) {
      if (at >= digits.length) break;
      parts.push(digits.slice(at, at + size));
      at += size;
    }
    element.value = parts.join(' ');
  }
  if (field === 'expiry' && atEnd) {
    const digits = element.value.replace(/\D/g, '').slice(0, 4);
    element.value = digits.length > 2 ? `${digits.slice(0, 2)} / ${digits.slice(2)}` : digits;
  }
  // A shown error goes away as soon as the field is right.
  if (touched.has(field) || element.getAttribute('aria-invalid') === 'true')
    showErrors(check().errors, [...touched, ...FIELDS.filter((f) => input(f).getAttribute('aria-invalid') === 'true')]);
}

function relabel(lang: string) {
  const language = cardFieldsLanguage(lang);
  text = cardFieldsText(language);
  document.documentElement.lang = language;
  document.title = text.title;
  element('cardNumber-label').textContent = text.cardNumber;
  element('expiry-label').textContent = text.expiry;
  element('cvv-label').textContent = text.cvv;
  input('expiry').placeholder = text.expiryPlaceholder;
  // Errors on show are said again in the new language.
  showErrors(
    check().errors,
    FIELDS.filter((f) => input(f).getAttribute('aria-invalid') === 'true'),
  );
}

function applyStyle(style: CardFieldsStyle) {
  for (const [key, value] of Object.entries(style)) {
    const property = STYLE_PROPERTY[key as keyof CardFieldsStyle];
    if (property && value) document.documentElement.style.setProperty(property, value);
  }
}
