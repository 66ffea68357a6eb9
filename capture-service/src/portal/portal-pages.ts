import type { MerchantBranding } from '@renew/billing-service/catalog';

/**
 * The portal's server-written pages: the one a link opens on (it spends the link only when posted,
 * so a mail scanner fetching the link leaves it working) and the sign-in page. Their words in the
 * four portal languages; their scripts are this host's own files (the policy allows no inline script).
 * Each is headed by the merchant (logo and name) and takes its colour as the accent (portalBranding).
 */

type Lang = 'en' | 'fr' | 'de' | 'es';

const TEXT: Record<
  Lang,
  {
    openTitle: string;
    openButton: string;
    openHint: string;
    appTitle: string;
    signInTitle: string;
    email: string;
    send: string;
    sent: string;
    nothingToPay: string;
  }
> = {
  en: {
    openTitle: 'Opening your account…',
    openButton: 'Continue to your account',
    openHint: 'If nothing happens, press the button.',
    appTitle: 'Your account',
    signInTitle: 'Sign in to your account',
    email: 'E-mail address',
    send: 'Send me a sign-in link',
    sent: 'If this address belongs to a customer, a sign-in link is on its way. It works once, within 15 minutes.',
    nothingToPay: 'Nothing left to pay: your invoices are settled.',
  },
  fr: {
    openTitle: 'Ouverture de votre compte…',
    openButton: 'Accéder à votre compte',
    openHint: 'Si rien ne se passe, appuyez sur le bouton.',
    appTitle: 'Votre compte',
    signInTitle: 'Connexion à votre compte',
    email: 'Adresse e-mail',
    send: 'M’envoyer un lien de connexion',
    sent: 'Si cette adresse appartient à un client, un lien de connexion est en route. Il sert une fois, dans les 15 minutes.',
    nothingToPay: 'Plus rien à payer : vos factures sont réglées.',
  },
  de: {
    openTitle: 'Ihr Konto wird geöffnet…',
    openButton: 'Weiter zu Ihrem Konto',
    openHint: 'Falls nichts passiert, drücken Sie die Schaltfläche.',
    appTitle: 'Ihr Konto',
    signInTitle: 'Bei Ihrem Konto anmelden',
    email: 'E-Mail-Adresse',
    send: 'Anmeldelink senden',
    sent: 'Wenn diese Adresse zu einem Kunden gehört, ist ein Anmeldelink unterwegs. Er gilt einmal, innerhalb von 15 Minuten.',
    nothingToPay: 'Nichts mehr zu zahlen: Ihre Rechnungen sind beglichen.',
  },
  es: {
    openTitle: 'Abriendo su cuenta…',
    openButton: 'Continuar a su cuenta',
    openHint: 'Si no ocurre nada, pulse el botón.',
    appTitle: 'Su cuenta',
    signInTitle: 'Acceder a su cuenta',
    email: 'Correo electrónico',
    send: 'Enviarme un enlace de acceso',
    sent: 'Si esta dirección pertenece a un cliente, le enviamos un enlace de acceso. Sirve una vez, durante 15 minutos.',
    nothingToPay: 'Nada pendiente de pago: sus facturas están saldadas.',
  },
};

