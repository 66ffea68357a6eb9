import { portalLanguage, type PortalBranding } from './portal-pages.js';

/** The page a new address's confirmation link opens (portal-email-change-routes.ts), in the link's language. */
const WORDS = {
  en: {
    title: 'Confirm your new e-mail address',
    hint: 'Confirm to receive your e-mails at this address from now on.',
    button: 'Confirm',
    done: (email: string) => `Done: your e-mails now go to ${email}.`,
    invalid: 'This link was already used, has expired, or a newer request replaced it. Change your address again in your account.',
  },
  fr: {
    title: 'Confirmez votre nouvelle adresse e-mail',
    hint: 'Confirmez pour recevoir désormais vos courriels à cette adresse.',
    button: 'Confirmer',
    done: (email: string) => `C’est fait\u202f: vos courriels arrivent désormais à ${email}.`,
    invalid:
      'Ce lien a déjà servi, a expiré ou a été remplacé par une demande plus récente. Changez à nouveau votre adresse depuis votre compte.',
  },
  de: {
    title: 'Bestätigen Sie Ihre neue E-Mail-Adresse',
    hint: 'Bestätigen Sie, um Ihre E-Mails künftig an diese Adresse zu erhalten.',
    button: 'Bestätigen',
    done: (email: string) => `Erledigt: Ihre E-Mails gehen jetzt an ${email}.`,
    invalid:
      'Dieser Link wurde bereits verwendet, ist abgelaufen oder wurde durch eine neuere Anfrage ersetzt. Ändern Sie Ihre Adresse erneut in Ihrem Konto.',
  },
  es: {
    title: 'Confirme su nueva dirección de correo',
    hint: 'Confirme para recibir sus correos en esta dirección a partir de ahora.',
    button: 'Confirmar',
    done: (email: string) => `Listo: sus correos llegan ahora a ${email}.`,
    invalid: 'Este enlace ya se usó, ha caducado o una solicitud más reciente lo sustituyó. Cambie de nuevo su dirección desde su cuenta.',
  },
} as const;

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

function page(lang: string, branding: PortalBranding, title: string, body: string): string {
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;color:#1a1a1a;margin:0;border-top:4px solid ${branding.accent}}header,main{max-width:32rem;margin:0 auto;padding:1rem}header{font-weight:700;font-size:1.25rem}button{font:inherit;min-height:44px;width:100%;background:${branding.accent};color:${branding.accentText};border:0;border-radius:6px;cursor:pointer}button:focus-visible{outline:3px solid ${branding.accent};outline-offset:2px}</style></head>
<body><header>${escapeHtml(branding.name)}</header><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

/** GET: a button that posts the token (a mail scanner that only fetches the link does not spend it). */
export function emailChangeConfirmPage(options: { token: string; lang?: string | undefined; branding: PortalBranding }): string {
  const lang = portalLanguage(options.lang);
  const t = WORDS[lang];
  return page(
    lang,
    options.branding,
    t.title,
    `<form method="post" action="/portal/confirm-email"><input type="hidden" name="token" value="${escapeHtml(options.token)}"><input type="hidden" name="lang" value="${lang}"><p>${escapeHtml(t.hint)}</p><button type="submit">${escapeHtml(t.button)}</button></form>`,
  );
}

/** After the POST: the change applied, or why the link no longer works. */
export function emailChangeResultPage(options: { email: string | null; lang?: string | undefined; branding: PortalBranding }): string {
  const lang = portalLanguage(options.lang);
  const t = WORDS[lang];
  const line = options.email === null ? t.invalid : t.done(options.email);
  return page(lang, options.branding, t.title, `<p role="status">${escapeHtml(line)}</p>`);
}
