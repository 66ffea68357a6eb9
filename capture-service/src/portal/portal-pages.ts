/**
 * The portal's server-written pages: the one a link opens on (it spends the link only when posted,
 * so a mail scanner fetching the link leaves it working) and the sign-in page. Their words in the
 * four portal languages; their scripts are this host's own files (the policy allows no inline script).
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
  },
};

export function portalLanguage(lang: string | undefined): Lang {
  const primary = (lang ?? '').slice(0, 2).toLowerCase();
  return primary === 'fr' || primary === 'de' || primary === 'es' ? primary : 'en';
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Own scripts, styles, connections, frames (the hosted card fields) and form posts only; never framed itself. */
export function portalPagePolicy(): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "connect-src 'self'",
    "img-src 'self'",
    "frame-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const STYLE = `<style>
:root{--renew-font:system-ui,sans-serif;--renew-text:#1a1a1a;--renew-bg:#fff;--renew-accent:#0b5cad}
body{font-family:var(--renew-font);color:var(--renew-text);background:var(--renew-bg);margin:0;padding:1rem;max-width:32rem;margin-inline:auto;overflow-wrap:anywhere}
button,input{font:inherit;min-height:44px;box-sizing:border-box;width:100%}
button{background:var(--renew-accent);color:#fff;border:0;border-radius:6px;padding:.5rem 1rem;cursor:pointer}
button:focus-visible,input:focus-visible{outline:3px solid var(--renew-accent);outline-offset:2px}
label{display:block;margin:1rem 0 .25rem}
</style>`;

export const PORTAL_OPEN_SCRIPT = {
  path: '/portal/assets/open.js',
  // Posts the link's form once the page is shown by a browser (a scanner that only fetches does not run it).
  body: "document.addEventListener('DOMContentLoaded',function(){var f=document.getElementById('open');if(f)f.submit();});\n",
};

export const PORTAL_SIGN_IN_SCRIPT = {
  path: '/portal/assets/sign-in.js',
  body: `document.addEventListener('DOMContentLoaded',function(){var f=document.getElementById('sign-in');if(!f)return;f.addEventListener('submit',function(e){e.preventDefault();var d=new FormData(f);fetch(f.action,{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify({account:d.get('account'),email:d.get('email'),locale:d.get('locale')})}).then(function(){var s=document.getElementById('status');s.hidden=false;});});});\n`,
};

export function portalOpenPage(options: { token: string; lang?: string | undefined }): string {
  const lang = portalLanguage(options.lang);
  const t = TEXT[lang];
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><title>${escapeHtml(t.openTitle)}</title>${STYLE}<script src="${PORTAL_OPEN_SCRIPT.path}" defer></script></head>
<body><main><h1>${escapeHtml(t.openTitle)}</h1><form id="open" method="post" action="/portal/open"><input type="hidden" name="token" value="${escapeHtml(options.token)}"><p>${escapeHtml(t.openHint)}</p><button type="submit">${escapeHtml(t.openButton)}</button></form></main></body></html>`;
}

export function portalSignInPage(options: { account: string; lang?: string | undefined }): string {
  const lang = portalLanguage(options.lang);
  const t = TEXT[lang];
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(t.signInTitle)}</title>${STYLE}<script src="${PORTAL_SIGN_IN_SCRIPT.path}" defer></script></head>
<body><main><h1>${escapeHtml(t.signInTitle)}</h1><form id="sign-in" method="post" action="/portal/sign-in"><input type="hidden" name="account" value="${escapeHtml(options.account)}"><input type="hidden" name="locale" value="${lang}"><label for="email">${escapeHtml(t.email)}</label><input id="email" name="email" type="email" autocomplete="email" required><p><button type="submit">${escapeHtml(t.send)}</button></p></form><p id="status" role="status" hidden>${escapeHtml(t.sent)}</p></main></body></html>`;
}

/** The portal's own script: `<renew-portal>` (browser/portal-app.ts), bundled by the host on first use. */
export const PORTAL_APP_SCRIPT_PATH = '/portal/assets/portal.js';

/** The portal's pages: one document whose element shows each view; the language is the link's (`lang`). */
export function portalAppPage(options: { lang?: string | undefined }): string {
  const lang = portalLanguage(options.lang);
  const t = TEXT[lang];
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><title>${escapeHtml(t.appTitle)}</title>
<style>:root{--renew-font:system-ui,sans-serif;--renew-text:#1a1a1a;--renew-accent:#0b5cad}body{margin:0;background:#fff}</style><script type="module" src="${PORTAL_APP_SCRIPT_PATH}"></script></head>
<body><renew-portal></renew-portal></body></html>`;
}