export function portalLanguage(lang: string | undefined): Lang {
  const primary = (lang ?? '').slice(0, 2).toLowerCase();
  return primary === 'fr' || primary === 'de' || primary === 'es' ? primary : 'en';
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/** The merchant as the portal's pages show it: the catalogue's name and logo, its colour made readable on white. */
export interface PortalBranding {
  name: string;
  logoUrl: string | null;
  /** `--renew-accent`: links and outline buttons on white, the background of the main buttons. */
  accent: string;
  /** `--renew-accent-text`: the main buttons' text on the accent. */
  accentText: string;
}

/** WCAG relative luminance of #rrggbb. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** The contrast ratio of #rrggbb with white. */
export function contrastWithWhite(hex: string): number {
  return 1.05 / (luminance(hex) + 0.05);
}

/** WCAG AA for normal text: the accent colours text on white, and white text on the accent. */
export const ACCENT_MIN_CONTRAST = 4.5;

/**
 * The accent from the catalogue's colour: the colour itself when it has 4.5:1 contrast with white;
 * else the same hue darkened (each channel scaled down by 5 % steps) until it has. White then reads on
 * it too, so the main buttons' text is white.
 */
export function portalBranding(branding: MerchantBranding): PortalBranding {
  let accent = branding.color.toLowerCase();
  const channels = [1, 3, 5].map((i) => parseInt(accent.slice(i, i + 2), 16));
  for (let scale = 0.95; contrastWithWhite(accent) < ACCENT_MIN_CONTRAST; scale -= 0.05)
    accent = `#${channels
      .map((c) =>
        Math.round(c * Math.max(scale, 0))
          .toString(16)
          .padStart(2, '0'),
      )
      .join('')}`;
  return { name: branding.name, logoUrl: branding.logoUrl, accent, accentText: '#ffffff' };
}

/** The theme variables and the merchant's header's look, shared by every page. */
function brandStyle(b: PortalBranding): string {
  return `:root{--renew-accent:${b.accent};--renew-accent-text:${b.accentText}}
body{border-top:4px solid var(--renew-accent)}
header.merchant{display:flex;flex-wrap:wrap;align-items:center;gap:.75rem;max-width:48rem;margin:0 auto;padding:1rem 1rem 0;box-sizing:border-box}
header.merchant img{max-height:40px;max-width:160px;width:auto}
header.merchant .merchant-name{font-size:1.25rem;font-weight:700;color:#1a1a1a;font-family:var(--renew-font,system-ui,sans-serif)}`;
}

/** The merchant's header: its logo (decorative: the name is beside it) and its name. */
export function merchantHeader(b: PortalBranding): string {
  const logo = b.logoUrl ? `<img src="${escapeHtml(b.logoUrl)}" alt="" height="40">` : '';
  return `<header class="merchant">${logo}<span class="merchant-name">${escapeHtml(b.name)}</span></header>`;
}

/** Own scripts, styles, connections, frames (the hosted card fields) and form posts only, and the merchant's logo; never framed itself. */
export function portalPagePolicy(
  branding?: PortalBranding,
  challengeFrameSources: readonly string[] = [],
  captcha: { scripts: readonly string[]; frames: readonly string[] } = { scripts: [], frames: [] },
): string {
  const logoOrigin = branding?.logoUrl ? ` ${new URL(branding.logoUrl).origin}` : '';
  return [
    "default-src 'none'",
    // reCAPTCHA's script, in google mode (the card form shows it after a decline: portal-card-attempts.ts)
    ["script-src 'self'", ...captcha.scripts].join(' '),
    "style-src 'self' 'unsafe-inline'",
    "connect-src 'self'",
    `img-src 'self'${logoOrigin}`,
    // the hosted card fields, and the bank's 3-D Secure page of a payment (where the gateway serves it)
    ["frame-src 'self'", ...challengeFrameSources, ...captcha.frames].join(' '),
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export const style = (b: PortalBranding) => `<style>
:root{--renew-font:system-ui,sans-serif;--renew-text:#1a1a1a;--renew-bg:#fff}
body{font-family:var(--renew-font);color:var(--renew-text);background:var(--renew-bg);margin:0;overflow-wrap:anywhere}
main{padding:1rem;max-width:32rem;margin-inline:auto}
button,input{font:inherit;min-height:44px;box-sizing:border-box;width:100%}
button{background:var(--renew-accent);color:var(--renew-accent-text);border:0;border-radius:6px;padding:.5rem 1rem;cursor:pointer}
button:focus-visible,input:focus-visible{outline:3px solid var(--renew-accent);outline-offset:2px}
label{display:block;margin:1rem 0 .25rem}
${brandStyle(b)}
</style>`;

export const PORTAL_OPEN_SCRIPT = {
  path: '/portal/assets/open.js',
  // Reads the token from the fragment (or from ?token= of links sent before), takes it out of the address bar
  // and history, then posts it: a scanner that only fetches runs nothing, and the token never reaches a log or a Referer.
  body: `document.addEventListener('DOMContentLoaded',function(){var f=document.getElementById('open');if(!f)return;var h=new URLSearchParams(location.hash.slice(1));var q=new URLSearchParams(location.search);var t=h.get('token')||q.get('token');if(!t)return;q.delete('token');var s=q.toString();history.replaceState(null,'',location.pathname+(s?'?'+s:''));f.elements.token.value=t;f.submit();});\n`,
};

/** The e-mail field's own message, in the page's language rather than the browser's (set by the sign-in script). */
export const EMAIL_FIELD_INVALID: Record<ReturnType<typeof portalLanguage>, string> = {
  en: 'Enter your e-mail address, for example name@example.com.',
  fr: 'Saisissez votre adresse e-mail, par exemple nom@exemple.fr.',
  de: 'Geben Sie Ihre E-Mail-Adresse ein, zum Beispiel name@beispiel.de.',
  es: 'Introduzca su correo electrónico, por ejemplo nombre@ejemplo.es.',
};

export const PORTAL_SIGN_IN_SCRIPT = {
  path: '/portal/assets/sign-in.js',
  body: `document.addEventListener('DOMContentLoaded',function(){document.querySelectorAll('input[data-invalid]').forEach(function(i){i.addEventListener('invalid',function(){i.setCustomValidity(i.dataset.invalid);});i.addEventListener('input',function(){i.setCustomValidity('');});});var f=document.getElementById('sign-in');if(!f)return;f.addEventListener('submit',function(e){e.preventDefault();var d=new FormData(f);fetch(f.action,{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify({account:d.get('account'),email:d.get('email'),locale:d.get('locale')})}).then(function(){var s=document.getElementById('status');s.hidden=false;});});});\n`,
};

/** The page a link opens on: its script posts the token (the page carries none: it is in the fragment). */
export function portalOpenPage(options: { lang?: string | undefined; branding: PortalBranding }): string {
  const lang = portalLanguage(options.lang);
  const t = TEXT[lang];
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="same-origin"><title>${escapeHtml(t.openTitle)}</title>${style(options.branding)}<script src="${PORTAL_OPEN_SCRIPT.path}" defer></script></head>
<body>${merchantHeader(options.branding)}<main><h1>${escapeHtml(t.openTitle)}</h1><form id="open" method="post" action="/portal/open"><input type="hidden" name="token" value=""><input type="hidden" name="lang" value="${lang}"><p>${escapeHtml(t.openHint)}</p><button type="submit">${escapeHtml(t.openButton)}</button></form></main></body></html>`;
}

export function portalSignInPage(options: { account: string; lang?: string | undefined; branding: PortalBranding }): string {
  const lang = portalLanguage(options.lang);
  const t = TEXT[lang];
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(t.signInTitle)}</title>${style(options.branding)}<script src="${PORTAL_SIGN_IN_SCRIPT.path}" defer></script></head>
<body>${merchantHeader(options.branding)}<main><h1>${escapeHtml(t.signInTitle)}</h1><form id="sign-in" method="post" action="/portal/sign-in"><input type="hidden" name="account" value="${escapeHtml(options.account)}"><input type="hidden" name="locale" value="${lang}"><label for="email">${escapeHtml(t.email)}</label><input id="email" name="email" type="email" autocomplete="email" required data-invalid="${escapeHtml(EMAIL_FIELD_INVALID[lang])}"><p><button type="submit">${escapeHtml(t.send)}</button></p></form><p id="status" role="status" hidden>${escapeHtml(t.sent)}</p></main></body></html>`;
}

/** A link whose task was done when it was opened (its invoices paid): said above the overview, in a landmark of its own. */
function nothingToPayNotice(text: string): string {
  return `<aside class="notice" aria-label="${escapeHtml(text)}" style="max-width:48rem;margin:1rem auto 0;padding:0 1rem;box-sizing:border-box"><p role="status">${escapeHtml(text)}</p></aside>`;
}

/** The portal's own script: `<renew-portal>` (browser/portal-app.ts), bundled by the host on first use. */
export const PORTAL_APP_SCRIPT_PATH = '/portal/assets/portal.js';

/** The portal's pages: one document whose element shows each view; the language is the link's (`lang`). */
export function portalAppPage(options: { lang?: string | undefined; branding: PortalBranding; nothingToPay?: boolean }): string {
  const lang = portalLanguage(options.lang);
  const t = TEXT[lang];
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><title>${escapeHtml(t.appTitle)}</title>
<style>:root{--renew-font:system-ui,sans-serif;--renew-text:#1a1a1a}body{margin:0;background:#fff;overflow-wrap:anywhere}
${brandStyle(options.branding)}</style><script type="module" src="${PORTAL_APP_SCRIPT_PATH}"></script></head>
<body>${merchantHeader(options.branding)}${options.nothingToPay ? nothingToPayNotice(t.nothingToPay) : ''}<renew-portal></renew-portal></body></html>`;
}
