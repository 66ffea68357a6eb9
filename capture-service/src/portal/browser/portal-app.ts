/**
 * `<renew-portal>`: the customer portal's pages (overview, update card, pay, invoices, cancel, contact
 * and address, e-mails), on the JSON routes under /portal/api of this host and the cookie's session.
 * The card is typed in the hosted card fields (`<renew-hosted-card-frame>`, this host's element, which the widget uses too):
 * a frame whose script sends it to POST /api/paymentsv2; this script never sees it.
 * Views are deep-linkable: `#card`, `#pay`, `#invoices`, `#cancel-<subscription id>`, `#change-<subscription id>`
 * (another plan), `#seats-<subscription id>` (quantities), `#details`; a link's flow opens its view.
 */
import { css, html, LitElement, nothing, type TemplateResult } from 'lit';
import '../../hosted/frame-host/hosted-card-frame.js';
import type { HostedCardFrame } from '../../hosted/frame-host/hosted-card-frame.js';
import { portalLanguageOf, portalText, say, type PortalLanguage, type PortalText } from './portal-text.js';

type View = 'overview' | 'card' | 'pay' | 'invoices' | 'details' | `cancel-${number}` | `change-${number}` | `seats-${number}`;
type ErrorBody = { Errors?: Array<{ Key: string; Value: string }> };

interface Session {
  customerId: number;
  scope: 'full' | 'cardAndPay';
  flow: string | null;
  subscriptionId: number | null;
  locale: string | null;
  returnUrl: string | null;
  csrfToken: string;
}
interface Card {
  id: number;
  brand: string | null;
  lastFour: string | null;
  expirationMonth: number | null;
  expirationYear: number | null;
  expiringSoon: boolean;
}
interface Subscription {
  id: number;
  name: string;
  planName: string;
  status: string;
  nextChargeDate: string | null;
  nextChargeAmount: number | null;
  currency: string;
  cancellation: { mode: string; effectiveDate: string | null; reason: string | null } | null;
}
interface Overview {
  customer: {
    firstName: string | null;
    lastName: string | null;
    companyName: string | null;
    primaryEmail: string | null;
    primaryPhone: string | null;
    status: string;
    currency: string;
  };
  balance: number;
  subscriptions: Subscription[];
  defaultCard: Card | null;
  scope: 'full' | 'cardAndPay';
  cancelMode: 'periodEnd' | 'now' | 'either' | 'none';
  returnUrl: string | null;
}
interface Invoice {
  id: number;
  invoiceNumber: number;
  effectiveTimestamp: string;
  status: string;
  invoiceAmount: number;
  outstandingBalance: number;
  currency: string;
}
type Interval = 'Monthly' | 'Yearly';
/** What one Active subscription may change to (GET /portal/api/plan-changes). */
interface ChangeOptions {
  subscriptionId: number;
  name: string;
  planName: string;
  interval: Interval;
  numberOfIntervals: number;
  currency: string;
  amount: number;
  targets: Array<{ planFrequencyId: number; planName: string; interval: Interval; numberOfIntervals: number; amount: number }>;
  quantities: Array<{ productCode: string; name: string; quantity: number; minQuantity: number; maxQuantity: number }>;
  pendingChange: PendingChange | null;
}
interface PendingChange {
  planName: string;
  interval: Interval;
  numberOfIntervals: number;
  quantities: Record<string, number>;
  effectiveDate: string;
}
interface ChangeLine {
  chargeType: 'Recurring' | 'SetupFee' | 'Credit';
  name: string;
  quantity: number;
  startServiceDate: string;
  endServiceDate: string;
  amount: number;
}
/** A change's preview, or the change made: the invoice now (null: nothing now, it waits for the period end), the next renewal. */
interface PlanChange {
  subscriptionId: number;
  invoice: {
    lines: ChangeLine[];
    totalDiscount: number;
    taxes: Array<{ name: string; amount: number }>;
    total: number;
    currency: string;
  } | null;
  nextRenewal: { date: string; amount: number };
  pendingChange: PendingChange | null;
}
type ChangeRequest = { planFrequencyId: number } | { quantities: Record<string, number> };
interface Preference {
  emailType: string;
  enabled: boolean | null;
}

const FLOW_VIEWS: Record<string, (session: Session) => View> = {
  paymentMethodUpdate: () => 'card',
  payInvoices: () => 'pay',
  invoices: () => 'invoices',
  subscriptionCancel: (s) => (s.subscriptionId ? `cancel-${s.subscriptionId}` : 'overview'),
};

