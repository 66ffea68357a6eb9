/**
 * `<renew-portal>`: the customer portal's pages (overview, update card, pay, invoices, cancel, contact
 * and address, e-mails), on the JSON routes under /portal/api of this host and the cookie's session.
 * The card is typed in the hosted card fields (`<renew-hosted-card-frame>`, this host's element, which the widget uses too):
 * a frame whose script sends it to POST /api/paymentsv2; this script never sees it.
 * Views are deep-linkable: `#card`, `#pay`, `#invoices`, `#cancel-<subscription id>`, `#change-<subscription id>`
 * (another plan), `#seats-<subscription id>` (quantities), `#details`; a link's flow opens its view.
 */
import { html, LitElement, nothing, type TemplateResult } from 'lit';
import '../../hosted/frame-host/hosted-card-frame.js';
import { ApiFailure, portalApi } from './portal-api.js';
import { fieldProblemText, problemText } from './portal-declines.js';
import { renderCancel } from './portal-cancel.js';
import { renderCard } from './portal-card.js';
import { renderChange } from './portal-change.js';
import { renderDetails } from './portal-details.js';
import { renderInvoices } from './portal-invoices.js';
import type {
  CreditNote,
  ChangeOptions,
  ChangeRequest,
  Country,
  Invoice,
  Overview,
  PayWith,
  PlanChange,
  Portal,
  Preference,
  Session,
  SubscriptionUsage,
  View,
} from './portal-model.js';
import { renderOverview } from './portal-overview.js';
import { renderPay } from './portal-pay.js';
import { portalStyles } from './portal-styles.js';
import { portalLanguageOf, portalText, type PortalLanguage, type PortalText } from './portal-text.js';

const FLOW_VIEWS: Record<string, (session: Session) => View> = {
  paymentMethodUpdate: () => 'card',
  payInvoices: () => 'pay',
  authenticatePayment: () => 'pay',
  invoices: () => 'invoices',
  subscriptionCancel: (s) => (s.subscriptionId ? `cancel-${s.subscriptionId}` : 'overview'),
};

/** The shell: the state, the router (hash and link flow to view), the header and navigation; each view is a portal-*.ts section. */
export class RenewPortal extends LitElement implements Portal {
  static override styles = portalStyles;

  static override properties = {
    view: { state: true },
    session: { state: true },
    overview: { state: true },
    invoices: { state: true },
    creditNotes: { state: true },
    usage: { state: true },
    preferences: { state: true },
    countries: { state: true },
    addressCountry: { state: true },
    payWithNewCard: { state: true },
    notice: { state: true },
    problem: { state: true },
    busy: { state: true },
    ended: { state: true },
    payWith: { state: true },
    challenge: { state: true },
    changeOptions: { state: true },
    changePreview: { state: true },
  };

  declare view: View;
  declare session: Session | undefined;
  declare overview: Overview | undefined;
  declare invoices: Invoice[] | undefined;
  declare creditNotes: CreditNote[] | undefined;
  declare usage: SubscriptionUsage[] | undefined;
  declare preferences: Preference[] | undefined;
  declare countries: Country[] | undefined;
  declare addressCountry: number | null;
  declare payWithNewCard: boolean;
  declare notice: string;
  declare problem: string;
  declare busy: boolean;
  declare ended: boolean;
  declare payWith: PayWith;
  declare challenge: Portal['challenge'];
  declare changeOptions: ChangeOptions[] | undefined;
  declare changePreview: PlanChange | undefined;
  /** What the preview shown was asked for: confirming sends exactly it. */
  changeRequest: ChangeRequest | undefined;
  language: PortalLanguage = portalLanguageOf(document.documentElement.lang);
  text: PortalText = portalText(this.language);
  private readonly onHash = () => this.show(this.viewOfHash() ?? 'overview');

  constructor() {
    super();
    this.view = 'overview';
    this.notice = '';
    this.problem = '';
    this.busy = false;
    this.ended = false;
    this.payWith = 'default';
    this.addressCountry = null;
    this.payWithNewCard = true;
  }

  override connectedCallback() {
    super.connectedCallback();
    window.addEventListener('hashchange', this.onHash);
    // The forms' own messages in the portal's language, not the browser's ("Please fill out this field").
    this.renderRoot.addEventListener('invalid', this.onInvalid, true);
    this.renderRoot.addEventListener('input', this.onInput, true);
    void this.start();
  }

  private readonly onInvalid = (event: Event) => {
    const field = event.target;
    if (field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement || field instanceof HTMLSelectElement)
      field.setCustomValidity(fieldProblemText(this.text, field.validity));
  };

  private readonly onInput = (event: Event) => {
    const field = event.target;
    if (field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement || field instanceof HTMLSelectElement)
      field.setCustomValidity('');
  };

  override disconnectedCallback() {
    super.disconnectedCallback();
    window.removeEventListener('hashchange', this.onHash);
  }

  private showRequests = 0;

  private async start() {
    try {
      this.session = await this.api<Session>('GET', '/portal/api/session');
      // The link's language, when the page was opened without one.
      if (this.session.locale && !new URLSearchParams(location.search).has('lang')) this.useLanguage(portalLanguageOf(this.session.locale));
      const flow = new URLSearchParams(location.search).get('flow') ?? this.session.flow;
      const fromFlow = flow && FLOW_VIEWS[flow] ? FLOW_VIEWS[flow](this.session) : undefined;
      await this.show(this.viewOfHash() ?? fromFlow ?? 'overview');
    } catch (error) {
      this.fail(error);
    }
  }

