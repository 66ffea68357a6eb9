import { html, nothing } from 'lit';
import { can, get, post } from '../api.js';
import { dateTime, t } from '../i18n.js';
import type { MessageKey } from '../messages-en.js';
import { ConsolePage, type Loaded, problemText, settle, show } from '../page.js';

type KeyKind = 'private' | 'public';
interface ApiKey {
  kind: KeyKind;
  rotatedAt: string | null;
}
const KEY_NAMES: Record<KeyKind, MessageKey> = { private: 'keyPrivate', public: 'keyPublic' };
const keyName = (kind: KeyKind) => t(KEY_NAMES[kind]);

/**
 * #/api-keys (owner): the account's two keys and when each was last rolled (GET /console/api/api-keys); "Roll key"
 * asks first (the old key stops working within 30 s), then shows the new key once (POST .../{kind}/rotate).
 */
export class ApiKeysPage extends ConsolePage {
  static override properties = {
    ...ConsolePage.properties,
    data: { state: true },
    rolling: { state: true },
    rolled: { state: true },
    copied: { state: true },
    message: { state: true },
  };
  declare data: Loaded<{ keys: ApiKey[] }>;
  declare rolling: KeyKind | undefined;
  declare rolled: { kind: KeyKind; key: string } | undefined;
  declare copied: boolean;
  declare message: string;

  constructor() {
    super();
    this.data = { state: 'loading' };
    this.copied = false;
    this.message = '';
  }

  protected override async load() {
    if (can.manageApiKeys(this.operator?.role)) this.data = await settle(get('/api-keys'));
  }

  private async askRoll(kind: KeyKind) {
    this.rolling = kind;
    await this.updateComplete;
    this.dialog('roll-dialog')?.showModal();
  }

  private async roll() {
    const kind = this.rolling;
    this.dialog('roll-dialog')?.close();
    if (!kind) return;
    this.message = '';
    this.rolled = undefined;
    this.copied = false;
    try {
      const answer = await post<{ kind: KeyKind; key: string }>(`/api-keys/${kind}/rotate`);
      this.rolled = { kind: answer.kind, key: answer.key };
    } catch (error) {
      this.message = problemText(error);
    }
    await this.load();
  }

  private async copy() {
    if (!this.rolled) return;
    try {
      await navigator.clipboard.writeText(this.rolled.key);
      this.copied = true;
    } catch (error) {
      this.message = problemText(error);
    }
  }

  override render() {
    if (!can.manageApiKeys(this.operator?.role)) return html`<h1 tabindex="-1">${t('apiKeysTitle')}</h1><p>${t('notAllowed')}</p>`;
    return html`
      <h1 tabindex="-1">${t('apiKeysTitle')}</h1>
      <p class="muted">${t('apiKeysHelp')}</p>
      ${
        this.rolled
          ? html`<section class="card" role="status" aria-labelledby="new-key-title">
              <h2 id="new-key-title">${t('newKeyShown', { key: keyName(this.rolled.kind) })}</h2>
              <pre class="code" data-new-key>${this.rolled.key}</pre>
              <div class="actions">
                <button type="button" class="primary" @click=${this.copy}>${t('copyKey')}</button>
                ${this.copied ? html`<span>${t('copied')}</span>` : nothing}
              </div>
            </section>`
          : nothing
      }
      <p class="error" role="alert">${this.message}</p>
      ${show(
        this.data,
        ({ keys }) => html`<div class="table-wrap"><table>
          <caption>${t('apiKeysCaption')}</caption>
          <thead><tr><th scope="col">${t('colKey')}</th><th scope="col">${t('colRotated')}</th><th scope="col">${t('colActions')}</th></tr></thead>
          <tbody>
            ${keys.map(
              (key) => html`<tr>
                <td>${keyName(key.kind)}</td>
                <td>${key.rotatedAt ? dateTime(key.rotatedAt) : t('neverRotated')}</td>
                <td><button type="button" class="danger" aria-label=${t('rollKeyOf', { key: keyName(key.kind) })} @click=${() => this.askRoll(key.kind)}>${t('rollKey')}</button></td>
              </tr>`,
            )}
          </tbody>
        </table></div>`,
      )}
      <dialog id="roll-dialog" aria-labelledby="roll-title" aria-describedby="roll-warning" @close=${() => (this.rolling = undefined)}>
        <h2 id="roll-title">${this.rolling ? t('rollKeyTitle', { key: keyName(this.rolling) }) : t('rollKey')}</h2>
        <p id="roll-warning">${t('rollKeyWarning')}</p>
        <div class="actions">
          <button type="button" class="danger" @click=${this.roll}>${t('rollKey')}</button>
          <button type="button" @click=${() => this.dialog('roll-dialog')?.close()}>${t('cancel')}</button>
        </div>
      </dialog>
    `;
  }
}
customElements.define('console-api-keys-page', ApiKeysPage);