class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class RenewPortal extends LitElement {
  static override styles = css`
    :host {
      display: block; font-family: var(--renew-font, system-ui, sans-serif); color: var(--renew-text, #1a1a1a);
      max-width: 48rem; margin: 0 auto; padding: 1rem; box-sizing: border-box; overflow-wrap: anywhere;
    }
    * { box-sizing: border-box; }
    header { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; justify-content: space-between; }
    h1 { font-size: 1.5rem; margin: 0.5rem 0; }
    h2 { font-size: 1.2rem; margin: 1.5rem 0 0.5rem; }
    nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: 0.25rem 0.5rem; padding: 0; margin: 0.5rem 0 1rem; }
    a, button.link { color: var(--renew-accent, #2f5bea); }
    nav a, header a, .actions a { display: inline-flex; align-items: center; min-height: 44px; min-width: 44px; padding: 0 0.5rem; }
    nav a[aria-current='page'] { font-weight: 700; }
    a:focus-visible, button:focus-visible, input:focus-visible, textarea:focus-visible { outline: 3px solid var(--renew-accent, #2f5bea); outline-offset: 2px; }
    button {
      font: inherit; cursor: pointer; min-height: 44px; min-width: 44px; padding: 0.5rem 1rem; border-radius: var(--renew-radius, 6px);
      border: 1px solid var(--renew-accent, #2f5bea); background: #fff; color: var(--renew-accent, #2f5bea);
    }
    button.primary { background: var(--renew-accent, #2f5bea); color: var(--renew-accent-text, #fff); }
    button:disabled { opacity: 0.6; cursor: progress; }
    form { display: grid; gap: 0.75rem; max-width: 30rem; }
    label { display: grid; gap: 0.25rem; }
    input, textarea {
      font: inherit; width: 100%; min-width: 0; min-height: 44px; padding: 0.5rem; border: 1px solid #767676;
      border-radius: var(--renew-radius, 6px); color: inherit; background: #fff;
    }
    input[type='radio'], input[type='checkbox'] { width: 1.25rem; height: 1.25rem; min-height: 0; margin: 0; accent-color: var(--renew-accent, #2f5bea); }
    label.choice { display: flex; gap: 0.6rem; align-items: center; min-height: 44px; }
    fieldset { border: 1px solid #c4c7cc; border-radius: var(--renew-radius, 6px); padding: 0.5rem 0.75rem; margin: 0; }
    .card { border: 1px solid #dadce0; border-radius: var(--renew-radius, 6px); padding: 0.75rem 1rem; margin: 0.5rem 0; }
    .card h3 { margin: 0 0 0.25rem; font-size: 1.05rem; }
    dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 0.75rem; margin: 0.25rem 0; }
    dt { color: #4a4d52; }
    dd { margin: 0; }
    .flag { display: inline-block; background: #fff4e5; color: #7a4100; border-radius: 4px; padding: 0 0.4rem; font-weight: 600; }
    .status { padding: 0.5rem 0.75rem; border-radius: var(--renew-radius, 6px); background: #e8f5e9; color: #1b5e20; }
    .error { color: var(--renew-error, #b3261e); }
    .actions { display: flex; flex-wrap: wrap; gap: 0.5rem; margin-top: 0.5rem; }
    table { border-collapse: collapse; width: 100%; }
    th, td { text-align: start; padding: 0.4rem 0.3rem; border-bottom: 1px solid #e0e0e0; vertical-align: middle; }
    td.number, th.number { text-align: end; }
    .table-wrap { max-width: 100%; overflow-x: auto; }
    .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
    @media (max-width: 30rem) { .hide-narrow { display: none; } dl { grid-template-columns: 1fr; } }
  `;

  static override properties = {
    view: { state: true },
    session: { state: true },
    overview: { state: true },
    invoices: { state: true },
    preferences: { state: true },
    notice: { state: true },
    problem: { state: true },
    busy: { state: true },
    ended: { state: true },
    payWith: { state: true },
    changeOptions: { state: true },
    changePreview: { state: true },
  };

  declare view: View;
  declare session: Session | undefined;
  declare overview: Overview | undefined;
  declare invoices: Invoice[] | undefined;
  declare preferences: Preference[] | undefined;
  declare notice: string;
  declare problem: string;
  declare busy: boolean;
  declare ended: boolean;
  declare payWith: 'default' | 'new';
  declare changeOptions: ChangeOptions[] | undefined;
  declare changePreview: PlanChange | undefined;
  /** What the preview shown was asked for: confirming sends exactly it. */
  private changeRequest: ChangeRequest | undefined;
  private language: PortalLanguage = portalLanguageOf(document.documentElement.lang);
  private text: PortalText = portalText(this.language);
  private readonly onHash = () => this.show(this.viewOfHash() ?? 'overview');

  constructor() {
    super();
    this.view = 'overview';
    this.notice = '';
    this.problem = '';
    this.busy = false;
    this.ended = false;
    this.payWith = 'default';
  }

