import { css, html, LitElement, nothing, type TemplateResult } from 'lit';
import { ApiError, get, onSessionEnded, type Operator, post, setCsrfToken } from './api.js';
import { LANGUAGE_NAMES, LANGUAGES, type Language, language, roleName, setLanguage, t } from './i18n.js';
import type { MessageKey } from './messages-en.js';
import { pageStyles, themeTokens } from './styles.js';
import './pages/sign-in-page.js';
import './pages/invitation-page.js';
import './pages/customers-page.js';
import './pages/customer-page.js';
import './pages/payments-page.js';
import './pages/dunning-page.js';
import './pages/revenue-page.js';
import './pages/webhooks-page.js';
import './pages/emails-page.js';
import './pages/bulk-page.js';
import './pages/team-page.js';
import './pages/api-keys-page.js';
import './pages/account-page.js';
import './pages/test-clock-page.js';

/** The hash routes of the contract: `#/customers/42` → {name: 'customer', arg: '42'}. */
export interface Route {
  name: string;
  arg?: string;
}

export function parseRoute(hash: string): Route {
  const [path = '', search = ''] = hash.replace(/^#\/?/, '').split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const [first, second] = parts;
  const words = new URLSearchParams(search).get('q');
  if ((first ?? 'customers') === 'customers' && !second && words) return { name: 'customers', arg: words };
  if (first === 'customers' && second) return { name: 'customer', arg: second };
  if (first === 'invitation' && second) return { name: 'invitation', arg: second };
  return { name: first || 'customers' };
}

const NAV: Array<{ route: string; label: MessageKey; ownerOnly?: boolean; testClock?: boolean }> = [
  { route: 'customers', label: 'navCustomers' },
  { route: 'payments', label: 'navPayments' },
  { route: 'dunning', label: 'navDunning' },
  { route: 'revenue', label: 'navRevenue' },
  { route: 'webhooks', label: 'navWebhooks' },
  { route: 'emails', label: 'navEmails' },
  { route: 'bulk', label: 'navBulk' },
  { route: 'team', label: 'navTeam', ownerOnly: true },
  { route: 'api-keys', label: 'navApiKeys', ownerOnly: true },
  { route: 'account', label: 'navAccount' },
  { route: 'test-clock', label: 'navTestClock', testClock: true },
];

const PUBLIC_ROUTES = new Set(['sign-in', 'invitation']);
const THEME_KEY = 'renew-console-theme';

type Theme = 'light' | 'dark';

function initialTheme(): Theme {
  const stored = localStorage.getItem(THEME_KEY);
  if (stored === 'light' || stored === 'dark') return stored;
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/**
 * <renew-console>: the shell. Knows the session (GET /console/api/session), the route (location.hash), the
 * language and the theme, and shows one page element per route; any 401 sends the operator to sign-in.
 */
export class RenewConsole extends LitElement {
  static override styles = [
    themeTokens,
    pageStyles,
    css`
      :host {
        display: block; min-height: 100vh; background: var(--console-bg); color: var(--renew-text);
        font-family: var(--renew-font); line-height: 1.45;
      }
      /* A button, not a link to #main: the router owns the hash, and a link's target must be in the document, not in
         this shadow tree. Inside the banner so that nothing lies outside a landmark. */
      .skip { position: absolute; left: -999px; top: 0; }
      .skip:focus { left: 0.5rem; top: 0.5rem; z-index: 10; }
      header {
        display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem 1rem; padding: 0.6rem 1rem;
        border-bottom: 1px solid var(--console-border); background: var(--console-surface);
      }
      header .brand { font-weight: 700; margin-right: auto; }
      header label { display: flex; align-items: center; gap: 0.4rem; }
      header .header-search { display: flex; gap: 0.25rem; max-width: 100%; }
      header .header-search input { min-width: 0; width: 12rem; max-width: 100%; }
      nav ul { display: flex; flex-wrap: wrap; gap: 0.25rem; list-style: none; margin: 0; padding: 0.4rem 1rem; border-bottom: 1px solid var(--console-border); }
      nav a { display: inline-block; padding: 0.4rem 0.6rem; border-radius: var(--renew-radius); text-decoration: none; }
      nav a[aria-current='page'] { background: var(--console-selected); font-weight: 600; text-decoration: underline; }
      main { padding: 1rem; max-width: 80rem; margin: 0 auto; }
      main:focus { outline: none; }
    `,
  ];
  static override properties = {
    route: { state: true },
    operator: { state: true },
    checked: { state: true },
    lang: { state: true },
    theme: { type: String, reflect: true },
    testClock: { state: true },
  };
  declare route: Route;
  declare operator: Operator | undefined;
  declare checked: boolean;
  declare lang: Language;
  declare theme: Theme;
  /** Whether the account has a test clock (GET /v1/testclock answers): its page is in the navigation. */
  declare testClock: boolean;
  private afterSignIn = '#/customers';
  private readonly onHashChange = () => this.navigate();
  private readonly systemTheme = matchMedia('(prefers-color-scheme: dark)');
  /** Until the operator picks a theme, the console follows the system's, also when it changes. */
  private readonly onSystemTheme = () => {
    if (!localStorage.getItem(THEME_KEY)) this.theme = this.systemTheme.matches ? 'dark' : 'light';
  };
  private stopListening?: () => void;

  constructor() {
    super();
    this.route = parseRoute(location.hash);
    this.checked = false;
    this.testClock = false;
    this.lang = language();
    this.theme = initialTheme();
    setLanguage(this.lang);
  }

  override connectedCallback() {
    super.connectedCallback();
    addEventListener('hashchange', this.onHashChange);
    this.systemTheme.addEventListener('change', this.onSystemTheme);
    this.stopListening = onSessionEnded(() => this.sessionEnded());
    this.addEventListener('console-signed-in', (event) =>
      this.signedIn((event as CustomEvent<{ operator: Operator; csrfToken: string }>).detail),
    );
    this.addEventListener('console-operator-changed', (event) => {
      this.operator = (event as CustomEvent<Operator>).detail;
    });
    void this.checkSession();
  }

  override disconnectedCallback() {
    super.disconnectedCallback();
    removeEventListener('hashchange', this.onHashChange);
    this.systemTheme.removeEventListener('change', this.onSystemTheme);
    this.stopListening?.();
  }

  private async checkSession() {
    try {
      const session = await get<{ operator: Operator; csrfToken: string }>('/session', { quietUnauthorized: true });
      this.operator = session.operator;
      setCsrfToken(session.csrfToken);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) console.warn('session check failed', error);
      this.operator = undefined;
    }
    this.checked = true;
    this.navigate();
    void this.checkTestClock();
  }

  private async checkTestClock() {
    if (!this.operator) return;
    try {
      await get('/v1/testclock');
      this.testClock = true;
    } catch {
      this.testClock = false; // not registered without RENEW_TEST_CLOCKS: a 404, no page
    }
  }

  private navigate() {
    const route = parseRoute(location.hash);
    if (!this.operator && !PUBLIC_ROUTES.has(route.name)) {
      if (this.checked) {
        this.afterSignIn = location.hash && location.hash !== '#/sign-in' ? location.hash : '#/customers';
        location.hash = '#/sign-in';
      }
      return;
    }
    if (this.operator && route.name === 'sign-in') {
      location.hash = '#/customers';
      return;
    }
    const changed = route.name !== this.route.name || route.arg !== this.route.arg;
    this.route = route;
    if (changed) void this.updateComplete.then(() => this.focusPage());
  }

  private focusPage() {
    const page = this.renderRoot.querySelector('main > *') as (HTMLElement & { focusHeading?: () => void }) | null;
    void (page as unknown as LitElement | null)?.updateComplete?.then(() => page?.focusHeading?.());
  }

  private signedIn(detail: { operator: Operator; csrfToken: string }) {
    this.operator = detail.operator;
    setCsrfToken(detail.csrfToken);
    void this.checkTestClock();
    const target = this.afterSignIn;
    this.afterSignIn = '#/customers';
    if (location.hash === target) this.navigate();
    else location.hash = target;
  }

  private sessionEnded() {
    if (!this.operator && PUBLIC_ROUTES.has(this.route.name)) return;
    this.operator = undefined;
    setCsrfToken(undefined);
    this.navigate();
  }

  private async signOut() {
    try {
      await post('/sign-out');
    } catch {
      // the session may be gone already; signing out locally is what matters
    }
    this.operator = undefined;
    setCsrfToken(undefined);
    this.afterSignIn = '#/customers';
    location.hash = '#/sign-in';
  }

  /** The header's search: the customers page with these words (name, e-mail, company, reference or id). */
  private searchCustomers(event: SubmitEvent) {
    event.preventDefault();
    const words = String(new FormData(event.target as HTMLFormElement).get('q') ?? '').trim();
    if (words) location.hash = `#/customers?q=${encodeURIComponent(words)}`;
  }

  private chooseLanguage(event: Event) {
    const next = (event.target as HTMLSelectElement).value as Language;
    setLanguage(next);
    this.lang = next;
  }

  private toggleTheme(event: Event) {
    this.theme = (event.target as HTMLInputElement).checked ? 'dark' : 'light';
    localStorage.setItem(THEME_KEY, this.theme);
  }

  override updated() {
    document.documentElement.style.colorScheme = this.theme;
    document.documentElement.lang = this.lang;
    document.title = t('appName');
  }

  private page(): TemplateResult {
    const { name, arg } = this.route;
    const op = this.operator;
    const lang = this.lang;
    const theme = this.theme;
    switch (name) {
      case 'sign-in':
        return html`<console-sign-in-page .lang=${lang}></console-sign-in-page>`;
      case 'invitation':
        return html`<console-invitation-page .lang=${lang} .routeArg=${arg}></console-invitation-page>`;
      case 'customer':
        return html`<console-customer-page .operator=${op} .lang=${lang} .routeArg=${arg}></console-customer-page>`;
      case 'payments':
        return html`<console-payments-page .operator=${op} .lang=${lang}></console-payments-page>`;
      case 'dunning':
        return html`<console-dunning-page .operator=${op} .lang=${lang}></console-dunning-page>`;
      case 'revenue':
        return html`<console-revenue-page .operator=${op} .lang=${lang} .theme=${theme}></console-revenue-page>`;
      case 'webhooks':
        return html`<console-webhooks-page .operator=${op} .lang=${lang}></console-webhooks-page>`;
      case 'emails':
        return html`<console-emails-page .operator=${op} .lang=${lang}></console-emails-page>`;
      case 'bulk':
        return html`<console-bulk-page .operator=${op} .lang=${lang}></console-bulk-page>`;
      case 'team':
        return html`<console-team-page .operator=${op} .lang=${lang}></console-team-page>`;
      case 'api-keys':
        return html`<console-api-keys-page .operator=${op} .lang=${lang}></console-api-keys-page>`;
      case 'test-clock':
        return html`<console-test-clock-page .operator=${op} .lang=${lang}></console-test-clock-page>`;
      case 'account':
        return html`<console-account-page .operator=${op} .lang=${lang}></console-account-page>`;
      default:
        return html`<console-customers-page .operator=${op} .lang=${lang} .routeArg=${arg}></console-customers-page>`;
    }
  }

  override render() {
    const op = this.operator;
    const signedIn = op !== undefined && !PUBLIC_ROUTES.has(this.route.name);
    return html`
      <header>
        <button type="button" class="skip" @click=${this.focusPage}>${t('skipToContent')}</button>
        <span class="brand">${t('appName')}</span>
        ${
          signedIn
            ? html`<form class="header-search" role="search" aria-label=${t('searchCustomers')} @submit=${this.searchCustomers}>
                <input name="q" type="search" aria-label=${t('searchCustomers')} placeholder=${t('searchCustomers')} />
                <button type="submit" aria-label=${t('searchCustomers')}>${t('search')}</button>
              </form>`
            : nothing
        }
        ${signedIn ? html`<span>${t('signedInAs', { name: op.name || op.email, role: roleName(op.role) })}</span>` : nothing}
        <label>${t('language')}
          <select aria-label=${t('language')} @change=${this.chooseLanguage}>
            ${LANGUAGES.map((code) => html`<option value=${code} lang=${code} ?selected=${code === this.lang}>${LANGUAGE_NAMES[code]}</option>`)}
          </select>
        </label>
        <label><input type="checkbox" .checked=${this.theme === 'dark'} @change=${this.toggleTheme} /> ${t('themeDark')}</label>
        ${signedIn ? html`<button type="button" @click=${this.signOut}>${t('signOut')}</button>` : nothing}
      </header>
      ${
        signedIn
          ? html`<nav aria-label=${t('navLabel')}>
              <ul>
                ${NAV.filter((item) => (!item.ownerOnly || op.role === 'owner') && (!item.testClock || this.testClock)).map(
                  (item) =>
                    html`<li><a href="#/${item.route}" aria-current=${this.isCurrent(item.route) ? 'page' : nothing}>${t(item.label)}</a></li>`,
                )}
              </ul>
            </nav>`
          : nothing
      }
      <main id="main" tabindex="-1">${this.checked || PUBLIC_ROUTES.has(this.route.name) ? this.page() : html`<p role="status">${t('loading')}</p>`}</main>
    `;
  }

  private isCurrent(route: string): boolean {
    return this.route.name === route || (route === 'customers' && this.route.name === 'customer');
  }
}

customElements.define('renew-console', RenewConsole);
