/**
 * The CAPTCHA the card form shows once a card of the customer was declined (the server asks for it:
 * `captchaRequired`): Google's reCAPTCHA v2 with the site key the portal was given, or, in dev mode, a
 * checkbox whose token the dev verifier accepts. It lives in the form's light DOM (reCAPTCHA cannot work
 * in a shadow root), rendered once and reset after every attempt (an answer works once).
 */
interface Grecaptcha {
  render(container: HTMLElement, parameters: { sitekey: string }): number;
  getResponse(widgetId: number): string;
  reset(widgetId: number): void;
}
declare global {
  interface Window {
    grecaptcha?: Grecaptcha;
    __renewPortalRecaptchaLoaded?: () => void;
  }
}

export interface PortalCaptchaSettings {
  mode: 'dev' | 'google';
  siteKey?: string;
  scriptUrl?: string;
}

const GOOGLE_SCRIPT = 'https://www.google.com/recaptcha/api.js';
/** Google's widget, once rendered (one per page). */
let google: { id: number } | undefined;
let googleStarted = false;
let loading: Promise<Grecaptcha> | undefined;

function loadGoogle(scriptUrl: string): Promise<Grecaptcha> {
  loading ??= new Promise((resolve, reject) => {
    if (window.grecaptcha) return resolve(window.grecaptcha);
    window.__renewPortalRecaptchaLoaded = () => (window.grecaptcha ? resolve(window.grecaptcha) : reject(new Error('reCAPTCHA')));
    const script = document.createElement('script');
    const url = new URL(scriptUrl, document.baseURI);
    url.searchParams.set('onload', '__renewPortalRecaptchaLoaded');
    url.searchParams.set('render', 'explicit');
    script.src = url.toString();
    script.async = true;
    script.onerror = () => reject(new Error('reCAPTCHA could not be loaded'));
    document.head.append(script);
  });
  return loading;
}

/** Shows the CAPTCHA in `box` (its `[data-captcha-widget]` holds the widget), rendering it the first time. */
export async function showCaptcha(box: HTMLElement, settings: PortalCaptchaSettings, devLabel: string): Promise<void> {
  box.hidden = false;
  const slot = box.querySelector<HTMLElement>('[data-captcha-widget]');
  if (!slot || slot.dataset.rendered) return;
  slot.dataset.rendered = 'true';
  if (settings.mode === 'dev') {
    const label = document.createElement('label');
    label.className = 'choice';
    const check = document.createElement('input');
    check.type = 'checkbox';
    check.name = 'captcha-dev';
    label.append(check, ` ${devLabel}`);
    slot.append(label);
    return;
  }
  if (!settings.siteKey) return;
  // Google's widget cannot work in a shadow root: it is rendered once, in the portal element's light DOM, and
  // shown through the form's slot (every render of the form has one).
  if (googleStarted) return;
  googleStarted = true;
  const host = box.getRootNode() instanceof ShadowRoot ? ((box.getRootNode() as ShadowRoot).host as HTMLElement) : slot;
  const element = document.createElement('div');
  element.slot = 'captcha';
  host.append(element);
  const api = await loadGoogle(settings.scriptUrl ?? GOOGLE_SCRIPT);
  google = { id: api.render(element, { sitekey: settings.siteKey }) };
}

/** The customer's answer ('' when none): the dev checkbox's token, or reCAPTCHA's response. */
export function captchaAnswer(box: HTMLElement): string {
  const slot = box.querySelector<HTMLElement>('[data-captcha-widget]');
  if (!slot || box.hidden) return '';
  const check = slot.querySelector<HTMLInputElement>('input[name="captcha-dev"]');
  if (check) return check.checked ? `dev-${crypto.randomUUID()}` : '';
  return google ? (window.grecaptcha?.getResponse(google.id) ?? '') : '';
}

/** After an attempt: an answer works once, so the customer solves it again for the next. */
export function resetCaptcha(box: HTMLElement): void {
  const slot = box.querySelector<HTMLElement>('[data-captcha-widget]');
  const check = slot?.querySelector<HTMLInputElement>('input[name="captcha-dev"]');
  if (check) check.checked = false;
  if (google && !check) window.grecaptcha?.reset(google.id);
}
