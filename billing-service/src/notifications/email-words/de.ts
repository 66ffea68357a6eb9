import type { EmailWords } from './words.js';

const ref = (reference: string | null) => (reference ? ` (${reference})` : '');

export const de: EmailWords = {
  hello: (name) => (name ? `Hallo ${name},` : 'Hallo,'),
  footer: (brand) => `Sie erhalten diese E-Mail, weil Sie Kunde von ${brand} sind.`,
  buttons: {
    paymentMethodUpdate: 'Karte aktualisieren',
    payInvoices: 'Jetzt bezahlen',
    invoices: 'Rechnungen ansehen',
    authenticatePayment: 'Zahlung bestätigen',
  },
  signInButton: 'Zu Ihrem Konto',
  confirmEmailButton: 'Diese Adresse bestätigen',
  linkLine: (label, url) => `${label}: ${url}`,
  invoiceTable: { subtotal: 'Zwischensumme', discount: 'Rabatt', total: 'Gesamtbetrag' },
  refundWays: {
    CreditCard: 'auf Ihre Karte',
    Cash: 'in bar',
    Check: 'per Scheck',
    DirectDeposit: 'per Überweisung',
    ACH: 'per ACH-Überweisung',
    other: 'wie mit Ihnen vereinbart',
  },
  declines: {
    insufficient_funds: 'die Karte ist nicht ausreichend gedeckt',
    expired_card: 'die Karte ist abgelaufen',
    incorrect_cvc: 'der Sicherheitscode wurde nicht akzeptiert',
    other: 'die Karte wurde abgelehnt',
  },
  unknownCardBrand: 'Zahlungs',
  InvoicePost: (v) => ({
    subject: `${v.brand}: Rechnung ${v.number} über ${v.amount}`,
    paragraphs: [
      `Rechnung ${v.number} über ${v.amount} wurde ausgestellt; sie ist am ${v.dueDate} fällig.`,
      'Die Rechnung liegt als PDF bei.',
    ],
  }),
  PaymentReceived: (v) => ({
    subject: `${v.brand}: Zahlung über ${v.amount} eingegangen`,
    paragraphs: [`Wir haben Ihre Zahlung über ${v.amount}${ref(v.reference)} erhalten. Vielen Dank!`],
  }),
  AuthenticationRequired: (v) => ({
    subject: `${v.brand}: Bestätigen Sie Ihre Zahlung von ${v.amount}`,
    paragraphs: [
      `Ihre Bank bittet Sie, Ihre Zahlung von ${v.amount} zu bestätigen, bevor sie ausgeführt wird (3-D Secure).`,
      'Es wurde noch nichts abgebucht. Öffnen Sie den Link und bestätigen Sie die Zahlung auf der Seite Ihrer Bank.',
    ],
  }),
  PaymentFailed: (v) => ({
    subject: `${v.brand}: Ihre Zahlung über ${v.amount} ist fehlgeschlagen`,
    paragraphs: [
      `Ihre Zahlung über ${v.amount} konnte nicht eingezogen werden: ${v.reason}.`,
      'Bitte aktualisieren Sie Ihre Zahlungsmethode, damit Ihr Abonnement weiterläuft.',
    ],
  }),
  Refund: (v) => ({
    subject: `${v.brand}: Erstattung über ${v.amount}`,
    paragraphs: [
      `Wir haben Ihnen ${v.amount} Ihrer Zahlung über ${v.paymentAmount} vom ${v.paymentDate} erstattet, ${v.way}${ref(v.reference)}.`,
    ],
  }),
  InvoiceOverdue: (v) => ({
    subject: `${v.brand}: Rechnung ${v.number} ist überfällig`,
    paragraphs: [
      `Rechnung ${v.number} war am ${v.dueDate} fällig; ${v.outstanding} sind noch offen. Bitte begleichen Sie den Betrag, damit Ihr Abonnement weiterläuft.`,
    ],
  }),
  SubscriptionCancellation: (v) => ({
    subject: v.count === 1 ? `${v.brand}: Ihr Abonnement ist gekündigt` : `${v.brand}: Ihre Abonnements sind gekündigt`,
    paragraphs: [
      v.count === 1 ? `Ihr Abonnement ${v.subscriptions} ist gekündigt.` : `Diese Abonnements sind gekündigt: ${v.subscriptions}.`,
    ],
  }),
  CreditCardExpiry: (v) => ({
    subject: `${v.brand}: Ihre Karte mit der Endung ${v.lastFour} läuft bald ab`,
    paragraphs: [
      `Ihre ${v.cardBrand}-Karte mit der Endung ${v.lastFour} läuft Ende ${v.expiry} ab.`,
      'Bitte hinterlegen Sie eine neue Karte, damit Ihre Zahlungen weiterlaufen.',
    ],
  }),
  CustomerActivation: (v) => ({
    subject: `${v.brand}: Ihr Konto ist aktiv`,
    paragraphs: ['Ihr Konto und Ihre Abonnements sind aktiv. Willkommen!'],
  }),
  CustomerSuspend: (v) => ({
    subject: `${v.brand}: Ihr Konto ist gesperrt`,
    paragraphs: [
      `Ihr Konto wurde gesperrt: Eine Rechnung ist seit ${v.overdueDays} Tagen überfällig.`,
      'Es wird wieder freigeschaltet, sobald der überfällige Betrag bezahlt ist.',
    ],
  }),
  CreditNote: (v) => ({
    subject: `${v.brand}: Gutschrift ${v.number} zur Rechnung ${v.invoiceNumber}`,
    paragraphs: [
      `Wir haben Ihnen die Gutschrift ${v.number} über ${v.total} zur Rechnung ${v.invoiceNumber} ausgestellt.`,
      ...(v.applied ? [`${v.applied} werden mit der Rechnung verrechnet.`] : []),
      ...(v.credited ? [`${v.credited} werden Ihrem Konto gutgeschrieben und mit Ihren nächsten Rechnungen verrechnet.`] : []),
      ...(v.refunded ? [`${v.refunded} werden auf Ihr Zahlungsmittel erstattet.`] : []),
    ],
  }),
  UsageThresholdReached: (v) => ({
    subject: `${v.brand}: Ihre Nutzung von ${v.metric} hat ${v.threshold} erreicht`,
    paragraphs: [
      `Ihre Nutzung von ${v.metric} seit dem ${v.periodStart} liegt bei ${v.quantity} und damit über dem für Ihr Abonnement festgelegten Schwellenwert von ${v.threshold}.`,
      'Sie wird mit Ihrer nächsten Rechnung abgerechnet.',
    ],
  }),
  frequency: (interval, count) =>
    interval === 'Monthly' ? (count === 1 ? 'monatlich' : `alle ${count} Monate`) : count === 1 ? 'jährlich' : `alle ${count} Jahre`,
  quantityChange: (product, from, to) => `${product}: ${from} → ${to}`,
  SubscriptionChange: (v) => {
    const same = v.fromPlan === v.toPlan;
    const what = v.scheduled
      ? same
        ? `Ihr Abonnement ${v.toPlan} ändert sich wie gewünscht am ${v.date}.`
        : `Ihr Abonnement wechselt wie gewünscht am ${v.date} von ${v.fromPlan} zu ${v.toPlan}.`
      : same
        ? `Ihr Abonnement ${v.toPlan} wurde am ${v.date} geändert.`
        : `Ihr Abonnement ist am ${v.date} von ${v.fromPlan} zu ${v.toPlan} gewechselt.`;
    const invoice = v.invoice
      ? v.invoice.credit
        ? `Die Änderung ergibt eine Gutschrift von ${v.invoice.amount} (Rechnung ${v.invoice.number}), die mit Ihren nächsten Rechnungen verrechnet wird.`
        : `Die Änderung wird mit Rechnung ${v.invoice.number} berechnet: ${v.invoice.amount}.`
      : null;
    return {
      subject: v.scheduled ? `${v.brand}: Ihr Tarif ändert sich am ${v.date}` : `${v.brand}: Ihr Tarif wurde geändert`,
      paragraphs: [
        what,
        ...(v.quantities ? [`Mengen: ${v.quantities}.`] : []),
        ...(invoice ? [invoice] : []),
        `Ihre nächste Abbuchung: ${v.nextCharge.amount} am ${v.nextCharge.date}.`,
      ],
    };
  },
  PortalSignIn: (v) => ({
    subject: `${v.brand}: Ihr Anmeldelink`,
    paragraphs: [
      `Mit diesem Link verwalten Sie Ihr Konto bei ${v.brand}. Er gilt einmal, innerhalb von ${v.minutes} Minuten.`,
      'Wenn Sie ihn nicht angefordert haben, ignorieren Sie diese Nachricht: Ohne den Link kann sich niemand anmelden.',
    ],
  }),
  EmailChangeConfirmation: (v) => ({
    subject: `${v.brand}: Bestätigen Sie Ihre neue E-Mail-Adresse`,
    paragraphs: [
      `Sie haben ${v.brand} gebeten, Ihre E-Mails künftig an ${v.newEmail} zu senden. Bestätigen Sie, dass diese Adresse Ihnen gehört: Der Link gilt einmal, innerhalb von ${v.hours} Stunden.`,
      'Bis zur Bestätigung gehen Ihre E-Mails weiter an Ihre bisherige Adresse. Wenn Sie das nicht angefordert haben, ignorieren Sie diese Nachricht: Es ändert sich nichts.',
    ],
  }),
};
