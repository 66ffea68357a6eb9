import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { cardFieldsStyleFrom } from '../card-fields-style.js';
import {
  CARD_FORM_NOT_READY,
  CardFrameChannel,
  type CapturedCard,
  type CardFrameOutcome,
  type CardFrameSender,
  type CardFrameSubmission,
  type FrameValidity,
} from './card-frame-channel.js';

/** How long the frame may take to load before the shopper is told (it may be refused: frame-ancestors). */
const LOAD_DEADLINE_MS = 15_000;
/** Until the frame reports its height: about three fields, so the page does not jump much. */
const INITIAL_HEIGHT = 170;

/** The frame's accessible name and its load failure, in the page's language (the frame's own words live in card-fields-text.ts). */
const FRAME_WORDS: Record<string, { title: string; failed: string }> = {
  en: { title: 'Card details', failed: 'The card form could not be loaded. Please reload the page.' },
  fr: { title: 'Coordonnées de la carte', failed: 'Le formulaire de carte n’a pas pu être chargé. Rechargez la page.' },
  de: { title: 'Kartendaten', failed: 'Das Kartenformular konnte nicht geladen werden. Bitte laden Sie die Seite neu.' },
  es: { title: 'Datos de la tarjeta', failed: 'No se ha podido cargar el formulario de la tarjeta. Recargue la página.' },
};

/** The language of the page around an element, looking through shadow roots (`lang` on <renew-checkout> or <html>). */
function languageAround(element: Element): string {
  let node: Node | null = element;
  while (node) {
    if (node instanceof HTMLElement && node.lang) return node.lang;
    node = node.parentNode ?? (node instanceof ShadowRoot ? node.host : null);
  }
  return 'en';
}

/**
 * `<renew-hosted-card-frame>`: the card number, expiry and CVV in an iframe
 * served by the capture host (GET /hosted/card-fields), so no script of the
 * shop's page can read them. Talks to the frame through CardFrameChannel; the
 * merchant's look (font, size, colour, --renew-* properties) is handed over as
 * checked values, the language from the nearest `lang`.
 * The `ready` attribute is set once the frame has loaded and answers.
 */
export class HostedCardFrame extends LitElement implements CardFrameSender {
  static override styles = css`
    :host { display: block; }
    iframe { display: block; width: 100%; border: 0; margin: 0; padding: 0; overflow: hidden; color-scheme: light; }
    .error { color: var(--renew-error, #b3261e); font-size: 0.85rem; }
  `;
  static override properties = {
    captureUrl: { attribute: false },
    language: { attribute: false },
    disabled: { attribute: false },
    failed: { state: true },
  };
  /** The capture host's base address, as browsers reach it. */
  declare captureUrl: string;
  /** Default: the nearest `lang` of the page. */
  declare language: string | undefined;
  declare disabled: boolean;
  declare failed: boolean;

  private channel?: CardFrameChannel;
  private src?: string;
  private loadDeadline?: ReturnType<typeof setTimeout>;

  constructor() {
    super();
    this.captureUrl = '';
    this.disabled = false;
    this.failed = false;
  }

  override connectedCallback() {
    super.connectedCallback();
    const base = new URL(this.captureUrl, document.baseURI);
    this.channel = new CardFrameChannel({
      frameOrigin: base.origin,
      frameWindow: () => this.renderRoot.querySelector('iframe')?.contentWindow,
      listenOn: window as never,
      onReady: (height) => {
        clearTimeout(this.loadDeadline);
        this.failed = false;
        // For the page's styles and tests: the fields answer from now on.
        this.toggleAttribute('ready', true);
        this.setHeight(height);
        if (this.disabled) void this.channel?.configure({ disabled: true });
      },
      onResize: (height) => this.setHeight(height),
      // The page hears of it (the checkout's `renew-checkout-authentication`, README "3-D Secure"): the bank's challenge is open in the fields.
      onAuthenticating: () =>
        this.dispatchEvent(
          new CustomEvent('renew-checkout-authentication', { detail: { state: 'challenge' }, bubbles: true, composed: true }),
        ),
    });
    this.channel.start();
    // Built once per connection: a new src would reload the frame and lose what was typed.
    const computed = getComputedStyle(this);
    const query = new URLSearchParams({
      origin: location.origin,
      lang: this.language ?? languageAround(this),
      ...cardFieldsStyleFrom((p) => computed.getPropertyValue(p)),
    });
    this.src = `${base.origin}${base.pathname.replace(/\/$/, '')}/hosted/card-fields?${query}#channel=${this.channel.channel}`;
    this.loadDeadline = setTimeout(() => (this.failed = !this.channel?.ready), LOAD_DEADLINE_MS);
  }

  override disconnectedCallback() {
    super.disconnectedCallback();
    clearTimeout(this.loadDeadline);
    this.channel?.stop();
  }

  override render() {
    const words = FRAME_WORDS[(this.language ?? languageAround(this)).slice(0, 2).toLowerCase()] ?? FRAME_WORDS.en;
    return html`<iframe src=${this.src ?? 'about:blank'} title=${words?.title ?? ''} loading="eager"></iframe>
      ${this.failed ? html`<p class="error" role="alert">${words?.failed}</p>` : nothing}`;
  }

  override firstUpdated() {
    this.setHeight(INITIAL_HEIGHT);
  }

  override updated(changed: PropertyValues<this>) {
    if (changed.has('disabled') && changed.get('disabled') !== undefined) void this.channel?.configure({ disabled: this.disabled });
    if (changed.has('language') && changed.get('language') !== undefined && this.language)
      void this.channel?.configure({ lang: this.language });
  }

  validate(): Promise<FrameValidity> {
    return this.channel?.validate() ?? Promise.resolve({ valid: false, errors: {} });
  }

  submit(submission: CardFrameSubmission): Promise<CardFrameOutcome<CapturedCard>> {
    // no channel before the frame is connected: the same answer as a channel whose frame is not ready
    return (
      this.channel?.submit(submission) ??
      Promise.resolve({ ok: false, status: 0, errors: [{ Key: 'Api Error', Value: CARD_FORM_NOT_READY, Code: 'network_error' }] })
    );
  }

  private setHeight(height: number) {
    // Through the CSSOM: a style attribute would need 'unsafe-inline' in the shop's policy.
    const frame = this.renderRoot.querySelector('iframe');
    if (frame) frame.style.height = `${height}px`;
  }
}
customElements.define('renew-hosted-card-frame', HostedCardFrame);

declare global {
  interface HTMLElementTagNameMap {
    'renew-hosted-card-frame': HostedCardFrame;
  }
}
