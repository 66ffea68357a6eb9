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

const SCRIPT_URL = 'https://www.google.com/recaptcha/api.js?onload=__renewRecaptchaLoaded&render=explicit';
let loading: Promise<Grecaptcha> | undefined;

function loadScript(): Promise<Grecaptcha> {
  loading ??= new Promise((resolve, reject) => {
    if (window.grecaptcha) return resolve(window.grecaptcha);
    window.__renewRecaptchaLoaded = () => resolve(window.grecaptcha!);
    const script = document.createElement('script');
    script.src = SCRIPT_URL;
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

  constructor(private readonly container: HTMLElement, private readonly siteKey: string) {}

  async show(): Promise<void> {
    if (this.widgetId !== undefined) return;
    const api = await loadScript();
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