  override connectedCallback() {
    super.connectedCallback();
    window.addEventListener('hashchange', this.onHash);
    void this.start();
  }

  override disconnectedCallback() {
    super.disconnectedCallback();
    window.removeEventListener('hashchange', this.onHash);
  }

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
  private async show(view: View) {
    this.notice = '';
    this.problem = '';
    try {
      if (!this.overview || view === 'overview' || view === 'pay') this.overview = await this.api<Overview>('GET', '/portal/api/overview');
      if (view === 'invoices') this.invoices = await this.api<Invoice[]>('GET', '/portal/api/invoices');
      const changing = /^(change|seats)-/.test(view);
      if (this.overview.scope === 'full' && (view === 'overview' || changing))
        this.changeOptions = await this.api<ChangeOptions[]>('GET', '/portal/api/plan-changes');
      if (changing) {
        this.changePreview = undefined;
        this.changeRequest = undefined;
      }
      if (view === 'details' && this.overview.scope === 'full')
        this.preferences = await this.api<Preference[]>('GET', '/portal/api/email-preferences');
      this.payWith = this.overview.defaultCard ? 'default' : 'new';
      this.view = view;
      if (location.hash.slice(1) !== view) history.replaceState(null, '', `${location.pathname}${location.search}#${view}`);
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>('main h2')?.focus();
    } catch (error) {
      this.fail(error);
    }
  }

