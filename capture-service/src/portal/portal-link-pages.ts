import {
  EMAIL_FIELD_INVALID,
  escapeHtml,
  merchantHeader,
  PORTAL_SIGN_IN_SCRIPT,
  portalLanguage,
  style,
  type PortalBranding,
} from './portal-pages.js';

/**
 * The pages of a link that needs a word from the customer: the confirmation of whose portal a link
 * opens (in a browser that did not ask for it), the page of a link or session that no longer works
 * (a way forward: a new link to the address on file), and the answer to "send me a new link".
 * No script of their own: nothing here is submitted but by the customer's click.
 */

export type LinkPageLanguage = ReturnType<typeof portalLanguage>;
type Lang = LinkPageLanguage;

/** Why a link or a session does not open: each has its page title. */
export type LinkProblem = 'invalid' | 'expired' | 'used' | 'crossSite' | 'sessionEnded';

interface LinkWords {
  confirmTitle: string;
  /** {email}, {merchant} */
  confirmText: string;
  confirmButton: string;
  confirmHint: string;
  problem: Record<LinkProblem, string>;
  knownText: string;
  unknownText: string;
  resend: string;
  email: string;
  resent: string;
  /** The sign-in form's answer (an address, not a link, was given). */
  sentAddress: string;
  resentTitle: string;
}

const WORDS: Record<Lang, LinkWords> = {
  en: {
    confirmTitle: 'Continue to the billing portal?',
    confirmText: 'This link opens the billing portal of {email} at {merchant}.',
    confirmButton: 'Continue',
    confirmHint: 'Not your address? Close this page: nothing happens unless you continue.',
    problem: {
      invalid: 'This link does not work',
      expired: 'This link has expired',
      used: 'This link was already used',
      crossSite: 'This link was opened from another site',
      sessionEnded: 'Your session has ended',
    },
    knownText: 'For your security, portal links work for a limited time. We can send a new sign-in link to the e-mail address on file.',
    unknownText: 'Enter your e-mail address and we will send you a new sign-in link.',
    resend: 'Send me a new link',
    email: 'E-mail address',
    sentAddress: 'If this address belongs to a customer, a sign-in link is on its way. It works once, within 15 minutes.',
    resentTitle: 'Check your e-mail',
    resent:
      'If this link belongs to a customer, a new sign-in link is on its way to the address on file. It works once, within 15 minutes.',
  },
  fr: {
    confirmTitle: 'Accéder à l’espace de facturation ?',
    confirmText: 'Ce lien ouvre l’espace de facturation de {email} chez {merchant}.',
    confirmButton: 'Continuer',
    confirmHint: 'Ce n’est pas votre adresse ? Fermez cette page : rien ne se passe sans votre accord.',
    problem: {
      invalid: 'Ce lien ne fonctionne pas',
      expired: 'Ce lien a expiré',
      used: 'Ce lien a déjà servi',
      crossSite: 'Ce lien a été ouvert depuis un autre site',
      sessionEnded: 'Votre session est terminée',
    },
    knownText:
      'Pour votre sécurité, les liens de l’espace client ont une durée limitée. Nous pouvons envoyer un nouveau lien de connexion à l’adresse e-mail enregistrée.',
    unknownText: 'Saisissez votre adresse e-mail : nous vous enverrons un nouveau lien de connexion.',
    resend: 'M’envoyer un nouveau lien',
    email: 'Adresse e-mail',
    sentAddress: 'Si cette adresse appartient à un client, un lien de connexion est en route. Il sert une fois, dans les 15 minutes.',
    resentTitle: 'Consultez vos e-mails',
    resent:
      'Si ce lien appartient à un client, un nouveau lien de connexion est en route vers l’adresse enregistrée. Il sert une fois, dans les 15 minutes.',
  },
  de: {
    confirmTitle: 'Weiter zum Abrechnungsportal?',
    confirmText: 'Dieser Link öffnet das Abrechnungsportal von {email} bei {merchant}.',
    confirmButton: 'Weiter',
    confirmHint: 'Nicht Ihre Adresse? Schließen Sie diese Seite: Ohne Ihre Bestätigung geschieht nichts.',
    problem: {
      invalid: 'Dieser Link funktioniert nicht',
      expired: 'Dieser Link ist abgelaufen',
      used: 'Dieser Link wurde bereits verwendet',
      crossSite: 'Dieser Link wurde von einer anderen Website geöffnet',
      sessionEnded: 'Ihre Sitzung ist beendet',
    },
    knownText:
      'Zu Ihrer Sicherheit gelten Portal-Links nur begrenzte Zeit. Wir können einen neuen Anmeldelink an die hinterlegte E-Mail-Adresse senden.',
    unknownText: 'Geben Sie Ihre E-Mail-Adresse ein, und wir senden Ihnen einen neuen Anmeldelink.',
    resend: 'Neuen Link senden',
    email: 'E-Mail-Adresse',
    sentAddress: 'Wenn diese Adresse zu einem Kunden gehört, ist ein Anmeldelink unterwegs. Er gilt einmal, innerhalb von 15 Minuten.',
    resentTitle: 'Sehen Sie in Ihre E-Mails',
    resent:
      'Wenn dieser Link zu einem Kunden gehört, ist ein neuer Anmeldelink an die hinterlegte Adresse unterwegs. Er gilt einmal, innerhalb von 15 Minuten.',
  },
  es: {
    confirmTitle: '¿Continuar al portal de facturación?',
    confirmText: 'Este enlace abre el portal de facturación de {email} en {merchant}.',
    confirmButton: 'Continuar',
    confirmHint: '¿No es su dirección? Cierre esta página: no ocurre nada si no continúa.',
    problem: {
      invalid: 'Este enlace no funciona',
      expired: 'Este enlace ha caducado',
      used: 'Este enlace ya se utilizó',
      crossSite: 'Este enlace se abrió desde otro sitio',
      sessionEnded: 'Su sesión ha terminado',
    },
    knownText:
      'Por su seguridad, los enlaces del portal tienen una duración limitada. Podemos enviar un nuevo enlace de acceso a la dirección de correo registrada.',
    unknownText: 'Introduzca su correo electrónico y le enviaremos un nuevo enlace de acceso.',
    resend: 'Enviarme un nuevo enlace',
    email: 'Correo electrónico',
    sentAddress: 'Si esta dirección pertenece a un cliente, le enviamos un enlace de acceso. Sirve una vez, durante 15 minutos.',
    resentTitle: 'Revise su correo',
    resent:
      'Si este enlace pertenece a un cliente, un nuevo enlace de acceso va de camino a la dirección registrada. Sirve una vez, durante 15 minutos.',
  },
};