  private useLanguage(language: PortalLanguage) {
    this.language = language;
    this.text = portalText(language);
    document.documentElement.lang = language;
    document.title = this.text.title;
  }

  private viewOfHash(): View | undefined {
    const name = location.hash.slice(1);
    if (name === 'overview' || name === 'card' || name === 'pay' || name === 'invoices' || name === 'details') return name;
    if (/^(cancel|change|seats)-\d+$/.test(name)) return name as View;
    return undefined;
  }

  /** Loads what a view shows, then shows it; the heading takes the focus so a screen reader hears the new page. */
  async show(view: View) {
    // Only the newest request shows: a view asked for while the first one loads is not undone by it.
    const request = ++this.showRequests;
    this.notice = '';
    this.problem = '';
    try {
      if (!this.overview || view === 'overview' || view === 'pay') this.overview = await this.api<Overview>('GET', '/portal/api/overview');
      if (view === 'overview') this.usage = await this.api<SubscriptionUsage[]>('GET', '/portal/api/usage');
      if (view === 'invoices') {
        this.invoices = await this.api<Invoice[]>('GET', '/portal/api/invoices');
        this.creditNotes = await this.api<CreditNote[]>('GET', '/portal/api/credit-notes');
      }
      const changing = /^(change|seats)-/.test(view);
      if (this.overview.scope === 'full' && (view === 'overview' || changing))
        this.changeOptions = await this.api<ChangeOptions[]>('GET', '/portal/api/plan-changes');
      if (changing) {
        this.changePreview = undefined;
        this.changeRequest = undefined;
      }
      if (view === 'details' && this.overview.scope === 'full') {
        this.preferences = await this.api<Preference[]>('GET', '/portal/api/email-preferences');
        this.countries ??= await this.api<Country[]>('GET', '/portal/api/countries');
        this.addressCountry = this.overview.billingAddress?.countryId ?? null;
      }
      if (request !== this.showRequests) return;
      if (view === 'card') this.payWithNewCard = true;
      this.payWith = this.overview.defaultCard ? 'default' : 'new';
      this.view = view;
      if (location.hash.slice(1) !== view) history.replaceState(null, '', `${location.pathname}${location.search}#${view}`);
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>('main h2')?.focus();
    } catch (error) {
      this.fail(error);
    }
  }

  api<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    return portalApi<T>(this.session, method, path, body, headers);
  }

  fail(error: unknown) {
    if (error instanceof ApiFailure && error.status === 401) this.ended = true;
    else this.problem = problemText(this.text, error);
  }

  override render() {
    const t = this.text;
    // One banner per page: the merchant's header around this element (portal-pages.ts); the title opens main, and
    // names it: the card fields' frame has a main of its own, and two unnamed ones are not told apart (landmark-unique).
    if (this.ended) return html`<main><h1>${t.title}</h1><p role="alert">${t.sessionEnded}</p></main>`;
    if (!this.session || !this.overview) {
      return html`<main><h1>${t.title}</h1>${this.problem ? html`<p class="error" role="alert">${this.problem}</p>` : html`<p role="status">${t.loading}</p>`}</main>`;
    }
    const full = this.overview.scope === 'full';
    const links: Array<[View, string]> = [
      ['overview', t.overview],
      ['card', t.updateCard],
      ['pay', t.payInvoices],
      ['invoices', t.invoices],
      ...(full ? [['details', t.details] as [View, string]] : []),
    ];
    const back = this.overview.returnUrl;
    return html`
      <nav aria-label=${t.nav}>
        <ul>${links.map(([view, label]) => html`<li><a href="#${view}" aria-current=${this.view === view ? 'page' : 'false'}>${label}</a></li>`)}</ul>
        <div class="actions">
          ${back ? html`<a href=${back} rel="noopener">${t.back}</a>` : nothing}
          <button type="button" @click=${this.signOut}>${t.signOut}</button>
        </div>
      </nav>
      <main aria-labelledby="portal-title">
        <h1 id="portal-title">${t.title}</h1>
        ${this.notice ? html`<p class="status" role="status" tabindex="-1">${this.notice}</p>` : nothing}
        ${this.problem ? html`<p class="error" role="alert">${this.problem}</p>` : nothing}
        ${this.renderView()}
      </main>
    `;
  }

  private renderView(): TemplateResult {
    switch (this.view) {
      case 'card':
        return renderCard(this);
      case 'pay':
        return renderPay(this);
      case 'invoices':
        return renderInvoices(this);
      case 'details':
        return renderDetails(this);
      case 'overview':
        return renderOverview(this);
      default: {
        const [kind, id] = this.view.split('-') as [string, string];
        if (kind === 'change' || kind === 'seats') return renderChange(this, Number(id), kind);
        return renderCancel(this, Number(id));
      }
    }
  }

  async focusNotice() {
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLElement>('main .status')?.focus();
  }

  private async signOut() {
    try {
      await this.api('POST', '/portal/api/sign-out', {});
    } finally {
      const back = this.overview?.returnUrl;
      if (back) location.assign(back);
      else this.ended = true;
    }
  }
}
customElements.define('renew-portal', RenewPortal);