  private async api<T>(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<T> {
    const response = await fetch(path, {
      method,
      credentials: 'same-origin',
      cache: 'no-store',
      headers: {
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(method !== 'GET' && this.session ? { 'x-portal-csrf': this.session.csrfToken } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (response.status === 204) return undefined as T;
    const data = (await response.json().catch(() => ({}))) as T & ErrorBody;
    if (!response.ok) throw new ApiFailure(response.status, data.Errors?.map((e) => e.Value).join('; ') || String(response.status));
    return data;
  }

  private fail(error: unknown) {
    if (error instanceof ApiFailure && error.status === 401) this.ended = true;
    else this.problem = say(this.text.error, error instanceof Error ? error.message : String(error));
  }

  private money(amount: number, currency: string): string {
    return new Intl.NumberFormat(this.language, { style: 'currency', currency }).format(amount);
  }

  private date(value: string): string {
    return new Intl.DateTimeFormat(this.language, { dateStyle: 'long', timeZone: 'UTC' }).format(
      new Date(value.length === 10 ? `${value}T00:00:00Z` : value),
    );
  }

  /** "monthly", "every 3 months"… */
  private frequency(interval: Interval, count: number): string {
    const t = this.text;
    if (count === 1) return interval === 'Monthly' ? t.monthly : t.yearly;
    return say(interval === 'Monthly' ? t.everyMonths : t.everyYears, count);
  }

  private statusWord(status: string): string {
    const key = `status${status}` as keyof PortalText;
    return typeof this.text[key] === 'string' ? (this.text[key] as string) : status;
  }

  override render() {
    const t = this.text;
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
      <header>
        <h1>${t.title}</h1>
        <div class="actions">
          ${back ? html`<a href=${back} rel="noopener">${t.back}</a>` : nothing}
          <button type="button" @click=${this.signOut}>${t.signOut}</button>
        </div>
      </header>
      <nav aria-label=${t.nav}>
        <ul>${links.map(([view, label]) => html`<li><a href="#${view}" aria-current=${this.view === view ? 'page' : 'false'}>${label}</a></li>`)}</ul>
      </nav>
      <main>
        ${this.notice ? html`<p class="status" role="status" tabindex="-1">${this.notice}</p>` : nothing}
        ${this.problem ? html`<p class="error" role="alert">${this.problem}</p>` : nothing}
        ${this.renderView()}
      </main>
    `;
  }

  private renderView(): TemplateResult {
    switch (this.view) {
      case 'card':
        return this.renderCard();
      case 'pay':
        return this.renderPay();
      case 'invoices':
        return this.renderInvoices();
      case 'details':
        return this.renderDetails();
      case 'overview':
        return this.renderOverview();
      default: {
        const [kind, id] = this.view.split('-') as [string, string];
        if (kind === 'change' || kind === 'seats') return this.renderChange(Number(id), kind);
        return this.renderCancel(Number(id));
      }
    }
  }

  private cardLine(card: Card): string {
    const expiry =
      card.expirationMonth && card.expirationYear
        ? `${String(card.expirationMonth).padStart(2, '0')}/${String(card.expirationYear).slice(-2)}`
        : '—';
    return say(this.text.cardEnding, card.brand ?? this.text.card, card.lastFour ?? '••••', expiry);
  }

  private renderOverview() {
    const t = this.text;
    const o = this.overview!;
    const full = o.scope === 'full';
    return html`
      <h2 tabindex="-1">${t.overview}</h2>
      <section aria-labelledby="balance-heading">
        <h3 id="balance-heading">${t.balance}</h3>
        <p>${o.balance > 0 ? say(t.balanceOwed, this.money(o.balance, o.customer.currency)) : t.balanceClear}</p>
        ${o.balance > 0 ? html`<p><a href="#pay">${t.payInvoices}</a></p>` : nothing}
      </section>
      <section aria-labelledby="card-heading">
        <h3 id="card-heading">${t.card}</h3>
        <p>${o.defaultCard ? this.cardLine(o.defaultCard) : t.noCard} ${o.defaultCard?.expiringSoon ? html`<span class="flag">${t.expiresSoon}</span>` : nothing}</p>
        <p><a href="#card">${t.updateCard}</a></p>
      </section>
      <section aria-labelledby="subscriptions-heading">
        <h3 id="subscriptions-heading">${t.subscriptions}</h3>
        ${o.subscriptions.length === 0 ? html`<p>${t.noSubscriptions}</p>` : nothing}
        ${o.subscriptions.map((s) => {
          const change = full ? this.changeOptions?.find((c) => c.subscriptionId === s.id) : undefined;
          return html`<div class="card">
            <h4>${s.name}</h4>
            <dl>
              <dt>${t.plan}</dt><dd>${s.planName}</dd>
              <dt>${t.status}</dt><dd>${this.statusWord(s.status)}</dd>
              <dt>${t.nextCharge}</dt>
              <dd>${s.cancellation?.effectiveDate ? say(t.endsOn, this.date(s.cancellation.effectiveDate)) : s.nextChargeDate && s.nextChargeAmount !== null ? say(t.nextChargeOn, this.money(s.nextChargeAmount, s.currency), this.date(s.nextChargeDate)) : t.none}</dd>
            </dl>
            ${change?.pendingChange ? html`<p id="pending-${s.id}">${say(t.scheduledChange, this.date(change.pendingChange.effectiveDate), this.describePending(change, change.pendingChange))}</p>` : nothing}
            ${
              full
                ? html`<div class="actions">
                  ${change && change.targets.length > 0 ? html`<a href="#change-${s.id}" aria-label=${`${t.changePlan}: ${s.name}`}>${t.changePlan}</a>` : nothing}
                  ${change && change.quantities.length > 0 ? html`<a href="#seats-${s.id}" aria-label=${`${t.seats}: ${s.name}`}>${t.seats}</a>` : nothing}
                  ${
                    change?.pendingChange
                      ? html`<button type="button" ?disabled=${this.busy} aria-describedby="pending-${s.id}" @click=${() => void this.withdrawChange(s.id)}>${t.withdraw}</button>`
                      : nothing
                  }
                  ${
                    s.cancellation
                      ? html`<button type="button" ?disabled=${this.busy} @click=${() => this.uncancel(s)}>${t.uncancel}</button>`
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

  private renderCardForm(submitLabel: string, onSubmit: (event: Event) => void) {
    const t = this.text;
    const c = this.overview!.customer;
    return html`
      <p>${t.cardIntro}</p>
      <form @submit=${onSubmit}>
        <label>${t.firstName}<input name="firstName" autocomplete="cc-given-name" required .value=${c.firstName ?? ''} /></label>
        <label>${t.lastName}<input name="lastName" autocomplete="cc-family-name" required .value=${c.lastName ?? ''} /></label>
        <renew-hosted-card-frame .captureUrl=${location.origin} .language=${this.language} .disabled=${this.busy}></renew-hosted-card-frame>
        <div class="actions"><button class="primary" type="submit" ?disabled=${this.busy}>${submitLabel}</button></div>
      </form>
    `;
  }

  private renderCard() {
    const t = this.text;
    const card = this.overview!.defaultCard;
    return html`
      <h2 tabindex="-1">${t.cardTitle}</h2>
      ${card ? html`<p>${this.cardLine(card)} ${card.expiringSoon ? html`<span class="flag">${t.expiresSoon}</span>` : nothing}</p>` : nothing}
      ${this.renderCardForm(t.saveCard, (event) => void this.saveCard(event))}
    `;
  }

  /** The card through the frame: a capture token from the session, then the frame sends the card itself. */
  private async captureNewCard(form: HTMLFormElement): Promise<number | undefined> {
    const frame = form.querySelector<HostedCardFrame>('renew-hosted-card-frame')!;
    const validity = await frame.validate();
    if (!validity.valid) return undefined;
    const fields = new FormData(form);
    const minted = await this.api<{ token: string; riskToken: string; clientIp: string }>('POST', '/portal/api/card-capture-token', {});
    const email = (this.overview!.customer.primaryEmail ?? '').split(/[;,]/)[0]!.trim();
    const result = await frame.submit({
      publicApiKey: '',
      customerId: this.session!.customerId,
      captureToken: minted.token,
      recaptcha: '',
      firstName: String(fields.get('firstName') ?? '').trim(),
      lastName: String(fields.get('lastName') ?? '').trim(),
      riskToken: minted.riskToken,
      clientIp: minted.clientIp,
      email,
      makeDefault: true,
      collectionAmount: null,
    });
    if (!result.ok) throw new ApiFailure(result.status, result.errors.map((e) => e.Value).join('; '));
    return result.value.id;
  }

  private async saveCard(event: Event) {
    event.preventDefault();
    if (this.busy) return;
    this.busy = true;
    this.problem = '';
    try {
      const id = await this.captureNewCard(event.target as HTMLFormElement);
      if (id === undefined) return;
      this.overview = await this.api<Overview>('GET', '/portal/api/overview');
      this.notice = this.text.cardSaved;
    } catch (error) {
      this.fail(error);
    } finally {
      this.busy = false;
    }
  }

  private renderPay() {
    const t = this.text;
    const o = this.overview!;
    if (o.balance <= 0) return html`<h2 tabindex="-1">${t.payTitle}</h2><p>${t.nothingDue}</p>`;
    const amount = this.money(o.balance, o.customer.currency);
    const choice = (value: 'default' | 'new', label: string) =>
      html`<label class="choice"><input type="radio" name="payWith" .value=${value} .checked=${this.payWith === value} @change=${() => (this.payWith = value)} />${label}</label>`;
    return html`
      <h2 tabindex="-1">${t.payTitle}</h2>
      <p>${say(t.payAmount, amount)}</p>
      ${
        o.defaultCard
          ? html`<fieldset><legend>${t.payWith}</legend>${choice('default', say(t.payDefault, this.cardLine(o.defaultCard)))}${choice('new', t.payNewCard)}</fieldset>`
          : nothing
      }
      ${
        this.payWith === 'new'
          ? this.renderCardForm(say(t.payNow, amount), (event) => void this.pay(event))
          : html`<form @submit=${(event: Event) => void this.pay(event)}><div class="actions"><button class="primary" type="submit" ?disabled=${this.busy}>${say(t.payNow, amount)}</button></div></form>`
      }
    `;
  }

  private async pay(event: Event) {
    event.preventDefault();
    if (this.busy) return;
    this.busy = true;
    this.problem = '';
    try {
      let paymentMethodId: number | undefined;
      if (this.payWith === 'new') {
        paymentMethodId = await this.captureNewCard(event.target as HTMLFormElement);
        if (paymentMethodId === undefined) return;
      }
      // One key per attempt: a retried request (a lost answer) never pays twice.
      const payment = await this.api<{ amount: number; currency?: string }>(
        'POST',
        '/portal/api/pay',
        paymentMethodId ? { paymentMethodId } : {},
        { 'idempotency-key': crypto.randomUUID() },
      );
      const currency = this.overview!.customer.currency;
      this.overview = await this.api<Overview>('GET', '/portal/api/overview');
      this.payWith = 'default';
      this.notice = say(this.text.paid, this.money(payment.amount, currency));
    } catch (error) {
      this.fail(error);
    } finally {
      this.busy = false;
    }
  }

  private renderInvoices() {
    const t = this.text;
    const list = this.invoices ?? [];
    return html`
      <h2 tabindex="-1">${t.invoicesTitle}</h2>
      ${
        list.length === 0
          ? html`<p>${t.noInvoices}</p>`
          : html`<div class="table-wrap"><table>
            <thead><tr><th scope="col">${t.invoiceNumber}</th><th scope="col" class="hide-narrow">${t.date}</th><th scope="col">${t.status}</th><th scope="col" class="number">${t.amount}</th><th scope="col"><span class="visually-hidden">${t.download}</span></th></tr></thead>
            <tbody>
              ${list.map(
                (i) => html`<tr>
                  <td>${i.invoiceNumber}</td>
                  <td class="hide-narrow">${this.date(i.effectiveTimestamp.slice(0, 10))}</td>
                  <td>${this.statusWord(i.status)}</td>
                  <td class="number">${this.money(i.invoiceAmount, i.currency)}</td>
                  <td><a href="/portal/api/invoices/${i.id}/pdf" download aria-label=${say(t.downloadInvoice, i.invoiceNumber)}>${t.download}</a></td>
                </tr>`,
              )}
            </tbody>
          </table></div>`
      }
    `;
  }

  private renderCancel(subscriptionId: number) {
    const t = this.text;
    const o = this.overview!;
    const subscription = o.subscriptions.find((s) => s.id === subscriptionId);
    if (o.scope !== 'full') return html`<h2 tabindex="-1">${t.cancel}</h2><p>${t.signInAgain}</p>`;
    if (!subscription || o.cancelMode === 'none') return this.renderOverview();
    const modes = o.cancelMode === 'either' ? (['periodEnd', 'now'] as const) : ([o.cancelMode] as const);
    const label = (mode: 'periodEnd' | 'now') =>
      mode === 'now' ? t.cancelNow : say(t.cancelPeriodEnd, subscription.nextChargeDate ? this.date(subscription.nextChargeDate) : '—');
    return html`
      <h2 tabindex="-1">${say(t.cancelTitle, subscription.name)}</h2>
      <form @submit=${(event: Event) => void this.cancel(event, subscription)}>
        <fieldset>
          <legend>${t.cancelWhen}</legend>
          ${modes.map((mode, index) => html`<label class="choice"><input type="radio" name="mode" value=${mode} ?checked=${index === 0} />${label(mode)}</label>`)}
        </fieldset>
        <label>${t.reason}<textarea name="reason" maxlength="500" rows="3"></textarea></label>
        <div class="actions">
          <button class="primary" type="submit" ?disabled=${this.busy}>${t.confirmCancel}</button>
          <a href="#overview">${t.overview}</a>
        </div>
      </form>
    `;
  }

  private async cancel(event: Event, subscription: Subscription) {
    event.preventDefault();
    if (this.busy) return;
    const fields = new FormData(event.target as HTMLFormElement);
    const mode = String(fields.get('mode') ?? 'periodEnd');
    this.busy = true;
    this.problem = '';
    try {
      this.overview = await this.api<Overview>('POST', `/portal/api/subscriptions/${subscription.id}/cancel`, {
        mode,
        reason: String(fields.get('reason') ?? '') || null,
      });
      const after = this.overview.subscriptions.find((s) => s.id === subscription.id);
      await this.show('overview');
      this.notice =
        mode === 'now' || !after?.cancellation?.effectiveDate
          ? this.text.cancelledNow
          : say(this.text.cancelled, this.date(after.cancellation.effectiveDate));
    } catch (error) {
      this.fail(error);
    } finally {
      this.busy = false;
    }
  }

  private async uncancel(subscription: Subscription) {
    if (this.busy) return;
    this.busy = true;
    this.problem = '';
    try {
      this.overview = await this.api<Overview>('POST', `/portal/api/subscriptions/${subscription.id}/uncancel`, {});
      this.notice = this.text.kept;
    } catch (error) {
      this.fail(error);
    } finally {
      this.busy = false;
    }
  }

  /** The scheduled change in words: the plan and frequency, and the quantities the customer may choose. */
  private describePending(options: ChangeOptions, pending: PendingChange): string {
    const parts = [`${pending.planName}, ${this.frequency(pending.interval, pending.numberOfIntervals)}`];
    for (const q of options.quantities)
      if (pending.quantities[q.productCode] !== undefined) parts.push(`${q.name}: ${pending.quantities[q.productCode]}`);
    return parts.join(', ');
  }

  /** "Change plan" (another plan frequency the catalogue allows) or "Seats" (quantities within bounds): choose, preview, confirm. */
  private renderChange(subscriptionId: number, kind: 'change' | 'seats') {
    const t = this.text;
    const o = this.overview!;
    if (o.scope !== 'full') return html`<h2 tabindex="-1">${kind === 'change' ? t.changePlan : t.seats}</h2><p>${t.signInAgain}</p>`;
    const options = this.changeOptions?.find((c) => c.subscriptionId === subscriptionId);
    if (!options || (kind === 'change' ? options.targets : options.quantities).length === 0) return this.renderOverview();
    const price = (planName: string, interval: Interval, count: number, amount: number) =>
      say(t.planOption, planName, this.frequency(interval, count), this.money(amount, options.currency));
    const fields =
      kind === 'change'
        ? html`<fieldset><legend>${t.chooseTarget}</legend>${options.targets.map(
            (target, index) =>
              html`<label class="choice"><input type="radio" name="planFrequencyId" .value=${String(target.planFrequencyId)} ?checked=${index === 0} required />${price(target.planName, target.interval, target.numberOfIntervals, target.amount)}</label>`,
          )}</fieldset>`
        : options.quantities.map(
            (q) =>
              html`<label>${say(t.quantityLabel, q.name, q.minQuantity, q.maxQuantity)}<input type="number" name=${q.productCode} inputmode="numeric" min=${q.minQuantity} max=${q.maxQuantity} step="1" required .value=${String(q.quantity)} /></label>`,
          );
    const preview = this.changePreview?.subscriptionId === subscriptionId ? this.changePreview : undefined;
    return html`
      <h2 tabindex="-1">${say(kind === 'change' ? t.changePlanTitle : t.seatsTitle, options.name)}</h2>
      <p>${say(t.currentPlan, price(options.planName, options.interval, options.numberOfIntervals, options.amount))}</p>
      <form @submit=${(event: Event) => void this.previewChange(event, options, kind)} @input=${this.forgetPreview} @change=${this.forgetPreview}>
        ${fields}
        <div class="actions">
          <button type="submit" ?disabled=${this.busy}>${t.seePreview}</button>
          <a href="#overview">${t.overview}</a>
        </div>
      </form>
      ${preview ? this.renderChangePreview(preview, options.currency) : nothing}
    `;
  }

  /** A choice changed after a preview: that preview no longer says what confirming would do. */
  private readonly forgetPreview = () => {
    this.changePreview = undefined;
    this.changeRequest = undefined;
  };

  private lineName(line: ChangeLine): string {
    const t = this.text;
    const template = line.chargeType === 'Credit' ? t.lineCredit : line.chargeType === 'SetupFee' ? t.lineSetupFee : t.lineCharge;
    return say(template, line.name, line.quantity);
  }

  private renderChangePreview(change: PlanChange, currency: string) {
    const t = this.text;
    const invoice = change.invoice;
    const row = (label: string, amount: number, money: string) =>
      html`<tr><td>${label}</td><td class="hide-narrow"></td><td class="number">${this.money(amount, money)}</td></tr>`;
    return html`<section class="card" aria-labelledby="preview-heading">
      <h3 id="preview-heading" tabindex="-1">${t.previewTitle}</h3>
      ${
        invoice
          ? html`<div class="table-wrap"><table>
            <thead><tr><th scope="col">${t.item}</th><th scope="col" class="hide-narrow">${t.period}</th><th scope="col" class="number">${t.amount}</th></tr></thead>
            <tbody>
              ${invoice.lines.map(
                (line) =>
                  html`<tr><td>${this.lineName(line)}</td><td class="hide-narrow">${say(t.linePeriod, this.date(line.startServiceDate), this.date(line.endServiceDate))}</td><td class="number">${this.money(line.amount, invoice.currency)}</td></tr>`,
              )}
              ${invoice.totalDiscount ? row(t.discount, -Math.abs(invoice.totalDiscount), invoice.currency) : nothing}
              ${invoice.taxes.map((tax) => row(tax.name, tax.amount, invoice.currency))}
            </tbody>
            <tfoot><tr><th scope="row">${t.totalNow}</th><td class="hide-narrow"></td><td class="number"><strong>${this.money(invoice.total, invoice.currency)}</strong></td></tr></tfoot>
          </table></div>`
          : html`<p>${say(t.nothingNow, this.date(change.pendingChange?.effectiveDate ?? change.nextRenewal.date))}</p>`
      }
      <p>${say(t.nextRenewal, this.money(change.nextRenewal.amount, currency), this.date(change.nextRenewal.date))}</p>
      <div class="actions">
        <button class="primary" type="button" ?disabled=${this.busy} @click=${() => void this.confirmChange(change.subscriptionId)}>${t.confirmChange}</button>
      </div>
    </section>`;
  }

  private async previewChange(event: Event, options: ChangeOptions, kind: 'change' | 'seats') {
    event.preventDefault();
    if (this.busy) return;
    const fields = new FormData(event.target as HTMLFormElement);
    const request: ChangeRequest =
      kind === 'change'
        ? { planFrequencyId: Number(fields.get('planFrequencyId')) }
        : { quantities: Object.fromEntries(options.quantities.map((q) => [q.productCode, Number(fields.get(q.productCode))])) };
    this.busy = true;
    this.problem = '';
    this.notice = '';
    try {
      this.changePreview = await this.api<PlanChange>(
        'POST',
        `/portal/api/subscriptions/${options.subscriptionId}/changes/preview`,
        request,
      );
      this.changeRequest = request;
      this.busy = false;
      // The preview takes the focus, so a screen reader reads what the change costs before the confirmation.
      await this.updateComplete;
      this.renderRoot.querySelector<HTMLElement>('#preview-heading')?.focus();
    } catch (error) {
      this.fail(error);
    } finally {
      this.busy = false;
    }
  }

  private async confirmChange(subscriptionId: number) {
    const request = this.changeRequest;
    if (this.busy || !request) return;
    const t = this.text;
    this.busy = true;
    this.problem = '';
    try {
      const made = await this.api<PlanChange>('POST', `/portal/api/subscriptions/${subscriptionId}/changes`, request);
      this.changePreview = undefined;
      this.changeRequest = undefined;
      await this.show('overview');
      this.notice = made.invoice
        ? say(t.changedNow, this.money(made.invoice.total, made.invoice.currency))
        : say(t.changeScheduled, this.date(made.pendingChange?.effectiveDate ?? made.nextRenewal.date));
      await this.focusNotice();
    } catch (error) {
      this.fail(error);
    } finally {
      this.busy = false;
    }
  }

  private async withdrawChange(subscriptionId: number) {
    if (this.busy) return;
    this.busy = true;
    this.problem = '';
    try {
      this.changeOptions = await this.api<ChangeOptions[]>('DELETE', `/portal/api/subscriptions/${subscriptionId}/changes/pending`);
      this.notice = this.text.changeWithdrawn;
      // The button pressed is gone: the confirmation takes the focus.
      await this.focusNotice();
    } catch (error) {
      this.fail(error);
    } finally {
      this.busy = false;
    }
  }

  private async focusNotice() {
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLElement>('main .status')?.focus();
  }

  private renderDetails() {
    const t = this.text;
    const c = this.overview!.customer;
    const field = (name: string, label: string, value: string | null, type = 'text', autocomplete = 'off') =>
      html`<label>${label}<input name=${name} type=${type} autocomplete=${autocomplete} .value=${value ?? ''} /></label>`;
    const names = new Map(this.text.emailTypes.split('|').map((pair) => pair.split(':') as [string, string]));
    return html`
      <h2 tabindex="-1">${t.details}</h2>
      <form aria-labelledby="contact-heading" @submit=${(event: Event) => void this.saveForm(event, 'PUT', '/portal/api/contact')}>
        <h3 id="contact-heading">${t.contactTitle}</h3>
        ${field('firstName', t.firstNameContact, c.firstName, 'text', 'given-name')}
        ${field('lastName', t.lastNameContact, c.lastName, 'text', 'family-name')}
        ${field('companyName', t.company, c.companyName, 'text', 'organization')}
        ${field('primaryEmail', t.email, c.primaryEmail, 'email', 'email')}
        ${field('primaryPhone', t.phone, c.primaryPhone, 'tel', 'tel')}
        <div class="actions"><button class="primary" type="submit" ?disabled=${this.busy}>${t.save}</button></div>
      </form>
      <form aria-labelledby="address-heading" @submit=${(event: Event) => void this.saveForm(event, 'PUT', '/portal/api/billing-address')}>
        <h3 id="address-heading">${t.addressTitle}</h3>
        ${field('line1', t.line1, null, 'text', 'address-line1')}
        ${field('line2', t.line2, null, 'text', 'address-line2')}
        ${field('city', t.city, null, 'text', 'address-level2')}
        ${field('postalZip', t.postalZip, null, 'text', 'postal-code')}
        <div class="actions"><button class="primary" type="submit" ?disabled=${this.busy}>${t.save}</button></div>
      </form>
      ${
        this.preferences && this.preferences.length > 0
          ? html`<form aria-labelledby="preferences-heading" @submit=${(event: Event) => void this.savePreferences(event)}>
            <h3 id="preferences-heading">${t.preferencesTitle}</h3>
            ${this.preferences.map(
              (p) =>
                html`<label class="choice"><input type="checkbox" name=${p.emailType} .checked=${p.enabled !== false} />${names.get(p.emailType) ?? p.emailType}</label>`,
            )}
            <div class="actions"><button class="primary" type="submit" ?disabled=${this.busy}>${t.save}</button></div>
          </form>`
          : nothing
      }
    `;
  }

  private async saveForm(event: Event, method: 'PUT', path: string) {
    event.preventDefault();
    if (this.busy) return;
    // Empty inputs are left out: a blank field keeps what is stored.
    const body = Object.fromEntries(
      [...new FormData(event.target as HTMLFormElement)].map(([k, v]) => [k, String(v).trim()]).filter(([, v]) => v !== ''),
    );
    await this.write(() => this.api(method, path, body));
  }

  private async savePreferences(event: Event) {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const preferences = (this.preferences ?? []).map((p) => ({
      emailType: p.emailType,
      enabled: form.querySelector<HTMLInputElement>(`input[name="${p.emailType}"]`)?.checked ?? true,
    }));
    await this.write(
      async () => (this.preferences = await this.api<Preference[]>('PUT', '/portal/api/email-preferences', { preferences })),
    );
  }

  private async write(action: () => Promise<unknown>) {
    this.busy = true;
    this.problem = '';
    this.notice = '';
    try {
      await action();
      this.overview = await this.api<Overview>('GET', '/portal/api/overview');
      this.notice = this.text.saved;
    } catch (error) {
      this.fail(error);
    } finally {
      this.busy = false;
    }
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
