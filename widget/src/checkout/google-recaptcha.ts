/** The parts of Google's reCAPTCHA v2 JavaScript API the checkout uses (explicit rendering). */
interface Grecaptcha {
  render(container: HTMLElement, parameters: { sitekey: string }): number;
  getResponse(widgetId: number): string;
  reset(widgetId: number): void;
}
declare global {
  interface Window {
    grecaptcha?: Grecaptcha;
    __renewRecaptchaLoaded?: () => void;
  }
}

export const GOOGLE_RECAPTCHA_SCRIPT = 'https://www.google.com/recaptcha/api.js';
let loading: Promise<Grecaptcha> | undefined;

function loadScript(scriptUrl: string): Promise<Grecaptcha> {
  loading ??= new Promise((resolve, reject) => {
    if (window.grecaptcha) return resolve(window.grecaptcha);
    window.__renewRecaptchaLoaded = () =>
      window.grecaptcha ? resolve(window.grecaptcha) : reject(new Error('reCAPTCHA called back without grecaptcha'));
    const script = document.createElement('script');
    const url = new URL(scriptUrl, document.baseURI);
    url.searchParams.set('onload', '__renewRecaptchaLoaded');
    url.searchParams.set('render', 'explicit');
    script.src = url.toString();
    script.async = true;
    script.onerror = () => reject(new Error('reCAPTCHA could not be loaded'));
    document.head.append(script);
  });
  return loading;
}

/**
 * reCAPTCHA v2 rendered into a light-DOM element of the checkout (Google's widget
 * cannot work inside a shadow root); the card step shows it through a slot.
 */
export class GoogleRecaptcha {
  private widgetId?: number;

  constructor(
    private readonly container: HTMLElement,
    private readonly siteKey: string,
    private readonly scriptUrl: string = GOOGLE_RECAPTCHA_SCRIPT,
  ) {}

  async show(): Promise<void> {
    if (this.widgetId !== undefined) return;
    const api = await loadScript(this.scriptUrl);
    this.widgetId = api.render(this.container, { sitekey: this.siteKey });
  }

  token(): string {
    return this.widgetId === undefined ? '' : (window.grecaptcha?.getResponse(this.widgetId) ?? '');
  }

  /** Tokens work once: after every attempt the shopper solves it again. */
  reset(): void {
    if (this.widgetId !== undefined) window.grecaptcha?.reset(this.widgetId);
  }
}