/** The page's language: the link's, else ?lang, else the browser's first of en, fr, de, es (Accept-Language). */
export function linkPageLanguage(
  linkLocale: string | null | undefined,
  lang: string | undefined,
  acceptLanguage: string | undefined,
): Lang {
  if (linkLocale) return portalLanguage(linkLocale);
  if (lang) return portalLanguage(lang);
  for (const part of (acceptLanguage ?? '').split(',')) {
    const tag = part.split(';')[0]?.trim().slice(0, 2).toLowerCase();
    if (tag === 'en' || tag === 'fr' || tag === 'de' || tag === 'es') return tag;
  }
  return 'en';
}

function page(lang: Lang, branding: PortalBranding, title: string, body: string, script = ''): string {
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="same-origin"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>${style(branding)}${script}</head>
<body>${merchantHeader(branding)}<main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

/** "Continue to the billing portal of j•••@example.com at Inkwell?": the click posts the token again, confirmed. */
export function portalConfirmPage(options: { lang: Lang; branding: PortalBranding; token: string; maskedEmail: string }): string {
  const w = WORDS[options.lang];
  const text = escapeHtml(w.confirmText)
    .replace('{email}', `<strong>${escapeHtml(options.maskedEmail)}</strong>`)
    .replace('{merchant}', `<strong>${escapeHtml(options.branding.name)}</strong>`);
  return page(
    options.lang,
    options.branding,
    w.confirmTitle,
    `<p>${text}</p><form id="confirm" method="post" action="/portal/open"><input type="hidden" name="token" value="${escapeHtml(options.token)}"><input type="hidden" name="confirmed" value="1"><input type="hidden" name="lang" value="${options.lang}"><button type="submit">${escapeHtml(w.confirmButton)}</button></form><p>${escapeHtml(w.confirmHint)}</p>`,
  );
}

/**
 * A link or session that does not open, and the way forward: for a link or session this service knows
 * (`resend`), one button that sends a new sign-in link to the customer on file; else the e-mail field
 * of the sign-in page.
 */
export function portalLinkProblemPage(options: {
  lang: Lang;
  branding: PortalBranding;
  problem: LinkProblem;
  /** The dead link's token (the session's cookie goes by itself); undefined: the customer is not known. */
  resend?: { linkToken: string | null } | undefined;
}): string {
  const w = WORDS[options.lang];
  const { lang, branding } = options;
  if (options.resend) {
    const token = options.resend.linkToken ? `<input type="hidden" name="token" value="${escapeHtml(options.resend.linkToken)}">` : '';
    return page(
      lang,
      branding,
      w.problem[options.problem],
      `<p>${escapeHtml(w.knownText)}</p><form id="resend" method="post" action="/portal/resend">${token}<input type="hidden" name="lang" value="${lang}"><button type="submit">${escapeHtml(w.resend)}</button></form>`,
    );
  }
  return page(
    lang,
    branding,
    w.problem[options.problem],
    `<p>${escapeHtml(w.unknownText)}</p><form id="sign-in" method="post" action="/portal/sign-in"><input type="hidden" name="account" value=""><input type="hidden" name="locale" value="${lang}"><label for="email">${escapeHtml(w.email)}</label><input id="email" name="email" type="email" autocomplete="email" required data-invalid="${escapeHtml(EMAIL_FIELD_INVALID[lang])}"><p><button type="submit">${escapeHtml(w.resend)}</button></p></form><p id="status" role="status" hidden>${escapeHtml(w.sentAddress)}</p>`,
    `<script src="${PORTAL_SIGN_IN_SCRIPT.path}" defer></script>`,
  );
}

/** The answer to "send me a new link" (a form post): the same words whether or not anything was sent. */
export function portalResentPage(options: { lang: Lang; branding: PortalBranding; address?: boolean }): string {
  const w = WORDS[options.lang];
  return page(
    options.lang,
    options.branding,
    w.resentTitle,
    `<p role="status">${escapeHtml(options.address ? w.sentAddress : w.resent)}</p>`,
  );
}
