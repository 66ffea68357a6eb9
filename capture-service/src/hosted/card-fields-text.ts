/**
 * The hosted card fields' words in each language they speak. Pure and free of
 * Node imports: the server renders the labels, the frame's script shows the
 * errors and relabels the fields when the widget changes language.
 */
export const CARD_FIELDS_LANGUAGES = ['en', 'fr', 'de', 'es'] as const;
export type CardFieldsLanguage = (typeof CARD_FIELDS_LANGUAGES)[number];

export interface CardFieldsText {
  /** The page's title: what a screen reader announces for the frame's document. */
  title: string;
  cardNumber: string;
  expiry: string;
  expiryPlaceholder: string;
  cvv: string;
  errors: {
    cardNumber: string;
    expiryFormat: string;
    expiryMonth: string;
    expired: string;
    /** `{digits}` is 3, or 4 for American Express. */
    cvv: string;
  };
  /** The bank's 3-D Secure challenge, shown in the frame (the bank's own page is in the bank's language). */
  challenge: {
    title: string;
    intro: string;
    frameTitle: string;
    cancel: string;
  };
}

const TEXT: Record<CardFieldsLanguage, CardFieldsText> = {
  en: {
    title: 'Card details',
    cardNumber: 'Card number',
    expiry: 'Expiry date (MM / YY)',
    expiryPlaceholder: 'MM / YY',
    cvv: 'Security code (CVV)',
    errors: {
      cardNumber: 'Enter a valid card number.',
      expiryFormat: 'Enter the expiry date as MM / YY.',
      expiryMonth: 'The month must be 01 to 12.',
      expired: 'This card has expired.',
      cvv: 'Enter the {digits}-digit security code.',
    },
    challenge: {
      title: 'Confirm with your bank',
      intro: 'Your bank asks you to confirm this card. Follow its instructions below.',
      frameTitle: "Your bank's confirmation page",
      cancel: 'Cancel',
    },
  },
  fr: {
    title: 'Coordonnées de la carte',
    cardNumber: 'Numéro de carte',
    expiry: "Date d'expiration (MM / AA)",
    expiryPlaceholder: 'MM / AA',
    cvv: 'Cryptogramme (CVV)',
    errors: {
      cardNumber: 'Saisissez un numéro de carte valide.',
      expiryFormat: "Saisissez la date d'expiration au format MM / AA.",
      expiryMonth: 'Le mois doit être compris entre 01 et 12.',
      expired: 'Cette carte a expiré.',
      cvv: 'Saisissez le cryptogramme à {digits} chiffres.',
    },
    challenge: {
      title: 'Confirmez auprès de votre banque',
      intro: 'Votre banque vous demande de confirmer cette carte. Suivez ses instructions ci-dessous.',
      frameTitle: 'Page de confirmation de votre banque',
      cancel: 'Annuler',
    },
  },
  de: {
    title: 'Kartendaten',
    cardNumber: 'Kartennummer',
    expiry: 'Ablaufdatum (MM / JJ)',
    expiryPlaceholder: 'MM / JJ',
    cvv: 'Prüfnummer (CVV)',
    errors: {
      cardNumber: 'Geben Sie eine gültige Kartennummer ein.',
      expiryFormat: 'Geben Sie das Ablaufdatum als MM / JJ ein.',
      expiryMonth: 'Der Monat muss zwischen 01 und 12 liegen.',
      expired: 'Diese Karte ist abgelaufen.',
      cvv: 'Geben Sie die {digits}-stellige Prüfnummer ein.',
    },
    challenge: {
      title: 'Bei Ihrer Bank bestätigen',
      intro: 'Ihre Bank bittet Sie, diese Karte zu bestätigen. Folgen Sie den Anweisungen unten.',
      frameTitle: 'Bestätigungsseite Ihrer Bank',
      cancel: 'Abbrechen',
    },
  },
  es: {
    title: 'Datos de la tarjeta',
    cardNumber: 'Número de tarjeta',
    expiry: 'Fecha de caducidad (MM / AA)',
    expiryPlaceholder: 'MM / AA',
    cvv: 'Código de seguridad (CVV)',
    errors: {
      cardNumber: 'Introduce un número de tarjeta válido.',
      expiryFormat: 'Introduce la fecha de caducidad como MM / AA.',
      expiryMonth: 'El mes debe estar entre 01 y 12.',
      expired: 'Esta tarjeta ha caducado.',
      cvv: 'Introduce el código de seguridad de {digits} dígitos.',
    },
    challenge: {
      title: 'Confirme con su banco',
      intro: 'Su banco le pide que confirme esta tarjeta. Siga sus instrucciones a continuación.',
      frameTitle: 'Página de confirmación de su banco',
      cancel: 'Cancelar',
    },
  },
};

/** A language tag as HTML's `lang` takes it (`fr`, `de-CH`, `es-419`). */
export const LANGUAGE_TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,3}$/;

/** The language spoken for a tag: its primary subtag when supported (`fr-CA` → fr), else English. */
export function cardFieldsLanguage(tag: string | undefined): CardFieldsLanguage {
  const primary = tag?.split('-')[0]?.toLowerCase();
  return (CARD_FIELDS_LANGUAGES as readonly string[]).includes(primary ?? '') ? (primary as CardFieldsLanguage) : 'en';
}

export function cardFieldsText(language: CardFieldsLanguage): CardFieldsText {
  return TEXT[language];
}
