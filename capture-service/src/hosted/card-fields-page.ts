import type { CardFieldsStyle } from './card-fields-style.js';
import { cardFieldsText, type CardFieldsLanguage } from './card-fields-text.js';

export const CARD_FIELDS_PATH = '/hosted/card-fields';
export const CARD_FIELDS_SCRIPT_PATH = '/hosted/card-fields.js';
export const CARD_FIELDS_STYLESHEET_PATH = '/hosted/card-fields.css';

/** What the frame's script reads from the page (a data attribute: no inline script, which the policy forbids). */
export interface CardFieldsPageConfig {
  /** The exact origin of the shop's page: the only one the frame listens to and posts to. */
  parentOrigin: string;
  lang: CardFieldsLanguage;
  style: CardFieldsStyle;
}

/** Text and attribute values are escaped: the page holds what the request gave (its origin, its style). */
function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The card fields' page: three labelled inputs, an error line under each (linked
 * with aria-describedby, announced through aria-live), our own stylesheet and
 * script, nothing else. The inputs have no `name`: the page has no form action,
 * so nothing can submit them but the script.
 */
export function renderCardFieldsPage(config: CardFieldsPageConfig): string {
  const t = cardFieldsText(config.lang);
  const field = (id: string, label: string, attributes: string) => `
    <div class="field field-${id}">
      <label for="${id}" id="${id}-label">${escapeHtml(label)}</label>
      <input id="${id}" type="text" ${attributes} aria-invalid="false" aria-describedby="${id}-error" spellcheck="false" autocorrect="off" />
      <p class="error" id="${id}-error" aria-live="polite"></p>
    </div>`;
  return `<!doctype html>
<html lang="${config.lang}">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <meta name="referrer" content="no-referrer" />
  <title>${escapeHtml(t.title)}</title>
  <link rel="stylesheet" href="${CARD_FIELDS_STYLESHEET_PATH}" />
  <script type="module" src="${CARD_FIELDS_SCRIPT_PATH}"></script>
</head>
<body>
  <main id="card-fields" data-config="${escapeHtml(JSON.stringify(config))}">
    <h1 class="visually-hidden">${escapeHtml(t.title)}</h1>
    ${field('cardNumber', t.cardNumber, 'inputmode="numeric" autocomplete="cc-number" maxlength="23" placeholder="1234 1234 1234 1234"')}
    <div class="row">
      ${field('expiry', t.expiry, `inputmode="numeric" autocomplete="cc-exp" maxlength="7" placeholder="${escapeHtml(t.expiryPlaceholder)}"`)}
      ${field('cvv', t.cvv, 'inputmode="numeric" autocomplete="cc-csc" maxlength="4"')}
    </div>
  </main>
  <section id="challenge" role="dialog" aria-modal="true" aria-labelledby="challenge-title" aria-describedby="challenge-intro" hidden>
    <h2 id="challenge-title" tabindex="-1">${escapeHtml(t.challenge.title)}</h2>
    <p id="challenge-intro">${escapeHtml(t.challenge.intro)}</p>
    <iframe id="challenge-frame" title="${escapeHtml(t.challenge.frameTitle)}"></iframe>
    <button id="challenge-cancel" type="button">${escapeHtml(t.challenge.cancel)}</button>
  </section>
</body>
</html>
`;
}
